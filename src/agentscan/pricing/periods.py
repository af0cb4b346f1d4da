"""A model's price over one period, as exact per-token coefficients.

Within one period (no price change) and one long-context tier, the cost
genai-prices computes for a call is linear in the call's tokens:

    cost = input·c_in + cache_read·c_cr + cache_write·c_cw + output·c_out
           + reasoning·c_reasoning + calls·c_call + cache_write_1h·c_1h
           + web_searches·c_search

(``c_reasoning`` is the extra a model charges for the reasoning part of
output, usually 0; ``c_call`` a per-request fee, usually 0; ``c_1h`` the
extra for the part of the cache writes kept for one hour; ``c_search`` the
price of one hosted web search, $0.01 for Anthropic's models: no token, but
billed per call beside them.)  So the cost
of any group of calls is the same formula applied to their token sums, in
exact decimal arithmetic, which is what lets agentscan price 100,000 calls
without calling the library 100,000 times.  ``library.py`` derives the
coefficients *from the library's own answers* and checks the formula
against it, so no pricing rule is re-implemented here.
"""

from __future__ import annotations

from bisect import bisect_left
from decimal import Context, Decimal
from typing import Any, NamedTuple, Sequence

#: the token sums a cost is computed from, in this order (see ``Spend``)
PARTS = ("input", "cache_read", "cache_write", "output", "reasoning", "calls", "cache_write_1h", "web_searches")
#: enough digits that no realistic sum is ever rounded (prices carry ≤ 24 decimals per token)
EXACT = Context(prec=80)

Coefficients = tuple[Decimal, Decimal, Decimal, Decimal, Decimal, Decimal, Decimal, Decimal]


class NotPriceable(Exception):
    """genai-prices has no usable price for a model (the message says why)."""


#: how a reason for no price ends when the call came before its price variant's prices start
#: (``book`` words its hint so: the call's date is the gap, not a model newer than the data)
NOT_YET = ", when those prices start"


#: the rule that found a period's bounds (``library._bounds``), kept with each period the index
#: holds (``Period.to_json``): one of another rule is no period (``from_json``), so the book drops
#: a model's stored periods and asks the library again (``book.PriceBook._load``), whose price data
#: may not have changed.  2: a time-of-day window is looked for two days either side of the call's
#: UTC day (a period stored under 1, no mark, could run open-ended past a far-from-UTC window)
BOUNDS_RULE = 2


class Period(NamedTuple):
    """Prices valid from ``start`` (inclusive) to ``end`` (exclusive), epoch seconds; ``None`` is open.

    ``thresholds`` are the long-context tier starts: a call whose total
    input (uncached + cache read + cache write) is above ``thresholds[i]``
    is priced with ``coefficients[i + 1]``.  A named tuple (see ``cli.term.Terminal``).
    """

    start: float | None
    end: float | None
    thresholds: tuple[int, ...]
    coefficients: tuple[Coefficients, ...]

    @property
    def timeless(self) -> bool:
        """Valid at every time, so it also prices calls with no timestamp."""
        return self.start is None and self.end is None

    def covers(self, ts: float | None) -> bool:
        if ts is None:
            return self.timeless
        return (self.start is None or self.start <= ts) and (self.end is None or ts < self.end)

    def overlaps(self, other: Period) -> bool:
        """Whether some time is in both (each is ``[start, end)``; ``None`` is open)."""
        starts_before_other_ends = self.start is None or other.end is None or self.start < other.end
        ends_after_other_starts = self.end is None or other.start is None or other.start < self.end
        return starts_before_other_ends and ends_after_other_starts

    def tier(self, total_input: int) -> int:
        """How many thresholds the call is above (tiers start *above* their threshold)."""
        return bisect_left(self.thresholds, total_input)

    def to_json(self) -> list[Any]:
        return [self.start, self.end, list(self.thresholds), [[str(c) for c in row] for row in self.coefficients],
                BOUNDS_RULE]

    @classmethod
    def from_json(cls, doc: Sequence[Any]) -> Period:
        start, end, thresholds, rows, *rule = doc
        if rule != [BOUNDS_RULE]:
            raise ValueError("price period bounded by an older rule")
        coefficients = tuple(tuple(Decimal(c) for c in row) for row in rows)
        if len(coefficients) != len(thresholds) + 1 or any(len(row) != len(PARTS) for row in coefficients):
            raise ValueError("malformed price period")
        return cls(start, end, tuple(int(t) for t in thresholds), coefficients)  # type: ignore[arg-type]


def alone_at(stored: Sequence[Period], ts: float) -> Period | None:
    """The one period of ``stored`` covering ``ts``, if it overlaps no other of them (``None``: none such)."""
    found = [period for period in stored if period.covers(ts)]
    if len(found) != 1 or any(other is not found[0] and other.overlaps(found[0]) for other in stored):
        return None
    return found[0]


def cost(coefficients: Coefficients, sums: Sequence[int]) -> Decimal:
    """Exact USD for token sums laid out as ``PARTS``."""
    total = Decimal(0)
    for coefficient, count in zip(coefficients, sums):
        if count and coefficient:
            total = EXACT.add(total, EXACT.multiply(coefficient, count))
    return total


#: coefficients are also kept as integers in units of 10^-SCALE USD: summing a group's
#: cost in integers is ~20× faster than in Decimal, and just as exact
SCALE = 30


def scaled(coefficients: Coefficients) -> tuple[int, ...] | None:
    """The coefficients as exact integers of 10^-SCALE USD, or ``None`` if one has more decimals."""
    found = []
    for coefficient in coefficients:
        value = EXACT.scaleb(coefficient, SCALE)
        if value != value.to_integral_value():
            return None
        found.append(int(value))
    return tuple(found)


def from_scaled(total: int) -> Decimal:
    """``total`` 10^-SCALE USD as a plain Decimal (see ``plain``), built from its digits: the hot path."""
    if total <= 0:
        return EXACT.scaleb(Decimal(total), -SCALE) if total else Decimal(0)
    digits = str(total)
    significant = digits.rstrip("0")
    exponent = len(digits) - len(significant) - SCALE
    return Decimal(total // 10**SCALE) if exponent >= 0 else Decimal(f"{significant}E{exponent}")


def plain(value: Decimal) -> Decimal:
    """``value`` without trailing zeros, never in exponent form above 1 (``Decimal('0.0496225')``,
    not ``0.049622500000000000000000000000``; ``100``, not ``1E+2``): the same exact number."""
    if not value:
        return Decimal(0)
    value = value.normalize(EXACT)
    exponent = value.as_tuple().exponent
    return value.quantize(Decimal(1), context=EXACT) if isinstance(exponent, int) and exponent > 0 else value
