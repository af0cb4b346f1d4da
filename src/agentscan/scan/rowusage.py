"""A session's usage row kept by its row's pass (``providers/claude/rowsums.keep_usage``).

``tokens`` reads a session's usage row (its sums and its calls' key hashes, ``collect``)
and parses the session only when the index has none at its fingerprint.  A row's pass
that counted every call of the session can make that row with ``tokens``' own steps, so
that a ``tokens`` after a cold ``list --all`` parses nothing the list read.  The provider
reaches this through ``ScanContext.keep_row_usage`` (set by the ``Scanner``): providers
import nothing of the scan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Mapping

if TYPE_CHECKING:
    import os

    from agentscan.context import ScanContext
    from agentscan.model import SessionRef


def keep_row_usage(ctx: ScanContext, ref: SessionRef, fingerprint: str, stats: Mapping[str, os.stat_result],
                   entries: Callable[[], Iterable[list]]) -> None:
    """Keep, in the index (or a worker's view of it, which lists the write), the usage row
    of the session whose files' stats are ``stats``, from ``entries`` (as its provider's
    ``session_usage`` gives them; made only if the row is kept).  Only for a session the
    index never held sums of (or held only as an older parser version summed them, the
    files unchanged since: after an upgrade, ``list --all`` then ``tokens`` must not read
    every session twice), and under ``RESUME_MIN_BYTES``: ``tokens``' parse of any other
    may keep a resume state (``usageparse.UsageParser.keeps_state``: a large one, one with a
    state, one written lately that changed), and taken from here it would keep none, or
    leave the old one behind, and its next growth would be parsed whole.  (The one rule
    that never keeps a state is ``keeps_state``'s ``ref.id not in stale`` with no state;
    a session new to the index is always that, whatever its file's date.)"""
    from agentscan.scan.sessionsums import SessionSums, sums_and_keys
    from agentscan.scan.upgraded import older_parsers
    from agentscan.scan.usageparse import RESUME_MIN_BYTES

    cache = ctx.file_cache
    if cache is None or sum(stat.st_size for stat in stats.values()) >= RESUME_MIN_BYTES:
        return
    held = cache.get_usage([ref.id]).get(ref.id)
    if held is not None and (held[0] == fingerprint or not older_parsers(ctx, ref, held[0])):
        return
    groups, keys, _ = sums_and_keys(entries(), False, ref.provider)
    cache.put_usage([(ref.id, ref.provider, fingerprint, SessionSums(groups, []).to_bytes(), keys)])
