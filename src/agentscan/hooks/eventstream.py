"""A session's stored events in capture order, without holding every payload at once.

The tree replays events sorted by capture time (``tree.effective_ns``), so it needs them all
before the first.  A Claude ``PostToolUse`` keeps the tool's whole response (a ``Read`` of a
2 MB file stores 2 MB) that the tree never keeps, so holding the decoded events of a 200 MB
store took some 240 MB.  Here a first pass decodes each line once, for its warnings and its
place in that order, and keeps only the small events, up to ``KEPT_BYTES`` of lines in all (a
decoded event takes some five times its line: 150,000 small events of 200 MB took 757 MB); a
large one, or any past that budget, is read again from its offset when its turn comes, from
the same open file (one deleted, replaced or rotated meanwhile is still the one first read),
and let go once the tree has taken what it keeps of it.
"""

from __future__ import annotations

from typing import Any, BinaryIO, Callable, Iterator

from agentscan.hooks.envelopes import line_decoder
from agentscan.hooks.store import StoredSession

#: a line longer than this is read again when its turn comes rather than kept from the first pass
KEPT_LINE_BYTES = 16 * 1024
#: the bytes of lines whose events the first pass keeps, in all: the rest are read again
KEPT_BYTES = 16 * 1024 * 1024


def in_capture_order(session: StoredSession, order: Callable[[Any], int],
                     warnings: list[Any] | None = None) -> tuple[Iterator[Any], list[Any]]:
    """``session``'s ``HookEvent``s sorted as the tree replays them (by ``order``, the tree's
    ``effective_ns``, then line), one at a time, and the warnings ``store.read_events`` gives
    (known before the first event; one for a line that no longer reads when its turn comes is
    appended to the same list as the events are taken): ``warnings``, when given."""
    from agentscan.model import ScanWarning
    from agentscan.toolkit.fsutil import open_regular

    warnings = [] if warnings is None else warnings
    try:
        handle = open_regular(session.path)
    except OSError as exc:
        warnings.append(ScanWarning(session.path, f"cannot read: {exc.strerror or exc}"))
        return iter(()), warnings
    decode = line_decoder(session)
    #: (order, line number, the event or None when it is to be read again, offset, length)
    places: list[tuple[int, int, Any, int, int]] = []
    offset = kept = 0
    try:
        for number, line in enumerate(handle, 1):
            event = decode(line, number, warnings)
            if event is not None:
                keep = len(line) <= KEPT_LINE_BYTES and kept + len(line) <= KEPT_BYTES
                kept += len(line) if keep else 0
                places.append((order(event), number, event if keep else None, offset, len(line)))
            offset += len(line)
    except BaseException:
        handle.close()
        raise
    places.sort(key=lambda place: place[:2])
    if all(place[2] is not None for place in places):
        handle.close()  # nothing to read again
        return _replay(session, places, None, warnings), warnings
    return _replay(session, places, handle, warnings), warnings


def _replay(session: StoredSession, places: list[tuple[int, int, Any, int, int]], handle: BinaryIO | None,
            warnings: list[Any]) -> Iterator[Any]:
    """The events of ``places`` in their order, one to read again read from its offset in
    ``handle``, the file the first pass read (closed at the end); one that no longer reads
    (the file cut short or rewritten in place meanwhile) is left out, with a warning."""
    from agentscan.model import ScanWarning

    decode = line_decoder(session)
    try:
        for index, (_, number, event, offset, length) in enumerate(places):
            places[index] = _SPENT  # the list no longer holds it once handed over
            if event is None and handle is not None:
                try:
                    handle.seek(offset)
                    line = handle.read(length)
                except OSError as exc:
                    line, problem = b"", f"cannot read: {exc.strerror or exc}"
                else:
                    problem = "the file changed while it was read"
                event = decode(line, number, []) if len(line) == length else None
                if event is None:
                    warnings.append(ScanWarning(session.path, f"{problem}: the event of this line, read "
                                                "a moment before, no longer reads and was left out", number))
                    continue
            yield event
    finally:
        if handle is not None:
            handle.close()


_SPENT = (0, 0, None, 0, 0)
