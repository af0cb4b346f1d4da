"""A large Claude transcript's row pass, resumed where the last one stopped.

An agent at work appends to its transcript every few seconds, and that
session is the first row of ``list``.  Its row (title, counts, times, token
sums: ``row.summarize``) used to be computed from the whole file again on
every run: ≈ 0.8 s for a 65 MB transcript.  Transcripts are append-only, so
the pass over a large main transcript that an agent wrote to lately keeps a
*resume state* in the index (``files`` table, kind ``claude-row``): the
pass's summary, its windowed token sums (``WindowedTotals``, as they stood
before the subagents' files were added), the show facts (``ShowFacts``,
before ``finish``), the warnings it raised, the bad values it met (counted,
``valuewarnings.ValueCounts``: the pass that goes on counts on from them and
says the one warning a whole pass says), and where its last line ended
(offset, line count, CRC-32 of every byte before it, device and inode).
The next pass reads only the bytes after that point when the file is the
same one (device, inode) and those bytes are unchanged (their CRC), as
``incremental.py`` does for ``tokens``, and the code that runs is the code
that kept the state (``codeid``: another dedupe window or ``show`` bound
would not go on the same way); anything else is a whole pass.

A state is kept only for a pass that read the file as it stood from its
first byte to its last newline: not when the file changed during the pass,
ends in a partial line, hit a bound (``MAX_FILE_LINES``) or raised a warning
that may pass.  Idle transcripts never grow, so their states are dropped
after ``KEEP_DAYS``.
"""

from __future__ import annotations

import os
import struct
import time
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from agentscan import bounds
from agentscan.context import ScanContext
from agentscan.sealing import seal, unseal
from agentscan.warningsink import Captured
from agentscan.toolkit.fsutil import changed_since
from agentscan.toolkit.jsonl import ReadProgress, crc_between
from agentscan.toolkit.valuewarnings import ValueCounts, told_by_tally

if TYPE_CHECKING:
    from agentscan.providers.claude.filesummary import FileSummary
    from agentscan.providers.claude.showfacts import ShowFacts
    from agentscan.providers.claude.windowed import WindowedTotals

KIND = "claude-row"
#: bump when a state's shape changes (a state is also tied to the code that made it)
VERSION = "1"
#: smaller transcripts are read whole in less time than a state takes to check and keep
MIN_BYTES = 4 * 1024 * 1024
#: larger ones settle hundreds of thousands of calls (``WindowedTotals``): hashing each
#: in a way that outlives the process would cost seconds of every whole pass
MAX_BYTES = 256 * 1024 * 1024
#: a transcript untouched this long is not being worked in: its state is dropped
KEEP_DAYS = 7
_LENGTH = struct.Struct("<I")


class Resumed:
    """Where a kept pass stopped, ready to go on."""

    __slots__ = ("summary", "totals", "offset", "lines", "crc", "warnings", "values")

    def __init__(self, summary: FileSummary, totals: WindowedTotals, offset: int, lines: int,
                 crc: int, warnings: list[list], values: ValueCounts) -> None:
        self.summary, self.totals = summary, totals
        self.offset, self.lines, self.crc, self.warnings = offset, lines, crc, warnings
        self.values = values

    def progress(self) -> ReadProgress:
        """Where the pass goes on (the reader moves it forward), from the values met so far."""
        return ReadProgress(self.offset, self.lines, self.values)

    def replay(self, ctx: ScanContext, path: Path) -> None:
        """Say again what the kept part of the pass said, but its bad values' warning: the
        pass that goes on says it, counting on from ``values``."""
        for message, line in self.warnings:
            if not told_by_tally(message):
                ctx.warn(path, message, line)


def worth_keeping(path: Path, stat: os.stat_result | None, ctx: ScanContext) -> bool:
    """A plain transcript large enough (not huge), written to lately, with an index to keep a state in."""
    return (ctx.file_cache is not None and stat is not None and MIN_BYTES <= stat.st_size <= MAX_BYTES
            and not path.name.endswith(".zst") and time.time() - stat.st_mtime < KEEP_DAYS * 86400)


def _version() -> str:
    """The state's format and the code that made it: a pass of other code (another
    dedupe window, other show bounds, another parser) would not go on the same way."""
    from agentscan.codeid import code_identity

    return f"{VERSION}:{code_identity()}"


def load(ctx: ScanContext, path: Path, stat: os.stat_result, facts: ShowFacts | None) -> Resumed | None:
    """The kept state of ``path``, if it still describes the file's first bytes; the
    ``facts`` being gathered go on from the state's (they are left alone otherwise)."""
    from agentscan.providers.claude.filesummary import FileSummary
    from agentscan.providers.claude.windowed import WindowedTotals

    stored = ctx.file_cache.get_file(str(path), KIND)
    if stored is None or stored[2] != _version():
        return None
    blob = unseal(stored[5])
    if blob is None or len(blob) < _LENGTH.size:
        return None
    (length,) = _LENGTH.unpack_from(blob)
    try:
        doc = orjson.loads(blob[_LENGTH.size:_LENGTH.size + length])
        ints = [doc[key] for key in ("dev", "ino", "offset", "lines", "crc")]
        if not all(type(value) is int and value >= 0 for value in ints):
            return None
        dev, ino, offset, lines, crc = ints
        if (dev, ino) != (stat.st_dev, stat.st_ino) or not 0 < offset <= stat.st_size:
            return None
        facts_doc = doc["facts"]
        if facts is not None and not isinstance(facts_doc, dict):
            return None  # the file has grown past the size that gathers show facts: whole pass
        warnings = doc["warnings"]
        if not (isinstance(warnings, list) and all(
                isinstance(w, list) and len(w) == 2 and isinstance(w[0], str) and type(w[1]) is int for w in warnings)):
            return None
        values = ValueCounts.from_state(doc["values"])
        if crc_between(path, 0, offset) != crc:
            return None
        summary = FileSummary.from_state(path, doc["summary"])
        totals = WindowedTotals.from_state(doc["totals"], blob[_LENGTH.size + length:])
        if facts is not None:
            facts.load_state(facts_doc)  # last: it changes ``facts`` only when all is well
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None  # a damaged state is no state
    return Resumed(summary, totals, offset, lines, crc, warnings, values)


def keep(ctx: ScanContext, path: Path, before: os.stat_result, progress: ReadProgress, captured: Captured,
         summary: FileSummary, totals: WindowedTotals, facts: ShowFacts | None, resumed: Resumed | None) -> None:
    """Keep the state of a pass that read ``path`` as ``before`` describes it, whole."""
    # A run written inline (``sidechains``) is known from all its records: its links are not kept.
    if (summary.inline or captured.overflowed or captured.passing or progress.complete_offset != before.st_size
            or progress.lines >= bounds.MAX_FILE_LINES or progress.complete_offset == 0
            or not all(w.line is not None and w.line <= progress.lines for w in captured)):
        return
    if resumed is not None:  # only the new bytes need their CRC
        crc = crc_between(path, resumed.offset, progress.complete_offset, resumed.crc)
    else:
        crc = crc_between(path, 0, progress.complete_offset, 0)
    if crc is None or changed_since(path, before):
        return  # written to meanwhile: what was read may not be what the CRC covers
    totals_doc, hashes = totals.to_state()
    doc = orjson.dumps({
        "dev": before.st_dev, "ino": before.st_ino, "offset": progress.complete_offset, "lines": progress.lines,
        "crc": crc, "summary": summary.to_state(), "totals": totals_doc,
        "facts": None if facts is None else facts.to_state(),
        "warnings": [[w.message, w.line] for w in captured],
        "values": progress.values.state(),
    })
    cache = ctx.file_cache
    cache.put_file(str(path), KIND, before.st_size, before.st_mtime_ns, _version(), "", progress.complete_offset,
                   seal(_LENGTH.pack(len(doc)) + doc + hashes))
    cache.drop_files(KIND, time.time_ns() - KEEP_DAYS * 86400 * 10**9)
