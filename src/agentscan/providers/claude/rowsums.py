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
``show`` facts instead (``tailfacts``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from agentscan.context import ScanContext
from agentscan.toolkit import keptjson
from agentscan.usagegroups import are_groups

KIND = "claude-row-sums"
VERSION = "1"


def keep(ctx: ScanContext, main: Path, fingerprint: str | None, groups: list[list]) -> None:
    """Keep the exact ``groups`` of the session whose main transcript is ``main``."""
    if fingerprint is not None:
        keptjson.keep(ctx, main, KIND, VERSION, fingerprint, groups, groups)


def kept(ctx: ScanContext, main: Path | str, fingerprint: str | None) -> list[list] | None:
    """The groups kept for this fingerprint of the session, if any."""
    return keptjson.kept(ctx, main, KIND, VERSION, fingerprint, _groups)


def prefetch(ctx: ScanContext, mains: Iterable[str]) -> None:
    """``kept`` of many sessions (their main transcripts' paths), read at once."""
    keptjson.prefetch(ctx, mains, KIND, VERSION, _groups)


def _groups(document: object) -> list[list] | None:
    if are_groups(document):
        return document  # type: ignore[return-value]
    return None  # damaged: the sums are read from the session again
