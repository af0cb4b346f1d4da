"""What a ``tokens`` report's rows can be sorted by (``--sort``), and the sorting.

``date`` is the report's own order (sessions newest first, periods oldest
first, the other groupings the most tokens first); ``cost`` and ``tokens`` put
the dearest or largest rows first, to answer "which sessions cost the most?"
as ccusage's users ask it.  Apart from ``scan.tokens`` so the CLI can check
``--sort`` before it knows whether the report must be made at all (a
remembered answer needs none of its machinery).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Literal, cast, get_args


# Checking ``--sort`` imports neither the model nor ``decimal``: a warm ``tokens`` prints a
# remembered answer without them (``scan.answers``).
if TYPE_CHECKING:
    from decimal import Decimal

    from agentscan.scan.tokenreport import TokenRow

SortKey = Literal["date", "cost", "tokens"]
SORT_KEYS: tuple[SortKey, ...] = get_args(SortKey)

#: how a person is told the order the rows are in (the long table's hint, ``cli.tokens_notes``)
ORDER_WORDS: dict[SortKey, str] = {"date": "newest first", "cost": "most costly first", "tokens": "most tokens first"}
#: the same, of the rows in the opposite order (``tokens --reverse``: exactly reversed, an
#: unknown cost first under ``--sort cost``, as ``sort -r`` and ``git log --reverse`` do)
REVERSED_WORDS: dict[SortKey, str] = {"date": "oldest first", "cost": "least costly first",
                                      "tokens": "fewest tokens first"}


def order_words(sort: SortKey, reverse: bool = False) -> str:
    """How a person is told the order a table's rows are in: ``sort``'s, or its opposite."""
    return (REVERSED_WORDS if reverse else ORDER_WORDS)[sort]


def parse_sort(value: str, what: str = "sort") -> SortKey:
    """``value`` as a sort key, in any case (as ``--by`` takes ``Day``), or a usage error
    naming the valid ones (with a did-you-mean for a close misspelling).  ``what``: the name
    the caller gave it by (``token_report``'s ``sort``; the CLI's ``--sort``)."""
    from agentscan.toolkit.choices import one_of

    # (``--sort price``, ``usd``, ``spend``: what cost is called elsewhere, as ccusage's ``-o`` sorts by it)
    meant = "cost" if isinstance(value, str) and value.strip().casefold() in _COST_WORDS else None
    return cast(SortKey, one_of(value, SORT_KEYS, what, parameter="sort", meant=meant))


_COST_WORDS = ("price", "prices", "usd", "spend", "dollars", "money")


def sorted_rows(rows: Iterable[TokenRow], sort: SortKey) -> tuple[TokenRow, ...]:
    """``rows`` (in the report's own order) sorted by ``sort``.  The sort is stable, so rows
    that tie keep that order: the same rows always print in the same order."""
    if sort == "cost":
        return tuple(sorted(rows, key=_cost_order))
    if sort == "tokens":
        # A row that recorded no usage (``null``) after one of 0 tokens.
        return tuple(sorted(rows, key=lambda row: -row.tokens.total if row.tokens is not None else 1))
    return tuple(rows)


def _cost_order(row: TokenRow) -> tuple[bool, Decimal | int]:
    """The most costly first; a cost only known to be at least what its priced calls cost
    (``≥$…``) by that part; an unknown one (``-``: no call had a price) last.  As
    ``render.human_usd`` shows them: a bound of nothing is unknown."""
    known = row.cost if row.cost is not None else row.cost_priced
    if known is None or (row.cost is None and known <= 0):
        return True, 0
    return False, -known
