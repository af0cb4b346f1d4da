"""The transcript a hook session names, read from the end of its events file.

``show <hook-only id>`` hints at the command that reads the session's transcript: it needs only
the latest ``transcript_path`` the events name (as the tree has it), which the last lines give.
Reading the whole file for it took a 200 MB events store's every line; from the end, it stops
once the lines are older than the one found by more than a hook can take to write its line, and
searches the rest for a payload timestamp that could put an earlier line after it (most stores
have none; a Gemini CLI store has one on every line, and only those later than the one found
are decoded).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from agentscan.hooks.envelopes import line_decoder
from agentscan.hooks.store import WRITTEN_START, StoredSession
from agentscan.toolkit.fsutil import open_regular
from agentscan.toolkit.reverse import lines_backward

#: how much later than its capture a hook may write its line (it reads stdin for at most 5 s):
#: a line written earlier in the file than the one found cannot be captured later than this
WRITE_DELAY_NS = 30_000_000_000
#: (a line's order as the tree's, its place from the end, the transcript it names)
Best = tuple[int, int, str]


def latest_transcript_path(session: StoredSession) -> str | None:
    """The ``transcript_path`` of the latest event (by the tree's order: its ``effective_ns``,
    then line) that names one, never a subagent's own (``tree.under_subagents``):
    ``session.transcript_path`` of its trace.

    The tree orders an event by its payload's own top-level timestamp when it has one (Gemini
    CLI's, VS Code's), on a clock that may be anywhere, else by its capture time.  A line written
    before another was captured at most ``WRITE_DELAY_NS`` after it, so once a line's capture
    time is that much before the best found's order, no line from there back can come after the
    best by its capture time; one can only by a payload timestamp later than the best's order
    (``_later_by_payload``)."""
    decode = line_decoder(session)
    best: Best | None = None
    with open_regular(session.path) as handle:
        lines = lines_backward(handle)
        for index, (offset, line) in enumerate(lines):
            stamp = _written_stamp(line)
            if best is not None and stamp is not None and stamp <= best[0] - WRITE_DELAY_NS:
                best = _later_by_payload(handle, offset + len(line), best, decode, (line, lines))
                break
            best = _considered(decode, line, index, best)
    return best[2] if best is not None else None


def _considered(decode: Any, line: bytes, index: int, best: Best | None) -> Best | None:
    """``best``, or the event of ``line`` (``index`` from the end) if it names a transcript and
    comes after it in the tree's order."""
    from agentscan.hooks.tree import effective_ns, under_subagents

    event = decode(line, 0, [])
    if event is None:
        return best
    path = event.text("transcript_path")
    if not path or under_subagents(path):
        return best
    found = (effective_ns(event), -index, path)
    return found if best is None or found[:2] > best[:2] else best


def _later_by_payload(handle: BinaryIO, end: int, best: Best, decode: Any,
                      rest: tuple[bytes, Iterator[tuple[int, bytes]]]) -> Best:
    """``best``, or a line among the first ``end`` bytes of ``handle`` (all written before the
    lines already read) that comes after it by its payload's timestamp.  Only a line holding
    ``STAMP_KEY`` can: the file is searched for it backward in place (``mmap.rfind``, from one
    hit to the next, never split into lines), and a line is decoded only when the values of
    its ``"timestamp"`` keys, read without decoding it, do not all come at or before the best
    (a nested key's value is read too: decoding tells whether it is the payload's own).  A
    line of these that ties with the best comes before it in the file, so only a later order
    takes its place, and the first such line found (the one latest in the file) is kept on a
    tie among them: their places from the end are not needed."""
    import mmap

    from agentscan.hooks.tree import effective_ns, under_subagents
    from agentscan.timeutil import parse_iso

    def after(line: bytes, best: Best) -> Best:
        values = _STAMPED.findall(line)
        if len(values) == line.count(STAMP_KEY):  # else one is no plain string: decoded
            for value in values:
                parsed = parse_iso(value.decode("utf-8", "replace"))
                if parsed is None or int(parsed.timestamp() * 1_000_000) * 1000 > best[0]:
                    break
            else:
                return best  # each comes at or before the best: the payload's own too
        event = decode(line, 0, [])
        path = event.text("transcript_path") if event is not None else None
        if not path or under_subagents(path):
            return best
        order = effective_ns(event)
        return (order, best[1], path) if order > best[0] else best  # (its place: see above)

    try:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # a file that cannot be mapped: the lines left, read backward
        line, lines = rest
        for candidate in itertools.chain((line,), (each for _, each in lines)):
            best = after(candidate, best) if STAMP_KEY in candidate else best
        return best
    with mapped:
        position = mapped.rfind(STAMP_KEY, 0, end)
        while position >= 0:
            start = mapped.rfind(b"\n", 0, position) + 1
            stop = mapped.find(b"\n", position)
            best = after(mapped[start:len(mapped) if stop < 0 else stop + 1], best)
            position = mapped.rfind(STAMP_KEY, 0, start)
    return best


#: a ``"timestamp"`` key with a plain string value (no escape), as a line writes it: its
#: value is read as ``tree.effective_ns`` reads the payload's (a number, an escape, the word as
#: a value, a time that does not read: the line is decoded)
_STAMPED = re.compile(rb'"timestamp"\s*:\s*"([^"\\]{1,64})"')


#: how a payload's own timestamp (``tree.effective_ns``) is written in a stored line
STAMP_KEY = b'"timestamp"'


def _written_stamp(line: bytes) -> int | None:
    """The capture time of a line as the hook writes it (``store.WRITTEN_START``), unread."""
    if not line.startswith(WRITTEN_START):
        return None
    start = len(WRITTEN_START)
    digits = line[start:line.find(b",", start)]
    return int(digits) if digits.isdigit() else None
