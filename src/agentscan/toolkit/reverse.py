"""Reading a JSON-lines file backwards: the newest line first.

``show`` keeps only the newest items of a transcript within its bounds, so
for a huge file it need not read the rest: this reader takes fixed-size
blocks from the end, splits them into lines, and decodes records newest
first; the caller stops when its bounds are full (closing the generator),
and the bytes before are never read.

Bad lines get the warnings ``jsonl.iter_json_lines`` gives, with the same
line numbers, so a warning the forward pass already raised is deduplicated
by ``ScanContext``: a line longer than ``max_line`` is read forward without its
long strings (``shrinkline``), or skipped without being held whole, an undecodable last line without a newline is "truncated", a
byte order mark is dropped from the first line.  Line numbers need the
count of newlines before a line, so they are counted (one pass of
``bytes.count`` over the unread head) only when a warning needs one.

The caller must know the file has at most ``bounds.MAX_FILE_LINES`` lines
(the forward reader stops there, so lines past it are never shown), and
reads a plain file: a compressed stream cannot be read backwards.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Generator, Iterator

import orjson

from agentscan.context import EMPTY_FILE, ScanContext
from agentscan.toolkit.fsutil import open_regular
from agentscan.toolkit.jsonkinds import json_kind
from agentscan.toolkit.jsonerrors import line_json_error
from agentscan.toolkit.jsonl import BOM, MAX_LINE_BYTES, long_line_record
from agentscan.toolkit.laxjson import reparse
from agentscan.toolkit.shrinkline import shrink_span
from agentscan.settling import unfinished_line

#: bytes read per step: a few hundred records of a typical transcript
BLOCK = 1024 * 1024


def records_newest_first(
    path: Path, ctx: ScanContext, *, end: int | None = None, max_line: int = MAX_LINE_BYTES,
) -> Generator[tuple[int, dict], None, None]:
    """``(offset, record)`` of every JSON object line of ``path``, the last line first.

    ``end`` reads as if the file ended there (a size taken earlier: lines
    appended since are not seen); it must fall just after a newline or at
    the end of the file.
    """
    try:
        handle = open_regular(path)
    except OSError as exc:
        ctx.cannot_read(path, exc)
        return
    with handle:
        try:
            size = os.fstat(handle.fileno()).st_size
        except OSError as exc:
            ctx.cannot_read(path, exc)
            return
        size = size if end is None else min(end, size)
        if size == 0:
            ctx.warn(path, EMPTY_FILE)
            return
        yield from _Backwards(handle, path, ctx, size, max_line).run()


class _Backwards:
    """One backwards pass (see ``records_newest_first``)."""

    def __init__(self, handle: IO[bytes], path: Path, ctx: ScanContext, size: int, max_line: int) -> None:
        self.handle, self.path, self.ctx, self.size, self.max_line = handle, path, ctx, size, max_line
        self.ended = 0  # lines completed so far that end with a newline
        self._newlines: int | None = None  # newlines in the whole file (before ``size``), counted when needed

    def run(self) -> Iterator[tuple[int, dict]]:
        position = self.size  # every byte from here on has been read
        pending = b""  # the start-less line being assembled: file[position:pending_end]
        pending_end = self.size  # where that line ends (its newline, or the end of the file)
        too_long = False  # the pending line already passed ``max_line`` (its bytes are dropped)
        last_open = True  # the pending line is the file's last and has no newline (until one is found)
        while position > 0:
            start = max(0, position - BLOCK)
            chunk = self._read(start, position)
            if chunk is None:
                return
            position = start
            cut = len(chunk)  # chunk[:cut] is not split into lines yet
            newline = chunk.rfind(b"\n", 0, cut)
            if position + len(chunk) == self.size and newline == len(chunk) - 1:
                # The file ends with a newline: there is no line after it.
                last_open = False
                pending_end = start + newline
                cut = newline
                newline = chunk.rfind(b"\n", 0, cut)
            while newline >= 0:
                line_start = start + newline + 1
                if too_long or pending_end - line_start > self.max_line:
                    record = self._long(line_start, pending_end, last_open)
                    if record is not None:
                        yield line_start, record
                else:
                    line = chunk[newline + 1:cut] + pending
                    record = self._decode(line, line_start, last_open)
                    if record is not None:
                        yield line_start, record
                if not last_open:
                    self.ended += 1
                last_open, too_long, pending = False, False, b""
                pending_end, cut = start + newline, newline
                newline = chunk.rfind(b"\n", 0, cut)
            if not too_long:
                if pending_end - start > self.max_line:
                    too_long, pending = True, b""
                else:
                    pending = chunk[:cut] + pending
        # The first line of the file.
        if too_long or pending_end > self.max_line:
            record = self._long(0, pending_end, last_open)
            if record is not None:
                yield 0, record
            return
        if pending.startswith(BOM):
            pending = pending[len(BOM):]
        record = self._decode(pending, 0, last_open)
        if record is not None:
            yield 0, record

    def _read(self, start: int, stop: int) -> bytes | None:
        try:
            self.handle.seek(start)
            chunk = self.handle.read(stop - start)
        except OSError as exc:
            self.ctx.warn(self.path, f"read failed: {exc.strerror or exc}", passing=True)
            return None
        if len(chunk) != stop - start:
            self.ctx.warn(self.path, "read failed: the file shrank while it was read", passing=True)
            return None
        return chunk

    def _number(self, last_open: bool) -> int:
        """The 1-based number of the line being completed: every newline in the file
        but those after it (one per line completed before it, itself included)."""
        if self._newlines is None:
            self._newlines = _count_newlines(self.handle, self.size)
        return self._newlines - self.ended - (0 if last_open else 1) + 1

    def _long(self, line_start: int, line_end: int, last_open: bool) -> dict | None:
        """The record of the line over the cap at ``line_start``..``line_end``, read forward
        without its long strings as the forward reader reads it (``shrinkline``); ``None``,
        with the warning, when that cannot be done."""
        try:
            line = shrink_span(self.handle, line_start, line_end, self.max_line)
        except OSError as exc:
            self.ctx.warn(self.path, f"read failed: {exc.strerror or exc}", passing=True)
            return None
        # (the line's number counts the file's newlines: only asked for when something is said)
        return long_line_record(line, first=line_start == 0, max_line=self.max_line, ended=not last_open,
                                say=lambda note: self.ctx.warn(self.path, note, self._number(last_open)))

    def _decode(self, line: bytes, line_start: int, last_open: bool) -> dict | None:
        stripped = line.strip()
        if not stripped:
            return None
        try:
            record = orjson.loads(stripped)
        except orjson.JSONDecodeError as exc:
            try:  # a lone surrogate escape, or bytes that are not UTF-8 (``laxjson``)
                record = reparse(stripped, exc, lambda note: self.ctx.warn(self.path, note, self._number(last_open)))
            except orjson.JSONDecodeError:
                if last_open:
                    self.ctx.warn(self.path, unfinished_line(stripped), self._number(last_open))
                else:
                    self.ctx.warn(self.path, f"invalid JSON skipped: {line_json_error(exc, line, stripped)}", self._number(last_open))
                return None
        if type(record) is not dict:
            self.ctx.warn(self.path, f"JSON line is {json_kind(record)}, not an object; skipped", self._number(last_open))
            return None
        return record


def _count_newlines(handle: IO[bytes], size: int) -> int:
    count, position = 0, 0
    handle.seek(0)
    while position < size:
        chunk = handle.read(min(BLOCK * 4, size - position))
        if not chunk:
            break
        count += chunk.count(b"\n")
        position += len(chunk)
    return count


def lines_backward(handle: IO[bytes], chunk: int = 64 * 1024) -> Iterator[tuple[int, bytes]]:
    """The lines of ``handle`` (a seekable file), the last first, each with its offset and its
    newline (the last one without, when it has none), read in chunks from the end: the raw
    lines, for a reader that decodes them its own way (``hooks.tailread``: the events store's
    envelopes).  ``records_newest_first`` does not use it: it never holds a line longer than
    its cap whole, and numbers lines for its warnings."""
    position = handle.seek(0, 2)
    rest = b""  # the first line of what was read, which may begin in the chunk before it
    while position > 0:
        size = min(max(chunk, len(rest)), position)  # (a long line: chunks that grow with it)
        position -= size
        handle.seek(position)
        pieces = (handle.read(size) + rest).split(b"\n")
        lines = [piece + b"\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
        rest = lines[0] if position > 0 and lines else b""
        offsets = []
        at = position
        for line in lines:
            offsets.append(at)
            at += len(line)
        placed = list(zip(offsets, lines))
        yield from reversed(placed[1:] if position > 0 else placed)
