"""Streaming, fault-tolerant readers for provider files.

Session files are written by other programs while we read them, in formats
that drift every few weeks.  These readers never raise for bad content: each
bad line becomes a warning and reading goes on.  Memory and time stay
bounded (``agentscan.bounds``): a line longer than ``MAX_LINE_BYTES`` is
read without its long strings (``shrinkline``: a pasted screenshot's base64), or
skipped without being held whole when that cannot be done, a file is read for at most
``MAX_FILE_LINES`` lines and a ``.zst`` file for at most
``MAX_DECOMPRESSED_BYTES``, and a whole-file JSON document is refused above
``MAX_JSON_DOCUMENT_BYTES`` or ``MAX_JSON_VALUES``.  Every file is opened
with ``fsutil.open_regular``: a FIFO or a device is refused, never read.
A line too long to shrink is read past by ``longlines``; what a warning says of a
record the decoder refused is ``jsonerrors``' (``short_json_error``).
"""

from __future__ import annotations

import functools
import io
import zlib
from pathlib import Path
from typing import IO, Any, Callable, Generator, Iterator, NamedTuple

import orjson

from agentscan import bounds
from agentscan.context import EMPTY_FILE, ScanContext
from agentscan.toolkit.fsutil import open_regular
from agentscan.toolkit.jsonerrors import line_json_error
from agentscan.toolkit.jsonkinds import json_kind
from agentscan.toolkit.laxjson import reparse
from agentscan.toolkit.shrinkline import long_line_value, read_long_line, shrink
from agentscan.toolkit.valuewarnings import FileTally, ValueCounts, tallied
from agentscan.toolkit.boundedstreams import Bounded as _Bounded, CappedStream as _CappedStream, cut_short, decompression_capped
from agentscan.toolkit.zstdframes import say_cut_short
from agentscan.settling import TRUNCATED_LAST_LINE, unfinished_line

MAX_LINE_BYTES = 4 * 1024 * 1024
_CHUNK = 1024 * 1024
#: the buffer of a reader of a file's head (a header line, its first 64 KiB): a read
#: through a whole-file reader's 128 KiB buffer copied twice what a head needs
HEAD_BUFFER = 16 * 1024
#: a UTF-8 byte order mark: some editors and Windows tools start a file with it
BOM = b"\xef\xbb\xbf"


class ReadProgress:
    """Where the last complete (newline-terminated) line ended, and the bad values met
    (``values``: ``valuewarnings.ValueCounts``).

    An appended-to file can be parsed again from here: a partial last line
    (still being written) lies after this offset and is read again next time.
    A read that starts there goes on from ``values`` (a resume state's); each read
    leaves its own there.  A plain class: a dataclass costs about a millisecond to
    create on import.
    """

    __slots__ = ("complete_offset", "lines", "values")

    def __init__(self, complete_offset: int = 0, lines: int = 0, values: ValueCounts | None = None) -> None:
        self.complete_offset = complete_offset
        self.lines = lines
        self.values = values if values is not None else ValueCounts()


class JsonLine(NamedTuple):
    """One decoded line (a tuple: made for every line of a row's pass, a frozen dataclass's
    ``__init__`` cost a tenth of the pass)."""

    number: int  # 1-based line number
    offset: int  # byte offset where the line starts (plain files only)
    record: dict


def open_at(path: Path, ctx: ScanContext, start: int) -> tuple[IO[bytes], int] | None:
    """``path`` opened and positioned at ``start``, with the offset reached: 0
    when the stream cannot seek (then it is read from the start).  ``None``,
    with a warning, when it cannot be opened."""
    try:
        handle = open_binary(path)
    except OSError as exc:
        ctx.cannot_read(path, exc)
        return None
    if start:
        try:
            handle.seek(start)
        except (OSError, ValueError, io.UnsupportedOperation):
            ctx.warn(path, "cannot seek; reading from the start")
            start = 0
    return handle, start


def open_binary(path: Path, buffer_size: int | None = None) -> IO[bytes]:
    """Open a provider file read-only (a regular file only); ``.zst`` files are
    decompressed as a stream of at most ``MAX_DECOMPRESSED_BYTES``.  ``buffer_size``:
    the plain file's (``open_regular``), smaller for a reader of its head."""
    raw = open_regular(path) if buffer_size is None else open_regular(path, buffer_size)
    if path.name.endswith(".zst"):
        try:
            import zstandard  # lazy: only Codex archives need it

            reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
        except BaseException:
            raw.close()
            raise
        capped = _CappedStream(reader, bounds.MAX_DECOMPRESSED_BYTES, raw)
        return io.BufferedReader(capped, buffer_size=_CHUNK)
    return raw


def crc_between(path: Path, start: int, end: int, crc: int = 0) -> int | None:
    """``crc`` (a CRC-32) continued over bytes ``start``..``end`` of ``path``; ``None``
    when they cannot all be read (then it is not the file whose state was kept)."""
    left = end - start
    try:
        with open_binary(path) as handle:
            if start:
                handle.seek(start)
            while left > 0:
                chunk = handle.read(min(left, 8 * 1024 * 1024))
                if not chunk:
                    return None
                crc = zlib.crc32(chunk, crc)
                left -= len(chunk)
    except Exception:  # noqa: BLE001 - unreadable now: not the file that was read
        return None
    return crc


def iter_json_lines(
    path: Path,
    ctx: ScanContext,
    *,
    start: int = 0,
    first_line: int = 1,
    prefilter: bytes | None = None,
    max_line: int = MAX_LINE_BYTES,
    progress: ReadProgress | None = None,
    tell_values: bool = True,
) -> Generator[JsonLine, None, None]:
    """Yield every JSON object line of ``path``; warn about the rest.

    ``prefilter`` skips, without decoding, lines that lack the given bytes:
    the cheap path for token totals, where most lines carry no usage.
    ``progress``, ``tell_values``: see ``iter_json_records``.
    """
    opened = open_at(path, ctx, start)
    if opened is None:
        return
    handle, reached = opened
    progress = progress or ReadProgress(reached)
    with tallied(path, ctx, carried_values(progress.values, start, reached), tell=tell_values) as tally, handle:
        progress.values = tally.counts
        yield from _iter_handle(handle, path, ctx, reached, first_line, prefilter, max_line, progress, tally=tally)


def iter_json_records(path: Path, ctx: ScanContext, *, start: int = 0, first_line: int = 1,
                      progress: ReadProgress | None = None, end: int | None = None,
                      tell_values: bool = True) -> Iterator[dict]:
    """``iter_json_lines``' records alone: a row's pass reads every line of every session,
    and wrapping each record in a ``JsonLine`` it never looks at cost 3 % of the pass.
    ``end``: the file ends there for this read (a line boundary: the first half of a
    transcript read on two cores, ``claude/halves``).  ``progress``: where the read got to;
    one resumed (``start``) goes on from its ``values`` (``valuewarnings``).  Not
    ``tell_values``: the read is a part of the file's, its values left in
    ``progress.values`` for its caller to join with the other part's and say."""
    opened = open_at(path, ctx, start)
    if opened is None:
        return
    handle, reached = opened
    progress = progress or ReadProgress(reached)
    carried = carried_values(progress.values, start, reached)
    if end is not None:
        handle = io.BufferedReader(_Bounded(handle, end - reached), buffer_size=_CHUNK)
    with tallied(path, ctx, carried, tell=tell_values) as tally, handle:
        progress.values = tally.counts
        yield from _iter_handle(handle, path, ctx, reached, first_line, None, MAX_LINE_BYTES,
                                progress, records_only=True, tally=tally)


def carried_values(values: ValueCounts, start: int, reached: int) -> ValueCounts | None:
    """The bad values a read from ``start`` goes on from: ``values``, its progress's (those of
    the read that ended there), unless it starts from the beginning or could not seek there
    (``open_at`` ``reached`` another offset).  ``linescan`` resumes the same way."""
    return values if start and reached == start else None


def _iter_handle(
    handle: IO[bytes],
    path: Path,
    ctx: ScanContext,
    offset: int,
    number: int,
    prefilter: bytes | None,
    max_line: int,
    progress: ReadProgress,
    *,
    records_only: bool = False,
    tally: FileTally | None = None,
) -> Iterator[Any]:  # ``JsonLine``s, or (``records_only``) their records
    """``tally``: told the number of each line handed out, and whether it is unfinished
    (``valuewarnings``)."""
    number -= 1
    unfinished = False
    # The last line read, when it has no newline: where a ``.zst`` file cut short stops, said
    # there (as ``linescan`` says it: one warning), whether what it holds decodes or not.
    open_line: int | None = None
    progress.complete_offset = offset
    max_lines = bounds.MAX_FILE_LINES
    # The common line (whole, not the first, an object) handed out by the few steps it needs:
    # a row's pass reads a million of them a GB.  Any other, or one that does not decode to an
    # object, is read below as it always was (decoded again there: its warnings are that path's).
    fast = records_only and prefilter is None and tally is not None
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    while True:
        try:
            line = handle.readline(max_line + 1)
        except OSError as exc:
            ctx.warn(path, f"read failed: {exc.strerror or exc}", number + 1, passing=True)
            return
        except Exception as exc:  # zstandard raises its own error type on corrupt frames
            ctx.warn(path, f"read failed: {exc}", number + 1)  # a corrupt frame stays corrupt
            return
        if fast and number and line.endswith(b"\n") and number < max_lines and not unfinished:
            try:
                record = loads(line)
            except decode_error:
                record = None
            if record.__class__ is dict:
                number += 1
                offset += len(line)
                progress.complete_offset, progress.lines = offset, number
                open_line = None
                tally.line = number  # type: ignore[union-attr]
                yield record
                continue
        if not line:
            if cut_short(handle):
                say_cut_short(path, ctx, open_line or number + 1)
            elif number == 0 and offset == 0:
                ctx.warn(path, EMPTY_FILE)
            elif decompression_capped(handle):
                limit = bounds.MAX_DECOMPRESSED_BYTES // (1024 * 1024)
                ctx.warn(path, f"decompresses to more than {limit:,} MiB; read stopped there, earlier lines kept")
            return
        if number >= max_lines:
            ctx.warn(path, f"more than {max_lines:,} lines; read stopped there, earlier lines kept")
            return
        number += 1
        line_offset = offset
        offset += len(line)
        long_line = len(line) > max_line and not line.endswith(b"\n")
        if long_line:  # read on, its long strings cut (``shrinkline``)
            try:
                shrunk, skipped, ended = read_long_line(handle, line, max_line)
            except Exception as exc:  # OSError, or zstandard's own error type
                ctx.warn(path, f"read failed: {getattr(exc, 'strerror', None) or exc}", number,
                         passing=isinstance(exc, OSError))
                return
            offset += skipped
            if shrunk is None:
                if ended:  # else the line is still being written: a resumed read starts at it again
                    progress.complete_offset, progress.lines = offset, number
                ctx.warn(path, too_long(max_line, ended), number)
                continue
            line = shrunk  # (ends with its newline when it ended: read on as any line)
        open_line = None if line.endswith(b"\n") else number
        if line.endswith(b"\n"):
            progress.complete_offset, progress.lines = offset, number
            if unfinished:  # (the file grew as it was read: rare)
                unfinished = False
                if tally is not None:
                    tally.end_unfinished()
        elif tally is not None:  # the last line, still being written: read again when resumed
            unfinished = tally.unfinished = True
        if number == 1:
            line = line.removeprefix(BOM)
        if prefilter is not None and prefilter not in line:
            continue
        try:
            # The line as read: JSON's whitespace around it is only some of what ``strip``
            # takes, and copying every line first cost more than the rare line that needs it.
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            stripped = line.strip()
            if not stripped:
                continue
            try:
                record = orjson.loads(stripped)
            except orjson.JSONDecodeError as exc:
                try:  # a lone surrogate escape, or bytes that are not UTF-8 (``laxjson``)
                    record = reparse(stripped, exc, functools.partial(ctx.warn, path, line=number))
                except orjson.JSONDecodeError:
                    if long_line:  # (what it says of a shrunk line would be of bytes the file does not hold)
                        ctx.warn(path, too_long(max_line, line.endswith(b"\n")), number)
                    elif not line.endswith(b"\n"):
                        # A compressed file cut short (known once its end is reached, as for
                        # this line) is not being written: the cut is said once, at this line.
                        if not cut_short(handle):
                            ctx.warn(path, unfinished_line(line), number)
                    else:
                        ctx.warn(path, f"invalid JSON skipped: {line_json_error(exc, line, stripped)}", number)
                    continue
        if not isinstance(record, dict):
            ctx.warn(path, f"JSON line is {json_kind(record)}, not an object; skipped", number)
            continue
        if tally is not None:
            tally.line = number
        yield record if records_only else JsonLine(number, line_offset, record)


def too_long(max_line: int, ended: bool = True) -> str:
    """The warning for a line over the cap that could not be read without its bulk.  Not
    ``ended`` (no newline yet): the last line, being written (a pasted screenshot's, caught
    mid-write), said as any unfinished last line is, which ``--strict`` does not count."""
    return f"line longer than {max_line // (1024 * 1024)} MiB skipped" if ended else TRUNCATED_LAST_LINE


def long_line_record(line: bytes | None, *, first: bool, max_line: int, ended: bool,
                     say: Callable[[str], None]) -> dict | None:
    """The record of a line over the cap, for the readers that find such a line whole before
    reading it (``reverse``, ``linescan``): ``line`` is it without its long strings (``None``:
    that could not be done), decoded as a line within the cap is.  ``None`` once ``say`` has
    said why: it cannot be read so (``too_long``; ``ended``: a newline ends it), or holds no
    object.  ``first``: the file's first line, whose BOM goes."""
    if line is not None:
        if first:
            line = line.removeprefix(BOM)
        try:
            record = long_line_value(line, say)
        except orjson.JSONDecodeError:
            pass
        else:
            if type(record) is dict:
                return record
            say(f"JSON line is {json_kind(record)}, not an object; skipped")
            return None
    say(too_long(max_line, ended))
    return None


def fitted(line: bytes) -> bytes | None:
    """``line`` as the line reader decodes it: itself within the cap, shrunk past it
    (``shrinkline``; ``None``: that cannot be done, and the reader skips it)."""
    return line if len(line) <= MAX_LINE_BYTES else shrink(line, MAX_LINE_BYTES)


def line_record(line: bytes, *, first: bool) -> dict | None:
    """The record ``iter_json_records`` takes from one line (without its newline; ``first``:
    the file's first), saying nothing of a line it skips: ``None`` for one too long (that
    ``shrinkline`` cannot make fit), blank, not JSON or not an object.  For a reader that
    finds its lines in a file's bytes (``claude/tablefacts``); the line reader itself keeps
    this inline, with its warnings."""
    fit = fitted(line)
    if fit is None:
        return None
    line = fit
    if first:
        line = line.removeprefix(BOM)
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        try:
            record = orjson.loads(line.strip())
        except orjson.JSONDecodeError as exc:
            try:
                record = reparse(line.strip(), exc)
            except orjson.JSONDecodeError:
                return None
    return record if isinstance(record, dict) else None


def read_head(path: Path, limit: int) -> bytes:
    """At most ``limit`` bytes from the start of a (possibly compressed) file."""
    with open_binary(path, HEAD_BUFFER) as handle:
        return handle.read(limit)


