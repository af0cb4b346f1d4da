"""A session's stored events in capture order, without holding every payload at once.

The tree replays events sorted by capture time (``tree.effective_ns``), so it needs them all
before the first.  A Claude ``PostToolUse`` keeps the tool's whole response (a ``Read`` of a
2 MB file stores 2 MB) that the tree never keeps, so holding the decoded events of a 200 MB
store took some 240 MB.  Here a first pass decodes each line once, for its warnings and its
place in that order, and keeps only the small events; a large one is read again from its
offset when its turn comes, and let go once the tree has taken what it keeps of it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from agentscan.hooks.store import StoredSession, line_decoder

#: a line longer than this is read again when its turn comes rather than kept from the first pass
KEPT_LINE_BYTES = 16 * 1024


def in_capture_order(session: StoredSession, order: Callable[[Any], int]) -> tuple[Iterator[Any], list[Any]]:
    """``session``'s ``HookEvent``s sorted as the tree replays them (by ``order``, the tree's
    ``effective_ns``, then line), one at a time, and the warnings ``store.read_events`` gives
    (all of them known before the first event)."""
    from agentscan.model import ScanWarning
    from agentscan.toolkit.fsutil import open_regular

    warnings: list[ScanWarning] = []
    try:
        handle = open_regular(session.path)
    except OSError as exc:
        return iter(()), [ScanWarning(session.path, f"cannot read: {exc.strerror or exc}")]
    decode = line_decoder(session)
    #: (order, line number, the event or None when it is to be read again, offset, length)
    places: list[tuple[int, int, Any, int, int]] = []
    offset = 0
    with handle:
        for number, line in enumerate(handle, 1):
            event = decode(line, number, warnings)
            if event is not None:
                kept = event if len(line) <= KEPT_LINE_BYTES else None
                places.append((order(event), number, kept, offset, len(line)))
            offset += len(line)
    places.sort(key=lambda place: place[:2])
    return _replay(session, places), warnings


def _replay(session: StoredSession, places: list[tuple[int, int, Any, int, int]]) -> Iterator[Any]:
    """The events of ``places`` in their order, a large one read again from its offset (the
    file is only appended to, so it is still there); one that no longer reads is left out."""
    from agentscan.toolkit.fsutil import open_regular

    decode = line_decoder(session)
    handle: Any = None
    try:
        for index, (_, number, event, offset, length) in enumerate(places):
            places[index] = _SPENT  # the list no longer holds it once handed over
            if event is None:
                try:
                    handle = handle or open_regular(session.path)
                    handle.seek(offset)
                    line = handle.read(length)
                except OSError:
                    continue
                event = decode(line, number, [])
                if event is None:
                    continue
            yield event
    finally:
        if handle is not None:
            handle.close()


_SPENT = (0, 0, None, 0, 0)
