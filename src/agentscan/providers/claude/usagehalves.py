"""A huge transcript's calls for ``tokens``, read by halves on two cores.

``incremental.scan_file`` reads a transcript's usage lines in one pass, and
a session's files are one job of the parse (``scan.usageparse``): a cold
``tokens`` of a home whose history is one 1 GB transcript read it on one
core while the other idled (7.5 s, against ccusage's 4.5 s).  A transcript of
``incremental.SPLIT_BYTES`` or more is read here by halves instead: this
process up to a seam (the start of the first line past the middle), a forked
helper (``helperproc.Helper``) from the seam on, each with ``scan_file``'s own
reader, and the two are joined as a pass resumed at the seam goes on
(``incremental._update``): the calls in file order (their orders are byte
offsets: the helper's are the one pass's), the helper's line numbers moved
past the first half's lines, and the CRC of the whole, for the resume state,
from the two halves' (``toolkit.crcjoin``).  The calls of a subagent run
written inline are named once, over the whole file, as the one pass names them.

The join stands only where the one pass would have read the same:

* the first half reached the seam (a pass that stopped short, at the line cap
  or a read that failed, is the whole pass: the one pass stopped there too);
* the two halves together are under the line cap (the helper counts its own
  lines from nothing, so it cannot tell where the cap falls);
* the helper could read all it read, and kept every warning it raised (a
  read that failed, or a file of more bad lines than a result keeps: their
  counts would not carry over);
* the file is the one the session's census found, at most appended to.

Otherwise the second half is read here, resumed from the first half's
progress, and a file replaced meanwhile is read again whole: the outcome is
always the one pass's.  Only where no core is free (this process is a
parse worker, or workers read other sessions) is the file read in one pass.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agentscan import bounds
from agentscan.context import ScanContext
from agentscan.providers.claude.incremental import FileScan, scan_file
from agentscan.toolkit.linescan import ScanProgress

#: how far past the middle the end of its line is looked for (a longer line: one pass)
SEAM_SEARCH = 8 * 1024 * 1024


def scan_by_halves(path: Path, ctx: ScanContext, *, subagent: str | None, base: int, exact: bool,
                   stat: os.stat_result, own: str) -> FileScan | None:
    """``scan_file`` of the whole of ``path`` (``stat``: the census's), read by halves;
    ``None``: read it in one pass (no core free, no seam)."""
    from agentscan.toolkit import cores

    if not cores.usable_workers() or cores.busy():
        return None  # (busy: in a parse worker, or beside workers that hold the cores)
    seam = find_seam(path, stat.st_size)
    if seam is None:
        return None
    from agentscan.toolkit.helperproc import Helper, HelperGone, last_answer

    def serve(_: object) -> tuple:
        return second_half(path, ctx.for_worker(), subagent, base, seam, exact, own)  # a context of its own: no index

    helper = Helper(lambda: None, serve, start=False)
    asked: Helper | None = helper
    try:
        try:
            helper.start()
            helper.send("calls")  # (not ``None``: that ends a helper)
        except (OSError, HelperGone):
            asked = None  # no helper: the second half is read here
        # Told as the whole file: both halves go at about the same rate.
        first = scan_file(path, ctx, subagent=subagent, base=base, exact=exact, count_lines=True, end=seam,
                          size=seam, own=own, settle_inline=False)
        answer = last_answer(asked)
    finally:
        helper.stop()  # (a Ctrl-C however soon after the fork stops it too)
    return _joined(path, ctx, first, answer, subagent=subagent, base=base, seam=seam, exact=exact, stat=stat, own=own)


def find_seam(path: Path, size: int) -> int | None:
    """Where the second half starts: just after the end of the line that holds the middle
    of ``path``; ``None`` when that end is not within ``SEAM_SEARCH`` (or the file is gone)."""
    from agentscan.toolkit.fsutil import open_regular

    middle = size // 2
    try:
        with open_regular(path) as handle:
            handle.seek(middle)
            window = handle.read(SEAM_SEARCH)
    except OSError:
        return None  # the pass says what cannot be read
    newline = window.find(b"\n")
    if newline < 0 or middle + newline + 1 >= size:
        return None
    return middle + newline + 1


def second_half(path: Path, ctx: ScanContext, subagent: str | None, base: int, seam: int, exact: bool,
                own: str) -> tuple:
    """What the helper hands back of its scan from ``seam`` on (``_joined`` reads it): the calls,
    where its last complete line ended, its lines, its bytes' CRC, its warnings, whether one
    of them was passing or some were not kept, and whether it met a run written inline."""
    with ctx.warnings.capture() as captured:
        scan = scan_file(path, ctx, subagent=subagent, base=base, start=seam, exact=exact, count_lines=True,
                         own=own, settle_inline=False)
    progress = scan.progress
    return (scan.calls, progress.complete_offset, progress.lines, progress.crc,
            [(warning.path, warning.message, warning.line) for warning in scan.warnings],
            captured.passing or captured.overflowed, scan.inline)


def _joined(path: Path, ctx: ScanContext, first: FileScan, answer: Any, *, subagent: str | None, base: int,
            seam: int, exact: bool, stat: os.stat_result, own: str) -> FileScan:
    from agentscan.providers.claude.sidepass import only_appended

    if first.progress.complete_offset != seam:
        return _settled(path, ctx, first, base)  # stopped short: so did the one pass
    if not only_appended(path, stat):
        # Replaced or cut meanwhile: the halves may be two files' (what the first half said
        # is said again by the pass, and folds as a repeat).
        return scan_file(path, ctx, subagent=subagent, base=base, exact=exact, size=stat.st_size, own=own)
    lines_before = first.progress.lines
    joined = _helper_half(ctx, answer, seam, lines_before, first.progress.crc if exact else None)
    if joined is None:
        # Read here, as an update resumes at a complete line (``incremental._update``).
        second = scan_file(path, ctx, subagent=subagent, base=base, start=seam, lines_before=lines_before,
                           crc=first.progress.crc, exact=exact, count_lines=True, own=own, settle_inline=False)
        joined = second
    calls = first.calls + joined.calls
    return _settled(path, ctx, FileScan(calls, joined.progress, first.warnings + joined.warnings,
                                        first.inline or joined.inline), base)


def _helper_half(ctx: ScanContext, answer: Any, seam: int, lines_before: int, crc_before: int | None) -> FileScan | None:
    """The helper's half as a pass resumed at the seam would have read it, its warnings said
    here; ``None``: read it here (no answer, or one the join cannot stand on).  ``crc_before``:
    the CRC of the bytes before the seam, when the pass keeps one (else ``None``)."""
    from agentscan.model import ScanWarning
    from agentscan.toolkit.crcjoin import crc32_combine

    try:
        calls, offset, lines, crc, warnings, unkept, inline = answer
        if unkept or lines_before + lines >= bounds.MAX_FILE_LINES or offset < seam:
            return None
        moved = [ScanWarning(path, message, None if line is None else line + lines_before)
                 for path, message, line in warnings]
        joined_crc = 0 if crc_before is None else crc32_combine(crc_before, crc, offset - seam)
        progress = ScanProgress(offset, lines_before + lines, joined_crc)
        half = FileScan([tuple(call) for call in calls], progress, moved, bool(inline))
    except (TypeError, ValueError):
        return None  # an answer that does not read back (the helper's bug): read it here
    for warning in moved:
        ctx.warn(warning.path, warning.message, warning.line)
    return half


def _settled(path: Path, ctx: ScanContext, scan: FileScan, base: int) -> FileScan:
    """``scan`` with the calls of runs written inline named, over the whole file (``scan_file``)."""
    if scan.inline:
        from agentscan.providers.claude.sidechains import attribute

        attribute(path, ctx, scan.calls, base)
    return scan
