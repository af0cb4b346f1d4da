"""A payload larger than the hook reads, cut inside its file content as it arrives.

Cursor's ``beforeReadFile`` sends the whole file the agent is about to read as
``content``, which agentscan never keeps (``payloads.redact`` stores its length
only).  A file of more than ``capture.MAX_PAYLOAD`` made the payload too large,
and the event was dropped: the read then missed from its call.  So when a
payload passes the limit inside a ``"content"`` string (or just after one, in
the fields that follow it), the reader goes on without keeping that string's
bytes, up to its closing quote, and keeps what follows it (the payload's other
fields, at most ``AFTER_LIMIT``).  Whether the
event may be stored so is ``capture``'s call: only one whose content is
redacted anyway.

Stdlib only (``re``): it runs on the hook's path.
"""

from __future__ import annotations

import re

#: a ``"content"`` key and the quote that opens its string
_CONTENT_KEY = re.compile(rb'"content"\s*:\s*"')
#: the body of a JSON string up to its closing quote (possessive: megabytes without backtracking)
_BODY = re.compile(rb'(?:[^"\\]++|\\.)*+', re.S)
_BACKSLASH = 0x5C
#: what may follow the cut string (the payload's other fields); more and the payload is dropped
AFTER_LIMIT = 1024 * 1024
#: a start of that key that may still become it, at the end of what was read: ``"``, ``"cont``,
#: ``"content": `` (the spaces bounded: JSON writers put one at most)
_KEY_START = re.compile(rb'"(?:c(?:o(?:n(?:t(?:e(?:n(?:t(?:"[ \t\r\n]{0,8}(?::[ \t\r\n]{0,8})?)?)?)?)?)?)?)?)?\Z')
#: how many more reads a key cut short waits for (each of 1 byte, from a pipe that gives them so)
KEY_WAITS = 16
#: the event a payload's start names (the agents send it before their large fields)
_EVENT = re.compile(rb'"hook_event_name"\s*:\s*"([A-Za-z]{1,64})"')
_HEAD = 64 * 1024


def key_cut_short(data: bytes) -> bool:
    """Whether ``data`` ends inside what may be a ``"content"`` key (``…"conte``): the read that
    passed the limit ended there, and ``begin`` could tell neither the string to cut nor that
    there is none.  The reader reads on (``KEY_WAITS`` times at most) and asks ``begin`` again:
    dropped there, a file of just the size that put its key across the limit lost its event."""
    return _KEY_START.search(data, max(0, len(data) - 32)) is not None


def begin(data: bytes, events: tuple[str, ...], limit_at: int | None = None) -> ContentCut | None:
    """The cut of ``data``, a payload's first bytes past the limit (crossed at ``limit_at``),
    unless its start names an event not in ``events`` (then nothing would be stored: no use
    reading on) or it has no ``"content"`` string to cut (``ContentCut.open_in``)."""
    named = _EVENT.search(data, 0, _HEAD)
    if named is not None and named.group(1).decode() not in events:
        return None
    return ContentCut.open_in(data, limit_at)


class ContentCut:
    """The state of a payload being read past its limit, its ``"content"`` string left out."""

    def __init__(self, data: bytes, start: int, escaped: bool, end: int | None = None) -> None:
        self.kept = data[:start]  # up to and with the string's opening quote
        #: the string's bytes left out, as sent (JSON-escaped)
        self.skipped = (len(data) if end is None else end) - start
        self.escaped = escaped  # the last byte left out was a backslash that escapes the next one
        #: from the closing quote on, once it came (``end``: it is in ``data`` already)
        self.after: list[bytes] | None = None if end is None else [data[end:]]
        self.after_size = 0 if end is None else len(data) - end

    @classmethod
    def open_in(cls, data: bytes, limit_at: int | None = None) -> ContentCut | None:
        """The cut of the ``"content"`` string ``data`` (a payload's first bytes, past its limit
        at ``limit_at``, by default its end) ends inside; else of the last one that opened
        before the limit and closed in ``data``: a read gives up to 1 MiB at a time (64 KiB
        from a pipe), so the one that passes the limit can hold the string's end and the
        fields after it, which are kept.  ``None`` when there is no such string, or more
        than ``AFTER_LIMIT`` follows it in ``data``: the payload is large elsewhere."""
        limit_at = len(data) if limit_at is None else limit_at
        found = list(_CONTENT_KEY.finditer(data))
        if not found:
            return None
        start = found[-1].end()
        end = _BODY.match(data, start).end()  # type: ignore[union-attr]  # (it matches the empty string)
        if end == len(data):
            return cls(data, start, escaped=False)
        if end == len(data) - 1 and data[end] == _BACKSLASH:  # cut between a backslash and what it escapes
            return cls(data, start, escaped=True)
        before = [match for match in found if match.start() < limit_at]
        if not before:
            return None  # every one opened past the limit, and closed: the payload is large before them
        start = before[-1].end()  # it closed (in ``data``: a later key follows it, or the one above did)
        cut = cls(data, start, escaped=False, end=_BODY.match(data, start).end())  # type: ignore[union-attr]
        return cut if cut.after_size <= AFTER_LIMIT else None

    def feed(self, chunk: bytes) -> bool:
        """One more chunk read; ``False`` when what follows the string passes ``AFTER_LIMIT``."""
        if self.after is None:
            begin = 1 if self.escaped else 0
            end = _BODY.match(chunk, begin).end()  # type: ignore[union-attr]
            if end >= len(chunk) - 1 and (end == len(chunk) or chunk[end] == _BACKSLASH):
                self.escaped = end == len(chunk) - 1
                self.skipped += len(chunk)
                return True
            self.skipped += end
            chunk = chunk[end:]  # its closing quote on
            self.after = []
        self.after.append(chunk)
        self.after_size += len(chunk)
        return self.after_size <= AFTER_LIMIT

    def payload(self) -> bytes | None:
        """The payload with that string empty; ``None`` when the string never ended."""
        return None if self.after is None else self.kept + b"".join(self.after)
