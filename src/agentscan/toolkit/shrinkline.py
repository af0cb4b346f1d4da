"""A JSON line longer than the readers' cap (``jsonl.MAX_LINE_BYTES``), read without its bulk.

Real transcripts hold such lines: a screenshot pasted in a prompt, a PDF's pages or a
large tool result, as a base64 or text string of megabytes (claude-code issues 2939,
11181, 20021, 30654: 6.5 to 12 MB lines).  Skipping the whole line lost the prompt's
words, the tool's status and the call's usage with it, and gave a warning on every run
(``--strict`` failed on valid data).

So a line over the cap is not decoded as it is: it is read in pieces, and each of its
JSON strings longer than ``LONG_STRING`` bytes is cut to its first ``KEPT_BYTES`` and a
note of what was left out (``… [N more bytes not read]``), byte by byte, never touching
the structure around the strings (a scanner that follows JSON's string escapes).  The
shrunk line is decoded as any other.  What this cannot make small enough (the cap
still passed: thousands of medium strings, or bytes that are no JSON at all), a line
that does not decode once shrunk, and a line longer than ``LONG_LINE_LIMIT`` are
skipped with the warning they always had (``line longer than 4 MiB skipped``).

Memory stays bounded: the shrunk copy (at most the cap) and one piece of the line are
held, never the line.  Time: only lines over the cap take this path; the scanner
runs at ``re``'s speed over a string's bytes (a 12 MB base64 string is one match).
"""

from __future__ import annotations

import re
from typing import IO, Any, Callable

import orjson

from agentscan.toolkit.laxjson import reparse
from agentscan.toolkit.longlines import PIECE, skip_rest_of_line

#: A line longer than this is skipped unread, as every line over the cap once was: five
#: times the longest line reported in the wild (12 MB), and it bounds the time one line
#: may cost (a crafted line of a gigabyte is skipped at the speed of a seek).
LONG_LINE_LIMIT = 64 * 1024 * 1024
#: a string of a line over the cap longer than this is cut ...
LONG_STRING = 64 * 1024
#: ... to about this many of its first bytes (a prompt's words, a result's first lines)
KEPT_BYTES = 4 * 1024

#: a JSON string's body from where it starts (or goes on): up to its closing quote, or to
#: a backslash that ends the piece (its escaped byte comes with the next piece)
_BODY = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.S)
_BACKSLASH = 0x5C


def left_out(count: int) -> bytes:
    """What stands, in a cut string, for the ``count`` bytes left out of it."""
    return f"\u2026 [{count:,} more bytes not read]".encode()


class Shrinker:
    """A line fed in pieces (``feed``), its long strings cut as they pass; ``result``: the
    shrunk line, or ``None`` once it is more than ``cap`` bytes (it is dropped then)."""

    __slots__ = ("cap", "out", "failed", "fed", "_open", "_escaped", "_length", "_start", "_cut")

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.out = bytearray()
        self.failed = False
        self.fed = 0  # the line's bytes so far: past ``LONG_LINE_LIMIT``, it is dropped
        self._open = False  # within a string
        self._escaped = False  # the last piece ended with a backslash within a string
        self._length = 0  # the open string's bytes so far (those left out too)
        self._start = 0  # where the open string's bytes start in ``out``
        self._cut: int | None = None  # the open string's bytes kept, once it is cut

    def feed(self, piece: bytes) -> bool:
        """Take the next bytes of the line in; ``False`` once it cannot fit in ``cap``."""
        if self.failed:
            return False
        self.fed += len(piece)
        if self.fed > LONG_LINE_LIMIT:
            self.failed, self.out = True, bytearray()
            return False
        out, size, at = self.out, len(piece), 0
        view = memoryview(piece)
        while at < size:
            if not self._open:
                quote = piece.find(b'"', at)
                if quote < 0:
                    out += view[at:]
                    break
                out += view[at:quote + 1]
                self._open, self._start, self._length, self._cut = True, len(out), 0, None
                at = quote + 1
            elif self._escaped:
                self._string(view, at, at + 1)
                self._escaped = False
                at += 1
            else:
                end = _BODY.match(piece, at).end()  # type: ignore[union-attr]  # (it matches empty)
                if end < size and piece[end] == _BACKSLASH:  # (only as the piece's last byte)
                    self._string(view, at, end + 1)
                    self._escaped = True
                    at = end + 1
                    continue
                self._string(view, at, end)
                if end == size:
                    break
                self._close()
                at = end + 1
        if len(out) > self.cap:
            self.failed, self.out = True, bytearray()
        return not self.failed

    def result(self) -> bytes | None:
        """The shrunk line (``None``: it did not fit, or it ends within a string)."""
        return None if self.failed or self._open else bytes(self.out)

    def _string(self, view: memoryview, start: int, end: int) -> None:
        self._length += end - start
        if self._cut is not None:
            return  # left out
        self.out += view[start:end]
        if self._length > LONG_STRING:
            self._cut = _safe_cut(self.out, self._start, KEPT_BYTES) - self._start
            del self.out[self._start + self._cut:]

    def _close(self) -> None:
        if self._cut is not None:
            self.out += left_out(self._length - self._cut)
        self.out += b'"'
        self._open = False


def _safe_cut(data: bytearray, start: int, keep: int) -> int:
    """Where to cut the string whose bytes start at ``data[start]`` (more than ``keep`` of
    them) to keep at most ``keep``: never within an escape (``\\n``, ``\\u00e9``), nor
    between the two escapes of a surrogate pair, nor within a UTF-8 character."""
    end = start + keep
    at = start
    while True:
        escape = data.find(b"\\", at, end)
        if escape < 0:
            break
        size = 2
        if data[escape + 1:escape + 2] == b"u":
            size = 6
            # a high surrogate's escape and the low one after it are one character
            if data[escape + 2:escape + 4].lower() in (b"d8", b"d9", b"da", b"db") and data[escape + 6:escape + 8] == b"\\u":
                size = 12
        if escape + size > end:
            return escape
        at = escape + size
    while end > start and 0x80 <= data[end] < 0xC0:  # a UTF-8 character's continuation byte
        end -= 1
    return end


def shrink(line: bytes, cap: int) -> bytes | None:
    """``line`` (held whole: it was read so) with its long strings cut, if that fits ``cap``."""
    shrinker = Shrinker(cap)
    shrinker.feed(line)
    return shrinker.result()


def read_long_line(handle: IO[bytes], head: bytes, cap: int) -> tuple[bytes | None, int, bool]:
    """The line ``head`` starts (more than ``cap`` bytes, no newline yet), read on from
    ``handle`` in pieces and shrunk: ``(the shrunk line or None, the bytes read past head,
    whether a newline ended them)``.  A line that cannot be shrunk is read past unheld
    (``longlines``)."""
    shrinker = Shrinker(cap)
    shrinker.feed(head)
    read = 0
    while True:
        if shrinker.failed:
            more, ended = skip_rest_of_line(handle)
            return None, read + more, ended
        piece = handle.readline(PIECE)
        if not piece:
            return shrinker.result(), read, False
        read += len(piece)
        shrinker.feed(piece)
        if piece.endswith(b"\n"):
            return shrinker.result(), read, True


def shrink_span(handle: IO[bytes], start: int, end: int, cap: int) -> bytes | None:
    """The line at ``start``..``end`` of ``handle`` (a seekable file), shrunk (``None``: it
    cannot be, or it is longer than ``LONG_LINE_LIMIT``)."""
    shrinker = Shrinker(cap)
    handle.seek(start)
    while start < end:
        piece = handle.read(min(PIECE, end - start))
        if not piece or not shrinker.feed(piece):
            return None
        start += len(piece)
    return shrinker.result()


def long_line_value(line: bytes, note: Callable[[str], None] | None = None) -> Any:
    """The JSON value of a shrunk line, decoded as a line of the cap is (a lone surrogate
    escape, bytes that are not UTF-8: ``laxjson``); raises ``orjson.JSONDecodeError``."""
    stripped = line.strip()
    try:
        return orjson.loads(stripped)
    except orjson.JSONDecodeError as exc:
        return reparse(stripped, exc, note)


def line_at(handle: IO[bytes], cap: int) -> bytes:
    """The line at ``handle``'s position as a pass reads it: whole up to ``cap``, shrunk past
    it (empty when that cannot be done).  For a reader going back to a line a pass read."""
    line = handle.readline(cap + 1)
    if len(line) > cap and not line.endswith(b"\n"):
        shrunk, _, _ = read_long_line(handle, line, cap)
        return shrunk or b""
    return line
