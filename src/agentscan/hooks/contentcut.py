"""A payload larger than the hook reads, cut inside its file content as it arrives.

Cursor's ``beforeReadFile`` sends the whole file the agent is about to read as
``content``, which agentscan never keeps (``capture.redact`` stores its length
only).  A file of more than ``capture.MAX_PAYLOAD`` made the payload too large,
and the event was dropped: the read then missed from its call.  So when a
payload passes the limit inside a ``"content"`` string, the reader goes on
without keeping that string's bytes, up to its closing quote, and keeps what
follows it (the payload's other fields, at most ``AFTER_LIMIT``).  Whether the
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
#: the event a payload's start names (the agents send it before their large fields)
_EVENT = re.compile(rb'"hook_event_name"\s*:\s*"([A-Za-z]{1,64})"')
_HEAD = 64 * 1024


def begin(data: bytes, events: tuple[str, ...]) -> ContentCut | None:
    """The cut of ``data``, a payload's first bytes past the limit, unless its start names an
    event not in ``events`` (then nothing would be stored: no use reading on) or it did not
    pass the limit inside a ``"content"`` string."""
    named = _EVENT.search(data, 0, _HEAD)
    if named is not None and named.group(1).decode() not in events:
        return None
    return ContentCut.open_in(data)


class ContentCut:
    """The state of a payload being read past its limit inside its ``"content"`` string."""

    def __init__(self, data: bytes, start: int, escaped: bool) -> None:
        self.kept = data[:start]  # up to and with the string's opening quote
        self.skipped = len(data) - start  # the string's bytes left out, as sent (JSON-escaped)
        self.escaped = escaped  # the last byte left out was a backslash that escapes the next one
        self.after: list[bytes] | None = None  # from the closing quote on, once it came
        self.after_size = 0

    @classmethod
    def open_in(cls, data: bytes) -> ContentCut | None:
        """The cut of the ``"content"`` string that ``data`` (a payload's first bytes) ends
        inside, or ``None`` when it ends elsewhere."""
        found = None
        for match in _CONTENT_KEY.finditer(data):
            found = match  # the last: the limit passed inside a string after any other
        if found is None:
            return None
        start = found.end()
        end = _BODY.match(data, start).end()  # type: ignore[union-attr]  # (it matches the empty string)
        if end == len(data):
            return cls(data, start, escaped=False)
        if end == len(data) - 1 and data[end] == _BACKSLASH:  # cut between a backslash and what it escapes
            return cls(data, start, escaped=True)
        return None  # that string closed before the limit: the payload is large elsewhere

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
