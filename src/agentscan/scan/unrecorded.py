"""The sessions a grouped ``tokens`` table counts in no row: they recorded no usage at all.

A grouping (day, model, provider) or a window has no key for a session without a call, so
the text table names them under its TOTAL (``cli.tokens_text``) rather than leave a
reader to wonder where the Cursor sessions ``list`` shows went.
"""

from __future__ import annotations

from typing import Sequence

from agentscan.model import SESSION, SessionRef
from agentscan.scan.collect import ProviderUsage


def unrecorded(refs: Sequence[SessionRef], usage: dict[str, ProviderUsage], low: float | None,
                high: float | None) -> tuple[str, ...]:
    """The ids of the sessions among ``refs`` that recorded no call at all (current Cursor
    builds'): no group or window holds them.  In a window, only those whose files last
    changed in it (``recency``): without a call, when a session was active is not known
    better, and a user asking for last week is not told of every such session ever."""
    counted: dict[str, set[str]] = {}
    found = []
    windowed = low is not None or high is not None
    for ref in refs:
        # Without a window every such session is named, a file of no known time too.
        if windowed and not (ref.recency and (low is None or ref.recency >= low) and (high is None or ref.recency < high)):
            continue
        part = usage.get(ref.provider)
        if part is None:
            continue
        sums = part.sums.get(ref.native_id)
        if sums is not None:
            recorded = bool(sums.groups)
        else:  # read call by call: its calls, or those another session's copy counts
            calls = counted.get(ref.provider)
            if calls is None:
                calls = counted[ref.provider] = {entry[SESSION] for entry in part.entries}
            recorded = ref.native_id in calls or ref.native_id in part.elsewhere
        if not recorded:
            found.append(ref.id)
    return tuple(found)
