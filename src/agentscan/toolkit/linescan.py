"""The fast reader behind ``tokens``: decode only the lines that can carry usage.

Token totals need a small fraction of a transcript's lines (Claude's
assistant records, Codex's ``token_count`` events).  ``iter_json_lines``
with a prefilter still reads the file line by line in Python; this reader
takes the file in large blocks and finds the wanted lines with
``bytes.find`` on a marker, so the lines in between cost no Python work at
all.  Only the lines found are decoded, and the caller applies each record's
own structure checks (a marker nested in another record is decoded but not
counted).

It reports exactly what ``iter_json_lines(..., prefilter=marker)`` reports
(unreadable files, empty files, over-long lines, invalid JSON, a truncated
last line, non-object lines), with the same line numbers, and reads a line over
the cap as it does (without its long strings: ``shrinkline``); those are counted
only when a warning or the caller needs them, because counting newlines
costs as much as finding the markers.
"""

from __future__ import annotations

import functools
import re
import zlib
from pathlib import Path
from typing import Iterator

import orjson

from agentscan import bounds
from agentscan.context import EMPTY_FILE, ScanContext
from agentscan.toolkit.laxjson import reparse
from agentscan.toolkit.jsonkinds import json_kind
from agentscan.toolkit.jsonerrors import line_json_error
from agentscan.toolkit.boundedstreams import cut_short
from agentscan.toolkit.bytesearch import occurs
from agentscan.toolkit.zstdframes import say_cut_short
from agentscan.toolkit.jsonl import BOM, MAX_LINE_BYTES, carried_values, decompression_capped, long_line_record, open_at, too_long
from agentscan.toolkit.lineblocks import Block, LongLine, Upto, after_newline, long_lines
from agentscan.toolkit.shrinkline import shrink
from agentscan.settling import unfinished_line
from agentscan.toolkit.valuewarnings import FileTally, ValueCounts, tallied

#: block size: a file smaller than this (most transcripts) is one read; memory stays a few blocks
BLOCK = 4 * 1024 * 1024
#: a marker shorter than this is searched by a regular expression, not ``bytes.find``: for
#: Claude's ``"usage"`` (7 bytes, ending in the ``"`` a JSON line is full of) ``find``'s skip
#: table rarely skips, and ``re``'s plain scan for it is as quick or quicker: 20 % over the
#: bench's transcripts (0.096 against 0.120 CPU-s for scale 1's 158 MB), 2-6 % over the real
#: ones in fixtures/real.  For Codex's 13-byte markers ``find`` is the quicker (0.0116
#: against 0.0131 s for ``"token_count"`` over scale 1's rollouts)
_SHORT_MARKER = 10


class ScanProgress:
    """Where the last complete line ended, how many lines came before it, (when asked)
    a CRC of every byte before it, and the bad values met (``values``:
    ``valuewarnings.ValueCounts``; a scan resumed goes on from those given).

    ``lines`` is exact only when the scan was asked to count lines.  A plain class:
    a dataclass costs about a millisecond to create on import.
    """

    __slots__ = ("complete_offset", "lines", "crc", "values")

    def __init__(self, complete_offset: int = 0, lines: int = 0, crc: int = 0,
                 values: ValueCounts | None = None) -> None:
        self.complete_offset = complete_offset
        self.lines = lines
        self.crc = crc
        self.values = values if values is not None else ValueCounts()


def matching_records(
    path: Path,
    ctx: ScanContext,
    marker: bytes | tuple[bytes, ...],
    progress: ScanProgress,
    *,
    start: int = 0,
    lines_before: int = 0,
    count_lines: bool = False,
    crc: bool = False,
    max_line: int = MAX_LINE_BYTES,
    end: int | None = None,
    tell_values: bool = True,
) -> Iterator[tuple[int, dict]]:
    """``(offset, record)`` of every JSON object line of ``path`` holding ``marker``
    (or any of several markers), in file order.

    ``start``/``lines_before`` resume after a complete line of an earlier
    scan.  ``end``: read no further than this offset, a line's start (the first half
    of a file read by halves: ``claude/usagehalves``).  ``progress`` receives where the last complete line ended, the
    number of complete lines (exact with ``count_lines``) and, with ``crc``,
    the CRC-32 of everything before ``complete_offset`` (continuing
    ``progress.crc`` when resuming), and the bad values met (``valuewarnings``: going on
    from ``progress.values`` when resuming).  Not ``tell_values``: the scan is a part of
    the file's (a half), its values left in ``progress.values`` for its caller to join
    with the other part's and say.
    """
    progress.complete_offset = start
    progress.lines = lines_before
    opened = open_at(path, ctx, start)
    if opened is None:
        return
    handle, reached = opened
    with tallied(path, ctx, carried_values(progress.values, start, reached), tell=tell_values) as tally, handle:
        progress.values = tally.counts
        if reached != start:  # cannot seek: the earlier scan's progress does not apply
            progress.complete_offset, progress.lines, progress.crc = 0, 0, 0
        scan = _Scan(path, ctx, marker, progress, count_lines=count_lines, crc=crc, max_line=max_line)
        scan.tally = tally
        yield from scan.run(handle if end is None else Upto(handle, reached, end))


class _Scan:
    """One pass over a file from ``progress.complete_offset`` (see ``matching_records``)."""

    def __init__(self, path: Path, ctx: ScanContext, marker: bytes | tuple[bytes, ...], progress: ScanProgress, *,
                 count_lines: bool, crc: bool, max_line: int) -> None:
        self.path, self.ctx, self.marker, self.progress = path, ctx, marker, progress
        self.count_lines, self.crc, self.max_line = count_lines, crc, max_line
        self.offset = progress.complete_offset  # file offset of the next unconsumed byte
        self.first = self.offset == 0
        # The last block's complete lines, not counted yet: counted only if a line
        # number is needed later (most files are one block and warn about nothing).
        self._uncounted: tuple[bytes, int] | None = None
        #: told where each record handed out starts (``valuewarnings``)
        self.tally: FileTally | None = None

    def lines(self) -> int:
        """Complete lines before ``self.offset`` (counting what was deferred)."""
        if self._uncounted is not None:
            data, end = self._uncounted
            self.progress.lines += data.count(b"\n", 0, end)
            self._uncounted = None
        return self.progress.lines

    def _advance(self, data: bytes | memoryview, end: int, *, counted: int | None) -> None:
        """Commit ``data[:end]`` (complete lines) as read."""
        progress = self.progress
        if self.crc:
            progress.crc = zlib.crc32(data[:end], progress.crc)
        self.offset += end
        progress.complete_offset = self.offset
        if counted is not None:
            progress.lines += counted

    def _too_long(self, number: int) -> None:
        self.ctx.warn(self.path, too_long(self.max_line), number)

    def run(self, handle) -> Iterator[tuple[int, dict]]:
        path, ctx, max_line = self.path, self.ctx, self.max_line
        carry = b""
        skip_crc: int | None = None  # inside an over-long line: its CRC so far, discarding up to its newline
        long: LongLine | None = None  # that line: where it starts, and its bytes shrunk (``shrinkline``)
        while True:
            try:
                chunk = handle.read(BLOCK)
            except Exception as exc:  # OSError, or zstandard's own error type
                ctx.warn(path, f"read failed: {getattr(exc, 'strerror', None) or exc}", self.lines() + carry.count(b"\n") + 1,
                         passing=isinstance(exc, OSError))  # an I/O error may pass; a corrupt zstd frame stays
                return
            if not chunk:
                break
            if skip_crc is not None and long is not None:
                newline = chunk.find(b"\n")
                if newline < 0:
                    skip_crc = zlib.crc32(chunk, skip_crc) if self.crc else 0
                    self.offset += len(chunk)
                    long.feed(chunk)
                    continue
                long.feed(chunk[: newline + 1])
                yield from self._long_line(long, True)  # (before the line is taken as read, as ``_block``'s)
                long = None
                if self.crc:
                    self.progress.crc = zlib.crc32(chunk[: newline + 1], skip_crc)
                skip_crc = None
                self.offset += newline + 1
                self.progress.complete_offset = self.offset
                self.progress.lines = self.lines() + 1
                chunk = chunk[newline + 1:]
                self.first = False
            data = carry + chunk if carry else chunk
            carry = b""
            end = data.rfind(b"\n") + 1  # complete lines end here
            if end == 0:
                if len(data) > max_line:
                    # One line already longer than the limit: read on without its long strings
                    # (unless the line cap comes first: then that is what stops the read).
                    if self.lines() >= bounds.MAX_FILE_LINES:
                        ctx.warn(path, f"more than {bounds.MAX_FILE_LINES:,} lines; read stopped there, earlier lines kept")
                        return
                    long = LongLine(self.offset, self.lines() + 1, self.first, max_line)
                    long.feed(data)
                    skip_crc = zlib.crc32(data, self.progress.crc) if self.crc else 0
                    self.offset += len(data)
                    continue
                carry = data
                continue
            lines_before = self.lines()
            if self.offset + end > bounds.MAX_FILE_LINES:
                # Only a file this large can pass the line cap: count, and stop at it (as jsonl does).
                in_block = data.count(b"\n", 0, end)
                room = bounds.MAX_FILE_LINES - lines_before
                if in_block > room:
                    cut = after_newline(data, room)
                    yield from self._block(data, cut, lines_before)
                    self._advance(data, cut, counted=room)
                    ctx.warn(path, f"more than {bounds.MAX_FILE_LINES:,} lines; read stopped there, earlier lines kept")
                    return
                yield from self._block(data, end, lines_before)
                self._advance(data, end, counted=in_block)
                self.first = False
                carry = data[end:]
                continue
            yield from self._block(data, end, lines_before)
            if self.count_lines:
                self._advance(data, end, counted=data.count(b"\n", 0, end))
            else:
                self._advance(data, end, counted=None)
                self._uncounted = (data, end)
            self.first = False
            carry = data[end:]
        if decompression_capped(handle):
            limit = bounds.MAX_DECOMPRESSED_BYTES // (1024 * 1024)
            ctx.warn(path, f"decompresses to more than {limit:,} MiB; read stopped there, earlier lines kept")
        cut = cut_short(handle)
        if cut:  # a ``.zst`` file whose frame stops part way: what it held before is read
            say_cut_short(path, ctx, 1 if self.offset == 0 and not carry and long is None else self.lines() + 1)
        if long is not None:  # the last line, without a newline (yet)
            yield from self._long_line(long, False)
            return
        if carry:
            yield from self._last_line(carry, cut)
        elif self.offset == 0 and not cut:
            ctx.warn(path, EMPTY_FILE)

    def _block(self, data: bytes, end: int, lines_before: int) -> Iterator[tuple[int, dict]]:
        block = Block(data, self.offset, lines_before)
        path, ctx, marker = self.path, self.ctx, self.marker
        tally = self.tally
        if tally is not None:  # (a line number only when a value is noted: ``valuewarnings``)
            tally.locate = block.line_number
        # Lines over the cap, without their long strings (``shrinkline``): ``None``, one that
        # cannot be read so, is said whether it holds the marker or not, as the line reader says it.
        shrunk: dict[int, bytes | None] = {}
        for line_start, line_end in long_lines(data, end, self.max_line) if end > self.max_line else ():
            shrunk[line_start] = shrink(data[line_start:line_end], self.max_line)
            if shrunk[line_start] is None:
                self._too_long(block.line_number(line_start))
        loads = orjson.loads
        find, rfind = data.find, data.rfind
        position = 0
        search = None
        if isinstance(marker, bytes):
            next_hit = None
            if len(marker) < _SHORT_MARKER:
                search = _pattern(marker).search
        else:
            # Several markers: the next hit of each, found again once passed.  A marker with
            # no hit left in the block is dropped, never looked at again: most of Codex's seven
            # are in no line of a rollout, and each hit went over all seven (a generator's
            # ``min`` too): ≈ 7 % of the scan of the bench's rollouts (0.108 against 0.115 CPU-s
            # at scale 1, 1.08 against 1.16 at scale 10).
            # Whether each occurs at all is asked of ``memmem`` (``bytesearch``: an absent one is
            # proved so in less than half ``find``'s time).
            next_hit = {one: find(one, 0, end) for one in marker if occurs(data, one, end)}
        while True:
            if search is not None:  # (the leftmost whole hit in ``position:end``, as ``find``'s)
                found = search(data, position, end)
                hit = -1 if found is None else found.start()
            elif next_hit is None:
                hit = find(marker, position, end)  # type: ignore[arg-type]
            elif not next_hit:
                return
            else:
                passed = [one for one, at in next_hit.items() if at < position]
                for one in passed:
                    at = find(one, position, end)
                    if at < 0:
                        del next_hit[one]
                    else:
                        next_hit[one] = at
                if not next_hit:
                    return
                hit = min(next_hit.values())
            if hit < 0:
                return
            line_start = rfind(b"\n", 0, hit) + 1
            line_end = find(b"\n", hit, end)
            position = line_end + 1
            if line_start in shrunk:
                if shrunk[line_start] is not None:  # (else said above)
                    yield from self._long_line(LongLine.whole(self.offset + line_start, block.line_number(line_start),
                                                              self.first and line_start == 0, shrunk[line_start]), True)
                    if tally is not None:
                        tally.locate = block.line_number  # (``_long_line`` told it a number)
                continue
            line = data[line_start:line_end]
            if self.first and line_start == 0 and line.startswith(BOM):
                line = line[len(BOM):]
            try:
                record = loads(line)
            except orjson.JSONDecodeError:
                # Stripped as the line reader strips it (``strip`` takes more than JSON's
                # whitespace: a form feed around a record), so that both read the same records
                # and say the same of the rest.
                stripped = line.strip()
                try:
                    record = loads(stripped)
                except orjson.JSONDecodeError as exc:
                    number = block.line_number(line_start)
                    try:  # a lone surrogate escape, or bytes that are not UTF-8 (``laxjson``)
                        record = reparse(stripped, exc, functools.partial(ctx.warn, path, line=number))
                    except orjson.JSONDecodeError:
                        if stripped:
                            ctx.warn(path, f"invalid JSON skipped: {line_json_error(exc, line, stripped)}", number)
                        continue
            if type(record) is not dict:
                ctx.warn(path, f"JSON line is {json_kind(record)}, not an object; skipped", block.line_number(line_start))
                continue
            if tally is not None:
                tally.position = line_start
            yield self.offset + line_start, record

    def _long_line(self, long: LongLine, ended: bool) -> Iterator[tuple[int, dict]]:
        """The record of a line over the cap, read without its long strings, if it holds the
        marker (as the line reader's prefilter, on the shrunk line); the warning if it cannot
        be read so.  ``ended``: a newline ends it (else it is the last, and read again)."""
        line = long.result()
        markers = (self.marker,) if isinstance(self.marker, bytes) else self.marker
        if line is not None and not any(one in line for one in markers):
            return
        record = long_line_record(line, first=long.first, max_line=self.max_line, ended=ended,
                                  say=lambda note: self.ctx.warn(self.path, note, long.number))
        if record is None:
            return
        if self.tally is not None:
            self.tally.locate, self.tally.line, self.tally.unfinished = None, long.number, not ended
        yield long.start, record

    def _last_line(self, line: bytes, cut: bool = False) -> Iterator[tuple[int, dict]]:
        """The last line, without a newline yet: counted if it decodes, re-read next time.
        ``cut``: the line a ``.zst`` file cut short stops in, said as that (``say_cut_short``)
        and not again as a line still being written."""
        number = self.lines() + 1
        if number > bounds.MAX_FILE_LINES:
            self.ctx.warn(self.path, f"more than {bounds.MAX_FILE_LINES:,} lines; read stopped there, earlier lines kept")
            return
        if len(line) > self.max_line:
            yield from self._long_line(LongLine.whole(self.offset, number, self.first, shrink(line, self.max_line)), False)
            return
        markers = (self.marker,) if isinstance(self.marker, bytes) else self.marker
        if not any(one in line for one in markers):
            return
        if self.first and line.startswith(BOM):
            line = line[len(BOM):]
        line = line.strip()  # as the line reader strips it
        if not line:
            return
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            try:
                record = reparse(line, exc, lambda note: self.ctx.warn(self.path, note, number))
            except orjson.JSONDecodeError:
                if not cut:
                    self.ctx.warn(self.path, unfinished_line(line), number)
                return
        if type(record) is not dict:
            self.ctx.warn(self.path, f"JSON line is {json_kind(record)}, not an object; skipped", number)
            return
        if self.tally is not None:  # (read again when resumed: its values are not carried)
            self.tally.locate, self.tally.line, self.tally.unfinished = None, number, True
        yield self.offset, record


@functools.lru_cache(maxsize=None)
def _pattern(marker: bytes) -> re.Pattern[bytes]:
    """``marker`` as a regular expression of itself (``_SHORT_MARKER``)."""
    return re.compile(re.escape(marker))
