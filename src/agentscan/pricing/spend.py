"""Token sums kept apart by price key, so a group's cost is exact whatever the grouping.

A report adds every call to the ``Spend`` of its group (a session, a day,
a model, a subagent, …) under the call's price key (``PriceBook.key``).
Tokens are the sum over keys; the cost is each key's coefficients applied
to its sums.  Nothing here knows how groups are formed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Iterable, Sequence

from agentscan.bounds import token_sum
from agentscan.model import CACHE_READ, CACHE_WRITE, CACHE_WRITE_1H, INPUT, OUTPUT, REASONING, TokenUsage
from agentscan.pricing.periods import EXACT

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
            sums = self.parts[key] = [0, 0, 0, 0, 0, 0, 0]
        sums[0] += entry[INPUT]
        sums[1] += entry[CACHE_READ]
        sums[2] += entry[CACHE_WRITE]
        sums[3] += entry[OUTPUT]
        sums[4] += entry[REASONING]
        sums[5] += 1
        sums[6] += entry[CACHE_WRITE_1H]

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
        """Exact USD, or ``None`` when nothing was added or some calls with tokens have no price."""
        return book.cost(self.parts) if self.parts else None


def merged(spends: Sequence[Spend]) -> Spend:
    total = Spend()
    for spend in spends:
        total.merge(spend)
    return total


def total_cost(costs: Iterable[Decimal | None]) -> Decimal | None:
    """The exact sum; ``None`` when any part is unknown, or when there are no parts."""
    total: Decimal | None = None
    for cost in costs:
        if cost is None:
            return None
        total = cost if total is None else EXACT.add(total, cost)
    return total
