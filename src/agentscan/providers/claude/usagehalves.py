"""A huge transcript's calls for ``tokens``, read by halves on two cores.

``filescan.scan_file`` reads a transcript's usage lines in one pass, and
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
Neither half says its bad values (``valuewarnings``): their counts are joined,
the first half's first value standing, and said once, as the one pass says them.

The join stands only where the one pass would have read the same:

* the file is the one the session's census found, at most appended to (else
  it is read again whole, the first half's warnings unsaid: the halves may be
  two files');
* the first half reached the seam (a pass that stopped short, at the line cap
  or a read that failed, is the whole pass: the one pass stopped there too);
* the two halves together are under the line cap (the helper counts its own
  lines from nothing, so it cannot tell where the cap falls);
* the helper could read all it read, and kept every warning it raised (a
  read that failed, or a file of more bad lines than a result keeps: their
  counts would not carry over).

Otherwise the second half is read here, resumed from the first half's
progress.  Only a file rewritten in place, same inode and no shorter, could
give halves of two contents (as ``sidepass`` says of its own).  A file is read
in one pass when no core is free (this process is a parse worker, or workers
read other sessions), when no line ends within ``SEAM_SEARCH`` of its middle,
and when it is compressed (``.zst``: no seeking) or under the split size.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from agentscan import bounds
from agentscan.context import ScanContext
from agentscan.providers.claude.filescan import FileScan, scan_file
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
    from agentscan.context import say
    from agentscan.providers.claude.sidepass import only_appended
    from agentscan.toolkit.helperproc import Helper, HelperGone, last_answer

    def serve(_: object) -> HelperHalf:
        return second_half(path, ctx.for_worker(), subagent, base, seam, exact, own)  # a context of its own: no index

    helper = Helper(lambda: None, serve, start=False)
    asked: Helper | None = helper
    try:
        try:
            helper.start()
            helper.send("calls")  # (not ``None``: that ends a helper)
        except (OSError, HelperGone):
            asked = None  # no helper: the second half is read here
        # Told as the whole file: both halves go at about the same rate.  Held back until the
        # file is known to be the one the census found (else its read again says them).
        with ctx.held_warnings() as held:
            first = scan_file(path, ctx, subagent=subagent, base=base, exact=exact, count_lines=True, end=seam,
                              size=stat.st_size, own=own, settle_inline=False, tell_values=False)
        if not only_appended(path, stat):
            helper.stop()
            return scan_file(path, ctx, subagent=subagent, base=base, exact=exact, size=stat.st_size, own=own)
        say(ctx, held.said)
        if first.progress.complete_offset != seam:
            helper.stop()  # (its answer would not be taken)
            return _settled(path, ctx, _values_said(path, ctx, first), base)  # stopped short: so did the one pass
        answer = last_answer(asked)
    finally:
        helper.stop()  # (a Ctrl-C however soon after the fork stops it too)
    second = _helper_half(path, ctx, answer, seam, first.progress, exact)
    if second is None:
        # Read here, as an update resumes at a complete line (``incremental._update``), going on
        # from the first half's values: its read says them all.
        second = scan_file(path, ctx, subagent=subagent, base=base, start=seam, lines_before=first.progress.lines,
                           crc=first.progress.crc, exact=exact, count_lines=True, own=own, values=first.progress.values)
    return _settled(path, ctx, FileScan(first.calls + second.calls, second.progress, first.warnings + second.warnings,
                                        first.inline or second.inline), base)


def _values_said(path: Path, ctx: ScanContext, scan: FileScan) -> FileScan:
    """``scan`` (a half, its bad values unsaid) with them said, as warnings of its own too."""
    values = scan.progress.values
    if values:
        with ctx.warnings.capture() as said:
            values.say(ctx, path)
        scan.warnings = scan.warnings + list(said)
    return scan


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


class HelperHalf(NamedTuple):
    """What the helper hands back of its scan from the seam on (``_helper_half`` reads it)."""

    calls: list
    complete_offset: int  # where its last complete line ended
    lines: int
    crc: int  # of its bytes, from the seam
    warnings: list  # ``(path, message, line)``, lines counted from the seam
    unkept: bool  # a warning was passing, or more came than a result keeps
    inline: bool  # it met a call of a run written inline
    values: list  # the bad values it met, unsaid (``ValueCounts.to_parts``), lines counted from the seam


def second_half(path: Path, ctx: ScanContext, subagent: str | None, base: int, seam: int, exact: bool,
                own: str) -> HelperHalf:
    """The helper's scan from ``seam`` on."""
    with ctx.warnings.capture() as captured:
        scan = scan_file(path, ctx, subagent=subagent, base=base, start=seam, exact=exact, count_lines=True, own=own,
                         tell_values=False)
    progress = scan.progress
    return HelperHalf(scan.calls, progress.complete_offset, progress.lines, progress.crc,
                      [(warning.path, warning.message, warning.line) for warning in scan.warnings],
                      captured.passing or captured.overflowed, scan.inline, progress.values.to_parts())


def _helper_half(path: Path, ctx: ScanContext, answer: Any, seam: int, first: ScanProgress, exact: bool) -> FileScan | None:
    """The helper's half as a pass resumed at the seam (``first``: the first half's progress
    there) would have read it, its warnings said here, then both halves' bad values, joined;
    ``None``: read it here (no answer, or one the join cannot stand on).  ``exact``: the pass
    keeps a CRC (of the bytes before the seam, ``first.crc``, and the helper's)."""
    from agentscan.model import ScanWarning
    from agentscan.toolkit.crcjoin import crc32_combine
    from agentscan.toolkit.valuewarnings import ValueCounts, say_joined

    lines_before = first.lines
    try:
        calls, offset, lines, crc, warnings, unkept, inline, values = answer
        if unkept or lines_before + lines >= bounds.MAX_FILE_LINES or offset < seam or type(calls) is not list:
            return None
        moved = [ScanWarning(said, message, None if line is None else line + lines_before)
                 for said, message, line in warnings]
        joined_crc = crc32_combine(first.crc, crc, offset - seam) if exact else 0
        later = ValueCounts.from_parts(values)
    except (TypeError, ValueError):
        return None  # an answer that does not read back (the helper's bug): read it here
    for warning in moved:
        ctx.warn(warning.path, warning.message, warning.line)
    with ctx.warnings.capture() as said:  # (warnings of the scan's own too: kept in a resume state)
        counts = say_joined(ctx, path, first.values, later, lines_before)
    return FileScan(calls, ScanProgress(offset, lines_before + lines, joined_crc, counts), moved + list(said), bool(inline))


def _settled(path: Path, ctx: ScanContext, scan: FileScan, base: int) -> FileScan:
    """``scan`` with the calls of runs written inline named, over the whole file (``scan_file``)."""
    if scan.inline:
        from agentscan.providers.claude.sidechains import attribute

        attribute(path, ctx, scan.calls, base)
    return scan
