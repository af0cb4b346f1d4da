"""One pass over a Claude transcript's usage lines: its calls, where it stopped, its warnings.

``incremental`` reads a session's files with it (whole, or from a resume point), and
``usagehalves`` a huge one by halves.  Only lines holding ``MARKER`` are decoded
(``toolkit.linescan``), into call tuples (``usage.call_of``): a call's own, and those of
the advisor it consulted (``usage.advisor_calls``).
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

from agentscan import progress as reporting
from agentscan.context import ScanContext
from agentscan.model import ScanWarning
from agentscan.providers.claude.usage import C_SUBAGENT, SIDECHAIN, Advisors, Call, UNREAD, call_of
from agentscan.toolkit.linescan import ScanProgress, matching_records

MARKER = b'"usage"'


class FileScan:
    """What one pass over a file found; ``inline``: a call of a subagent run written inline
    in a main transcript (``sidechains``), not yet given its run."""

    __slots__ = ("calls", "progress", "warnings", "inline")

    def __init__(self, calls: list[Call], progress: ScanProgress, warnings: list[ScanWarning], inline: bool = False) -> None:
        self.calls = calls
        self.progress = progress
        self.warnings = warnings
        self.inline = inline


def scan_file(
    path: Path, ctx: ScanContext, *, subagent: str | None, base: int, start: int = 0, lines_before: int = 0,
    crc: int = 0, exact: bool = False, size: int | None = None, own: str | None = None,
    end: int | None = None, count_lines: bool = False, settle_inline: bool = True,
) -> FileScan:
    """Calls of ``path`` from ``start`` on; ``exact`` counts lines and CRCs the bytes (for a resume state).
    ``size``: the file's, when known: a huge one tells ``ctx.progress`` how far its scan is.
    ``own``: the session the file is part of (``usage.call_of``).  ``end``, ``count_lines``,
    ``settle_inline``: for a half of a file read by halves (``usagehalves``): read no further
    than ``end``, count its lines without a CRC, and leave naming inline runs to the whole."""
    progress = ScanProgress(start, lines_before, crc)
    calls: list[Call] = []
    append = calls.append
    tell = reporting.file_teller(ctx.progress, path, size)
    seen = 0
    inline = False
    advisors = Advisors()
    lines: _Lines | None = None
    with ctx.warnings.capture() as warnings:
        try:
            for offset, record in matching_records(
                path, ctx, MARKER, progress, start=start, lines_before=lines_before, count_lines=exact or count_lines,
                crc=exact, end=end,
            ):
                call = call_of(record, subagent, base + offset, UNREAD, own, advisors)  # (positional: once a call)
                if call is not None:
                    append(call)
                    if advisors:  # (an advisor consulted: rare)
                        problems = advisors.drain(append)
                        if problems:  # (what was wrong with its ``iterations``, at its line)
                            if lines is None:
                                lines = _Lines(path, start, lines_before)
                            line = lines.at(offset)
                            for problem in problems:
                                ctx.warn(path, problem, line)
                    if call[SIDECHAIN] and call[C_SUBAGENT] is None:  # (a progress copy names its subagent)
                        inline = True
                if tell is not None:
                    seen += 1
                    if not seen % reporting.TOLD_EVERY:
                        tell(offset)
        finally:
            if lines is not None:
                lines.close()
    if inline and start == 0 and settle_inline:  # (a tail's calls are given theirs with the calls before it: ``_update``)
        from agentscan.providers.claude.sidechains import attribute

        attribute(path, ctx, calls, base)
    return FileScan(calls, progress, list(warnings), inline)


class _Lines:
    """Line numbers of the offsets a pass tells a problem at (rare), counted on from the
    last one asked: the pass counts no lines as it goes (``toolkit.linescan``), and each
    counted from the pass's start cost a file's read a call (a ``.zst`` decompressed from
    its start each time): 8,000 bad calls took a minute.  One handle, read forward only, so
    a pass reads its bytes here at most once more.  ``lines_before`` is exact whenever
    ``start`` is not 0 (a resumed pass, a half of a file)."""

    __slots__ = ("path", "offset", "count", "_handle", "_failed")

    def __init__(self, path: Path, start: int, lines_before: int) -> None:
        self.path, self.offset, self.count = path, start, lines_before
        self._handle: IO[bytes] | None = None
        self._failed = False

    def at(self, offset: int) -> int | None:
        """The 1-based number of the line starting at ``offset`` (no earlier than the last asked)."""
        if self._failed:
            return None
        try:
            if self._handle is None:
                from agentscan.toolkit.jsonl import open_binary

                self._handle = open_binary(self.path)
                if self.offset:
                    self._handle.seek(self.offset)
            left = offset - self.offset
            while left > 0:
                chunk = self._handle.read(min(left, 1 << 22))
                if not chunk:
                    self._failed = True
                    return None
                self.count += chunk.count(b"\n")
                self.offset += len(chunk)
                left -= len(chunk)
        except Exception:  # OSError, a stream that cannot seek, zstandard's own error: no line to give
            self._failed = True
            return None
        return self.count + 1

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
