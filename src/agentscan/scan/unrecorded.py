"""The sessions a grouped ``tokens`` table counts in no row: they recorded no usage at all.

A grouping (day, model, provider) or a window has no key for a session without a call, so
the text table names them under its TOTAL (``cli.tokens_text``) rather than leave a
reader to wonder where the Cursor sessions ``list`` shows went.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from agentscan.model import SESSION, SessionRef, SessionRow
from agentscan.scan.providerusage import ProviderUsage
from agentscan.scan.unreadrows import unread_ids
from agentscan.timeutil import CLOCK_SLACK_S

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner


def unrecorded(refs: Sequence[SessionRef], usage: dict[str, ProviderUsage], low: float | None,
               high: float | None, scanner: Scanner) -> tuple[str, ...]:
    """The ids of the sessions among ``refs`` that recorded no call at all (current Cursor
    builds'): no group or window holds them.  In a window, only those active in it, by
    their rows' times as ``list --since`` has them (read for these sessions alone, at
    once): without a call, when a session was active is not known better, and a user
    asking for last week is not told of every such session ever."""
    counted: dict[str, set[str]] = {}
    found: list[SessionRef] = []
    windowed = low is not None or high is not None
    for ref in refs:
        # ``recency`` bounds a row's ``updated_at`` from above (a file's mtime, which a copy
        # or a restore makes new), give or take a clock's slack, as ``list --since`` takes
        # it: a session it puts before the window is not read.
        if low is not None and ref.recency and ref.recency + CLOCK_SLACK_S < low:
            continue
        part = usage.get(ref.provider)
        if part is None:
            continue
        if ref.native_id in part.outside:
            continue  # it recorded calls, none in the window (``scan.windowspans``)
        sums = part.sums.get(ref.native_id)
        if sums is not None:
            recorded = bool(sums.groups)
        else:  # read call by call: its calls, or those another session's copy counts
            calls = counted.get(ref.provider)
            if calls is None:
                calls = counted[ref.provider] = {entry[SESSION] for entry in part.entries}
            recorded = ref.native_id in calls or ref.native_id in part.elsewhere
        if not recorded:
            found.append(ref)
    if windowed and found:
        scanner.prefetch_rows(found)
        # Read first: a transcript that could not be read is told so as its row is read.
        unknown = set(unread_ids(scanner, found, (ref.id for ref in found)))
        found = [ref for ref in found if _active_in(scanner.row(ref), ref, low, high, ref.id in unknown)]
    # Without a window every such session is named, a file of no known time too.
    return tuple(ref.id for ref in found)


def _active_in(row: SessionRow, ref: SessionRef, low: float | None, high: float | None,
               unread: bool = False) -> bool:
    """Whether the session was active in the window: updated in it or after its start, and
    started before its end (a time the row lacks: the file's).  A session whose usage could
    not be read (``unread``) and whose start is not known may have spent in the window
    whatever its file's time: it counts, to be told as not read (``unreadable``), rather
    than vanish from the report (a Cursor transcript read without its locked state DB has
    no start, and its mtime is after the window once Cursor touches it)."""
    updated = row.updated_at.timestamp() if row.updated_at is not None else ref.recency or None
    if unread and row.started_at is None:
        return low is None or updated is None or updated >= low
    started = row.started_at.timestamp() if row.started_at is not None else updated
    if updated is None or started is None:
        return False
    return (low is None or updated >= low) and (high is None or started < high)

