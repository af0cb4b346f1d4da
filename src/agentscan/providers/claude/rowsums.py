"""A session's token sums as its row's pass found them, kept for the row's cost.

``list`` prices each row it shows from the session's sums (``scan.costs``).
The row's own pass (``row.summarize``) adds the same calls up in
``WindowedTotals``, grouped as ``scan.sessionsums.sums_of`` groups them; a
cold ``list`` then read every shown session a second time, for the index's
sums.  When no call ever left the pass's window (every session but one of
tens of thousands of calls), its groups are exactly those sums
(``tests/test_claude_counting.py``): they are kept here, in the index under
the session's fingerprint (as its row is) and for the rest of the scan, and
the cost is priced from them.  A huge transcript's sums are kept with its
``show`` facts instead (``showfacts``).
"""

from __future__ import annotations

from pathlib import Path

import orjson

from agentscan.context import ScanContext
from agentscan.sealing import seal, unseal
from agentscan.usagegroups import is_group

KIND = "claude-row-sums"
VERSION = "1"
_MEMO = "claude.rowsums"


def keep(ctx: ScanContext, main: Path, fingerprint: str | None, groups: list[list]) -> None:
    """Keep the exact ``groups`` of the session whose main transcript is ``main``."""
    if fingerprint is None:
        return
    ctx.memo.setdefault(_MEMO, {})[fingerprint] = groups
    cache = ctx.file_cache
    if cache is not None:
        cache.put_file(str(main), KIND, 0, 0, VERSION, fingerprint, 0, seal(orjson.dumps(groups)))


def kept(ctx: ScanContext, main: Path, fingerprint: str | None) -> list[list] | None:
    """The groups kept for this fingerprint of the session, if any."""
    if fingerprint is None:
        return None
    memo = ctx.memo.setdefault(_MEMO, {})
    if fingerprint in memo:
        return memo[fingerprint]
    cache = ctx.file_cache
    stored = cache.get_file(str(main), KIND) if cache is not None else None
    if stored is None or stored[2] != VERSION or stored[3] != fingerprint:
        return None
    payload = unseal(stored[5])
    try:
        groups = orjson.loads(payload) if payload is not None else None
    except orjson.JSONDecodeError:
        return None
    if not (isinstance(groups, list) and all(is_group(group) for group in groups)):
        return None  # damaged: the sums are read from the session again
    memo[fingerprint] = groups
    return groups
