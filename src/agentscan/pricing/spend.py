"""Token sums kept apart by price key, so a group's cost is exact whatever the grouping.

A report adds every call to the ``Spend`` of its group (a session, a day,
a model, a subagent, …) under the call's price key (``PriceBook.key``).
Tokens are the sum over keys; the cost is each key's coefficients applied
to its sums.  Nothing here knows how groups are formed.

``Priced`` is a group's cost together with what is known when it is not
known whole: the sum of the calls that do have a price and the models
that have none.  The rule for when a cost is ``None`` lives in
``Priced.of_parts`` and ``combined`` (docs/pricing.md, "Unknown models").
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Iterable, NamedTuple, Sequence

from agentscan.bounds import token_sum
from agentscan.model import CACHE_READ, CACHE_WRITE, CACHE_WRITE_1H, INPUT, OUTPUT, REASONING, WEB_SEARCHES, TokenUsage
from agentscan.pricing.periods import EXACT, plain

if TYPE_CHECKING:
    from agentscan.pricing.book import PriceBook


class Spend:
    """Sums of ``periods.PARTS`` per price key; built without an object per call."""

    __slots__ = ("parts",)

    def __init__(self, parts: dict[int, list[int]] | None = None) -> None:
        self.parts: dict[int, list[int]] = {} if parts is None else parts

    def add(self, entry: Sequence, key: int) -> None:
        """Add one packed usage entry (see ``UsageEntry.pack``) under its price key."""
        sums = self.parts.get(key)
        if sums is None:
            sums = self.parts[key] = [0, 0, 0, 0, 0, 0, 0, 0]
        sums[0] += entry[INPUT]
        sums[1] += entry[CACHE_READ]
        sums[2] += entry[CACHE_WRITE]
        sums[3] += entry[OUTPUT]
        sums[4] += entry[REASONING]
        sums[5] += 1
        sums[6] += entry[CACHE_WRITE_1H]
        sums[7] += entry[WEB_SEARCHES]

    def merge(self, other: Spend) -> None:
        for key, sums in other.parts.items():
            mine = self.parts.get(key)
            if mine is None:
                self.parts[key] = list(sums)
            else:
                for index, value in enumerate(sums):
                    mine[index] += value

    def __bool__(self) -> bool:
        return bool(self.parts)

    def tokens(self) -> TokenUsage | None:
        """``None`` when no call was added (nothing recorded), else the token totals."""
        if not self.parts:
            return None
        totals = [0, 0, 0, 0, 0]
        for sums in self.parts.values():
            for index in range(5):
                totals[index] += sums[index]
        return TokenUsage(*map(token_sum, totals))  # saturated: see bounds.MAX_TOKEN_SUM

    def cost(self, book: PriceBook) -> Decimal | None:
        """Exact USD, or ``None`` when nothing was added or some calls have no price (``Priced.cost``)."""
        return book.cost(self.parts) if self.parts else None

    def priced(self, book: PriceBook) -> Priced:
        return book.assess(self.parts)


def merged(spends: Sequence[Spend]) -> Spend:
    total = Spend()
    for spend in spends:
        total.merge(spend)
    return total


class Priced(NamedTuple):  # a tuple: one is made per group, thousands per report
    """A group's cost, and what is known of it when it is not known whole.

    ``cost`` is ``None`` when a call with tokens has no price, or when none
    of the group's calls has one (a group of Claude's zero-token
    ``<synthetic>`` turns: its model has no price, even though its calls
    cost nothing).  A call with no tokens and no price adds nothing to a
    group that has priced calls.
    """

    #: exact USD, or ``None`` (see above)
    cost: Decimal | None
    #: the exact sum of the calls that have a price (``cost`` when that is known);
    #: ``None`` when the group has no calls at all
    priced: Decimal | None
    #: the models (as recorded; ``unknown`` when none is) that make ``cost`` ``None``
    unpriced: tuple[str, ...]
    #: whether some call of the group has tokens
    tokens: bool

    @property
    def partial(self) -> bool:
        """Calls with tokens have no price, but others do: ``priced`` is a lower bound."""
        return self.cost is None and bool(self.priced)


#: a group with no calls: nothing recorded, nothing priced
NOTHING = Priced(None, None, (), False)


def combined(parts: Iterable[Priced]) -> Priced:
    """The cost of groups taken together, by the same rule as one group of all their calls."""
    parts = list(parts)
    if len(parts) == 1:
        return parts[0]
    if parts and all(part.cost is not None for part in parts):  # the usual case, kept cheap
        total = Decimal(0)
        for part in parts:
            total = EXACT.add(total, part.cost)  # type: ignore[arg-type]
        total = plain(total)
        return Priced(total, total, (), any(part.tokens for part in parts))
    if not parts:
        return NOTHING
    priced: Decimal | None = None
    missing: set[str] = set()
    idle: set[str] = set()
    known = blocked = False
    for part in parts:
        if part.priced is not None:
            priced = part.priced if priced is None else EXACT.add(priced, part.priced)
        if part.cost is not None:
            known = True
        elif part.tokens:
            blocked = True
            missing.update(part.unpriced)
        else:
            idle.update(part.unpriced)  # no tokens: matters only if nothing else is priced
    tokens = any(part.tokens for part in parts)
    if blocked:
        return Priced(None, plain(priced) if priced is not None else None, tuple(sorted(missing)), tokens)
    if not known:
        return Priced(None, plain(priced) if priced is not None else None, tuple(sorted(idle)), tokens)
    assert priced is not None
    total = plain(priced)
    return Priced(total, total, (), tokens)


def sum_costs(parts: Iterable[tuple[Decimal | None, bool]]) -> Decimal | None:
    """``combined`` for bare costs: each part's cost and whether it has tokens (OTLP agent spans)."""
    return combined(Priced(cost, cost if cost is not None else Decimal(0), (), tokens) for cost, tokens in parts).cost
