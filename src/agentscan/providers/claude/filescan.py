"""One pass over a Claude transcript's usage lines: its calls, where it stopped, its warnings.

``incremental`` reads a session's files with it (whole, or from a resume point), and
``usagehalves`` a huge one by halves.  Only lines holding ``MARKER`` are decoded
(``toolkit.linescan``), into call tuples (``usage.call_of``): a call's own, and those of
the advisor it consulted (``usage.advisor_calls``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from agentscan import progress as reporting
from agentscan.context import ScanContext
from agentscan.model import ScanWarning
from agentscan.providers.claude.usage import C_SUBAGENT, SIDECHAIN, Advisors, Call, UNREAD, call_of
from agentscan.toolkit.linescan import ScanProgress, matching_records

if TYPE_CHECKING:
    from agentscan.toolkit.valuewarnings import ValueCounts

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
    values: ValueCounts | None = None, tell_values: bool = True,
) -> FileScan:
    """Calls of ``path`` from ``start`` on; ``exact`` counts lines and CRCs the bytes (for a resume state).
    ``size``: the whole file's, when known: a huge one tells ``ctx.progress`` how far its scan is.
    ``own``: the session the file is part of (``usage.call_of``).  ``end``, ``count_lines``,
    ``settle_inline``: for a half of a file read by halves (``usagehalves``): read no further
    than ``end``, count its lines without a CRC, and leave naming inline runs to the whole.
    ``values``: the bad values the bytes before ``start`` held (``valuewarnings``), gone on
    from; not ``tell_values``: left in the progress for the caller to say (a half)."""
    progress = ScanProgress(start, lines_before, crc, values)
    calls: list[Call] = []
    append = calls.append
    tell = reporting.file_teller(ctx.progress, path, size)
    if tell is not None and end and size and end < size and not start:
        # A first half (``usagehalves``): the second is read on the other core meanwhile, at
        # about this pace: told as the share of the whole file read (it said 277 of 537 MB).
        tell = _scaled(tell, size, end)
    seen = 0
    inline = False
    advisors = Advisors()
    with ctx.warnings.capture() as warnings:
        for offset, record in matching_records(
            path, ctx, MARKER, progress, start=start, lines_before=lines_before, count_lines=exact or count_lines,
            crc=exact, end=end, tell_values=tell_values,
        ):
            call = call_of(record, subagent, base + offset, UNREAD, own, advisors)  # (positional: once a call)
            if call is not None:
                append(call)
                if advisors:  # (an advisor consulted: rare)
                    advisors.drain(append)
                if call[SIDECHAIN] and call[C_SUBAGENT] is None:  # (a progress copy names its subagent)
                    inline = True
            if tell is not None:
                seen += 1
                if not seen % reporting.TOLD_EVERY:
                    tell(offset)
    if inline and start == 0 and settle_inline:  # (a tail's calls are given theirs with the calls before it: ``_update``)
        from agentscan.providers.claude.sidechains import attribute

        attribute(path, ctx, calls, base)
    return FileScan(calls, progress, list(warnings), inline)


def _scaled(tell: Callable[[int], None], size: int, end: int) -> Callable[[int], None]:
    return lambda done: tell(done * size // end)
