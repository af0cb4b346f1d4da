"""The transcript a hook session names, read from the end of its events file.

``show <hook-only id>`` hints at the command that reads the session's transcript: it needs only
the latest ``transcript_path`` the events name (as the tree has it), which the last lines give.
Reading the whole file for it took a 200 MB events store's every line; from the end, it stops
once the lines are older than the one found by more than a hook can take to write its line, and
searches the rest for a payload timestamp that could put an earlier line after it (most stores
have none; a Gemini CLI store has one on every line: those earlier to the second than the one
found are passed over in C, and only the others are read in Python).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from agentscan.hooks.envelopes import line_decoder
from agentscan.hooks.store import WRITTEN_START, StoredSession
from agentscan.toolkit.fsutil import open_regular
from agentscan.toolkit.markedlines import MarkedLines
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
                best = _later_by_payload(handle, offset + len(line), best, decode)
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


def _later_by_payload(handle: BinaryIO, end: int, best: Best, decode: Any) -> Best:
    """``best``, or a line among the first ``end`` bytes of ``handle`` (all written before the
    lines already read) that comes after it by its payload's timestamp.  Only a line holding
    ``STAMP_KEY`` can (one whose key is escaped is not looked for: ``ESCAPED_LETTERS``): the file
    is searched for it a block at a time (``_suspect_lines``, never split into lines), its hits
    whose values are plainly earlier passed over in C, and a line left is decoded only when the
    values of its payload's own ``"timestamp"`` keys, read without decoding it
    (``_payload_stamps``: a nested key is passed over), do not all come at or before the best,
    or one is no plain string, or the line is not as the hook writes it.  The lines
    left are taken from the last back.  A line of these that ties with the best comes before it
    in the file, so only a later order takes its place, and the first such line found (the one
    latest in the file) is kept on a tie among them: their places from the end are not needed."""
    from agentscan.hooks.tree import effective_ns, under_subagents
    from agentscan.timeutil import parse_iso

    def after(line: bytes, best: Best) -> Best:
        values = _payload_stamps(line, suspects)
        # (else one is no plain string, or a key is written with an escape: decoded)
        if values is not None:
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

    suspects = _suspects(best[0])  # (a value it passes over is earlier than any best to come)
    for line in _suspect_lines(handle, end, suspects):
        best = after(line, best)
    return best


#: how much of the file ``_suspect_lines`` searches at a time: it holds one block and its hits,
#: never the whole file's lines (a 389 MB store with a payload time on every line: 21 MB peak,
#: where listing every line's place and mapping the file whole took 496 MB)
PIECE = 1 << 20


def _suspect_lines(handle: BinaryIO, end: int, suspects: re.Pattern[bytes]) -> Iterator[bytes]:
    """The lines among the first ``end`` bytes of ``handle`` holding a ``STAMP_KEY`` that may
    put them after ``order``, the last first.  A Gemini CLI store stamps every line: one
    regular-expression search in C (``_suspects``) passes over each hit whose value is a UTC
    time to the second earlier than ``order``'s second (it parses to an earlier time, or it does
    not parse and the line's order is its capture time, at or before ``order``: see
    ``latest_transcript_path``), so that Python walks only the hits left, usually none.  The file
    is searched a ``PIECE`` at a time from ``end`` back (``toolkit.markedlines``), and only a
    piece holding the key is searched so (a store no payload stamps costs a ``bytes.find``).
    A hit at a block's seam is searched with the next block's first ``_SEAM`` bytes joined on, its
    value and all (one whose value runs past them is taken as a suspect: its line is decoded, as
    one the expression could not pass over is)."""
    def find(searched: bytes, stop: int) -> list[tuple[int, bytes]]:
        if searched.find(STAMP_KEY) < 0:
            return []
        return [(hit.start(), STAMP_KEY) for hit in suspects.finditer(searched) if hit.start() < stop]

    for start, _ in MarkedLines(handle, end, find, seam=_SEAM, block=PIECE):
        handle.seek(start)
        yield handle.readline()


def _suspects(order: int) -> re.Pattern[bytes]:
    """A ``STAMP_KEY`` hit, unless its value is a plain UTC time (``2025-10-02T12:34:56.789Z``),
    its fields in range, earlier to the second than ``order`` (ns).  For times written so,
    "earlier" is "less" character by character: spelt out as one alternative for each digit of
    ``order``'s second that a value's digit may be below, after the same ones before it.  Only
    the whitespace a line holds: no hit reads into the next line."""
    from datetime import datetime, timezone

    try:
        at = datetime.fromtimestamp(order // 1_000_000_000, timezone.utc)
    except (OverflowError, OSError, ValueError):
        at = None
    floor = "" if at is None or at.year < 1000 else \
        f"{at.year:04d}-{at.month:02d}-{at.day:02d}T{at.hour:02d}:{at.minute:02d}:{at.second:02d}"
    below = [re.escape(floor[:index]) + f"[0-{int(digit) - 1}]" + re.sub(r"\d", r"\\d", floor[index + 1:])
             for index, digit in enumerate(floor) if digit.isdigit() and digit != "0"]
    if not below:
        return re.compile(re.escape(STAMP_KEY))
    settled = _IN_RANGE + b"(?:" + "|".join(below).encode() + b")"
    return re.compile(re.escape(STAMP_KEY) + b"(?!" + settled + b")")


#: a ``STAMP_KEY``'s value that is a plain UTC time whose fields are in range (looked at, not taken)
_IN_RANGE = (rb'[ \t\r]*:[ \t\r]*"(?=\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])'
             rb'T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?Z")')


#: a ``"timestamp"`` key with a plain string value (no escape), as a line writes it: its
#: value is read as ``tree.effective_ns`` reads the payload's (a number, an escape, the word as
#: a value, a time that does not read: the line is decoded)
_STAMPED = re.compile(rb'"timestamp"\s*:\s*"([^"\\]{1,64})"')


def _payload_stamps(line: bytes, suspects: re.Pattern[bytes]) -> list[bytes] | None:
    """The values of the payload's own ``"timestamp"`` keys in ``line`` (``tree.effective_ns``
    reads no other) that ``suspects`` (``_suspects``) does not pass over, read without decoding
    it, or ``None`` when they cannot be so read: the line is not as ``agentscan hook`` writes it
    (``WRITTEN_START`` once, no escaped letter: ``ESCAPED_LETTERS``), or such a value is no plain
    string (a number, an escape).  The hook writes the payload as the envelope's one object, so
    its own keys are those two levels down; a deeper one (a tool's response holding
    ``"timestamp": 1700000000`` on every line) made every line decoded, when it cannot move the
    line in the tree's order."""
    if not line.startswith(WRITTEN_START) or line.find(WRITTEN_START, 1) > 0 \
            or any(needle in line for needle in ESCAPED_LETTERS):
        return None
    values = []
    depth = counted = 0  # (how many are open at ``counted``: each byte is counted once, not each hit's whole head)
    at = line.find(STAMP_KEY)
    while at >= 0:
        # A hit whose first quote is escaped (``"a\\"timestamp": 1``) ends a string that began before it: no key
        # of its own (in JSON a backslash stands only in a string), and not counted up to (``counted`` stays at
        # a token's start, outside a string, so each stretch counted starts and ends between two tokens).
        if line[at - 1:at] != b"\\" and suspects.match(line, at) and _KEY_END.match(line, at + len(STAMP_KEY)):
            depth += _depth(line[counted:at])
            counted = at
            if depth == 2:
                found = _STAMPED.match(line, at)
                if found is None:
                    return None
                values.append(found.group(1))
        at = line.find(STAMP_KEY, at + 1)
    return values


def _depth(stretch: bytes) -> int:
    """How many more objects and lists are open at the end of ``stretch`` than at its start,
    both between two tokens: its strings taken out (in C, with what they hold), the brackets
    left counted."""
    bare = _STRING.sub(b"", stretch)
    return bare.count(b"{") + bare.count(b"[") - bare.count(b"}") - bare.count(b"]")


#: a JSON string, escapes and all
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
#: after a ``STAMP_KEY`` that is a key, not a string value: its colon
_KEY_END = re.compile(rb"\s*:")


#: how a payload's own timestamp (``tree.effective_ns``) is written in a stored line
STAMP_KEY = b'"timestamp"'
#: the bytes after a block a ``STAMP_KEY`` hit at its end is searched with: the key, and a plain
#: time's value after it (``_IN_RANGE``: 30 bytes of a time to the nanosecond, a few of spaces)
_SEAM = len(STAMP_KEY) + 64
#: how a line may write a letter of ``STAMP_KEY`` escaped (``"time\\u0073tamp"``): a line
#: found for another, plain key that holds one is decoded, as the byte search cannot tell its
#: key.  A line whose only such key is escaped is not looked for: ``agentscan hook`` writes each
#: line with ``json.dumps``, which escapes no letter (nor does any agent's JSON writer), and a
#: search of the whole file for an escape cost as much as the search for the key (a store a
#: hand edited would need it)
ESCAPED_LETTERS = (b"\\u006", b"\\u007")


def _written_stamp(line: bytes) -> int | None:
    """The capture time of a line as the hook writes it (``store.WRITTEN_START``), unread;
    ``None`` for a line that starts so again further on: a line cut short with the next event
    glued after it (``envelopes.line_decoder``), whose first stamp is the cut writer's, older
    than the glued event's, which bounds nothing (or a payload holding such an object)."""
    if not line.startswith(WRITTEN_START) or line.find(WRITTEN_START, 1) > 0:
        return None
    start = len(WRITTEN_START)
    digits = line[start:line.find(b",", start)]
    return int(digits) if digits.isdigit() else None
