"""The newest record time of a JSON Lines file, found in its bytes without decoding every line.

``tokens``' table shows each session's date: the newest of its records'
times, which a row's pass finds by decoding every line.  Here every
``"timestamp"`` key's value is found by one regular expression; canonical
UTC times (``2026-11-02T10:01:00.000Z``, what Claude Code and Codex write)
sort as text, so the greatest is decoded in its line, and taken only when it
is that record's own time.  What this cannot settle as the decoder would
raises ``Unsure`` (the caller reads the file the full way): a time in
another form (an offset, a number), a greatest time that is only ever
nested or in a line the pass skips, and a key or a type spelled with a JSON
escape (``"time\\u0073tamp"``), which the decoder reads as the plain word
and a scan of bytes does not see (no agent writes one).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Callable

from agentscan.timeutil import parse_iso

#: a ``"timestamp"`` key, its value captured only when it is a canonical UTC time (an empty
#: capture is a time that does not sort as text); a pattern's text, for callers that look
#: for more in the same scan
STAMP = rb'"timestamp"\s*:\s*(?:"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")?'
STAMPS = re.compile(STAMP)
# An escaped key (``"time\u0073tamp"``) or type (``"custom\u002dtitle"``); looked for only
# in bytes that hold an escape at all.
_ESCAPE = re.compile(rb'\\u[0-9a-fA-F]{4}')
_ESCAPED_WORD = re.compile(rb'\\u[0-9a-fA-F]{4}[^"]*"\s*:|"type"\s*:\s*"[^"]*\\u')


class Unsure(Exception):
    """The bytes do not settle it: decode the file the full way."""


# A ``"model"`` key's string and what ends it: its quote; an escape (the name may be spelled
# otherwise); or the line's end (a broken line, which no pass decodes: the search goes on at
# the next line, whose keys it must not step over).  JSON's blanks within a line only.
_MODEL = re.compile(rb'"model"[ \t\r]*:[ \t\r]*"([^"\\\n]*)(["\\\n])')


def add_model_names(data: bytes, names: set[str]) -> bool:
    """Add to ``names`` every ``"model"`` key's string ``data`` holds, nested or not (the
    table facts' ``models``: a row's model is one of them); ``False`` when one is spelled
    with an escape, whose bytes are not its name (a key spelled so: ``refuse_escaped_words``)."""
    for match in _MODEL.finditer(data):
        end = match.group(2)
        if end == b"\\":
            return False
        if end == b'"':
            names.add(match.group(1).decode("utf-8", "replace"))
    return True


def refuse_escaped_words(data: bytes) -> None:
    """``Unsure`` when a key, or a ``"type"``'s value, is spelled with a JSON escape."""
    if _ESCAPE.search(data) and _ESCAPED_WORD.search(data):
        raise Unsure


def newest_time(data: bytes, stamps: list[bytes], record_at: Callable[[bytes, int], dict | None]) -> datetime | None:
    """The newest of the records' own times: ``stamps`` are every ``STAMP`` capture in ``data``;
    ``record_at(data, at)`` is the record of the line holding byte ``at`` as the full read
    decodes it, or ``None`` for a line it skips.  ``None``: no record has a time."""
    if not stamps:
        return None
    if b"" in stamps:
        raise Unsure
    return verified(data, max(stamps), record_at)


def verified(data: bytes, top: bytes, record_at: Callable[[bytes, int], dict | None]) -> datetime:
    """``top``'s time, when it is the time of a record the full read decodes (not only a nested one)."""
    text = top.decode("ascii")
    when = parse_iso(text)
    if when is None:
        raise Unsure
    # From the end: the newest time is most often in the last lines.
    at = data.rfind(top)
    while at >= 0:
        record = record_at(data, at)
        if record is not None and record.get("timestamp") == text:
            return when
        at = data.rfind(top, 0, at)
    raise Unsure


def line_around(data: bytes, at: int) -> tuple[int, int]:
    """Where the line holding byte ``at`` starts and ends (its newline, or the end of ``data``)."""
    end = data.find(b"\n", at)
    return data.rfind(b"\n", 0, at) + 1, len(data) if end < 0 else end
