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

``keep_usage`` keeps what ``tokens`` reads of the session too (its usage row: the
same sums and its calls' key hashes, made by ``tokens``' own code from the same
calls), so a ``tokens`` after a cold ``list --all`` parses nothing it read.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from agentscan.context import ScanContext
from agentscan.toolkit import keptjson
from agentscan.usagegroups import are_groups

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.providers.claude.windowed import WindowedTotals

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


def keep_usage(ctx: ScanContext, ref: SessionRef, fingerprint: str | None, totals: WindowedTotals) -> None:
    """Keep the session's usage row (``scan.collect`` reads it) from the row pass's ``totals``,
    when that pass said no warning (``tokens``' parse would say its own: only none is alike)
    and every counted call is at hand (``scan.rowusage`` says whether it is kept)."""
    keep = ctx.keep_row_usage
    stats = getattr(ref.hint, "stats", None)
    if keep is None or fingerprint is None or not stats:
        return
    calls = totals.counted_calls()
    if calls is None:
        return
    from agentscan.providers.claude.dedupe import packed_entries

    # ``session_usage``'s own steps (``main`` left out: it only ranks copies across sessions).
    keep(ctx, ref, fingerprint, stats, lambda: packed_entries(calls, ref.native_id, ref.hint.subagents))
