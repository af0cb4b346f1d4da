"""A window's sessions picked before their refs are made (``tokens --since 2028-06-28``).

A windowed report of every session needs the sums of the few whose calls meet the
window (``scan.windowspans``); the others it leaves out (``ProviderUsage.outside``).
Picked from the refs, a heavy user's every session was made a ``SessionRef`` (15,000 of
them, to read 113), and each step after (grouping them by provider, ``unrecorded``,
``tokenrowmarks``) walked them all.  Here the pick is made from the index's stored rows:
each provider's ids and fingerprints (``MergedRefs.whole_parts``), its stamp and its
spans, and only the picked sessions are made refs, in the order of them all.

A provider's pick is taken here only when it stands as it is: its census held still
since the answer of which sessions share calls was kept (``Chosen.shared``).  Otherwise
(an agent at work grew a session) every session of that provider is handed on, and
``collect`` picks, settles and keeps the answer as before (``windowsettle``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Sequence

from agentscan.scan import windowspans
from agentscan.scan.memorefs import MemoRefs
from agentscan.scan.mergedrefs import MergedRefs
from agentscan.scan.sharedmemo import sessions_stamp

if TYPE_CHECKING:
    from datetime import datetime

    from agentscan.model import SessionRef
    from agentscan.scan.scanner import Scanner


class Taken(NamedTuple):
    """A provider's pick (``collect.Collector`` takes it as its own pick's): the stamp of
    every session of it, the native ids of those the window leaves out, and the ids of those
    that share calls."""

    stamp: str
    outside: set[str]
    shared: set[str]


class WindowRefs(NamedTuple):
    """``window_refs``' answer.  ``refs``: the picked sessions (and every session of a provider
    not picked here), in the order of them all; ``providers``: every provider with sessions,
    in the order their first sessions come (``collect`` meets them so)."""

    refs: list[SessionRef]
    taken: dict[str, Taken]
    providers: list[str]


def window_refs(scanner: Scanner, refs: Sequence[SessionRef], since: datetime | None,
                until: datetime | None) -> WindowRefs | None:
    """The sessions of ``refs`` (``Scanner.refs``: every session of the providers) whose sums
    the window needs; ``None`` when no provider's pick is taken here (``refs`` are read as before)."""
    cache = scanner.cache
    if cache is None or (since is None and until is None) or not isinstance(refs, MergedRefs):
        return None
    low = since.timestamp() if since is not None else None
    high = until.timestamp() if until is not None else None
    parts = refs.whole_parts()
    if parts is None:
        return None
    taken: dict[str, Taken] = {}
    positions: set[int] = set()
    names: list[str] = []
    start = 0
    for part in parts:
        prints: dict[str, str | None]
        if isinstance(part, MemoRefs):
            name, native_ids = part.provider, part.native_ids
            prefix = name + ":"
            ids = [prefix + native_id for native_id in native_ids]
            prints = dict(zip(ids, part.fingerprints))
        else:  # discovered this run: refs already
            name = part[0].provider if part else ""
            native_ids = [ref.native_id for ref in part]
            ids = [ref.id for ref in part]
            prints = {ref.id: scanner.fingerprint(ref) for ref in part}
        if len(prints) < len(ids):
            return None  # an id twice (one session, as ``token_report`` keeps it): read as before
        names.append(name)
        stamp = sessions_stamp(prints.items())
        chosen = windowspans.choose(cache, name, stamp, ids, prints, low, high) if stamp is not None and ids else None
        if stamp is None or chosen is None or chosen.shared is None:
            positions.update(range(start, start + len(ids)))  # ``collect`` picks them, as before
        else:
            wanted = chosen.wanted
            positions.update(start + index for index, ref_id in enumerate(ids) if ref_id in wanted)
            taken[name] = Taken(stamp, {native_id for native_id, ref_id in zip(native_ids, ids) if ref_id not in wanted},
                                chosen.shared)
        start += len(ids)
    if not taken:
        return None
    picked, first = refs.at_positions(positions)
    return WindowRefs(picked, taken, [names[number] for number in first])
