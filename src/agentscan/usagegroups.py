"""How token sums are grouped so that every group can be priced exactly.

A session's usage is kept as sums grouped by subagent, model, quarter hour,
input-size class and origin (``scan.sessionsums.sums_of``): enough to price each
group at one price (``agentscan.pricing``).  The constants live here, below
the providers, so a provider that sums as it parses (Claude's row pass over
a huge transcript) groups exactly as ``collect`` does.
"""

from __future__ import annotations

#: sums are kept per quarter hour: UTC offsets in use are multiples of 15 minutes,
#: so a day in any such zone is a whole number of buckets
BUCKET = 900
#: sums are kept apart by a call's total input (uncached + cache read + cache
#: write) around these sizes: every long-context price tier in the price data
#: starts above one of them, so a group's calls all pay the same tier.  A tier
#: at another size makes the calls of that model needed (``PriceBook.span_key``).
TIER_BOUNDS = (32_000, 100_000, 128_000, 199_999, 200_000, 256_000, 272_000, 512_000, 524_288)
#: a group: ``[subagent, model, bucket, tier class, origin, *PARTS]``, where the
#: parts are ``pricing.Spend``'s (input, cache read, cache write, output,
#: reasoning, the number of calls, the one-hour cache write, the web searches)
#: and ``origin`` is ``UsageEntry.origin``
GROUP_KEYS = 5
GROUP_WIDTH = GROUP_KEYS + 8


def are_groups(document: object) -> bool:
    """Whether ``document`` (decoded JSON, read back from the index) is a list of groups as
    ``scan.sessionsums.sums_of`` makes them: ``GROUP_WIDTH`` values each, the subagent, model
    and origin text or ``None``, the bucket an int or ``None``, the tier class and the parts
    ints, the parts never negative.  A damaged one is no list of groups.  Checked a column
    at a time, in C (``list --all`` reads 55,000 groups back for 10,000 rows)."""
    if not isinstance(document, list):
        return False
    if not all([type(group) is list and len(group) == GROUP_WIDTH for group in document]):
        return False
    if not document:
        return True
    columns = list(zip(*document))
    texts = {*map(type, columns[0]), *map(type, columns[1]), *map(type, columns[4])}
    numbers = [value for column in columns[GROUP_KEYS:] for value in column]
    return (texts <= _TEXT_TYPES and set(map(type, columns[2])) <= _BUCKET_TYPES and set(map(type, columns[3])) == _INT
            and set(map(type, numbers)) == _INT and min(numbers) >= 0)


_TEXT_TYPES = frozenset({str, type(None)})
_BUCKET_TYPES = frozenset({int, type(None)})
_INT = frozenset({int})
