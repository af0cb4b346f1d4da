"""The uuids a Claude transcript's row pass has met, to tell a re-appended copy of a record.

Claude Code 2.1.237 to 2.1.260 (claude-code issue 92089): a second ``/compact`` in one
process re-appends a copy of every earlier message to the transcript, each with its
original ``uuid``, ``parentUuid`` and ``timestamp``.  Usage is deduplicated by message id
and request id, so tokens were right, but the copies were counted again as prompts,
replies and calls, and ``show`` listed them twice.  A record whose uuid the pass has
already met is such a copy (``row.summarize`` skips it).

A record is looked up only once a compaction boundary was met, and only if it is dated no
later than the newest record read before the boundary (and before the boundary:
``copies_before``): a copy keeps the time of its original, read before the boundary
written after it.  So the uuids are collected only from a pass's first boundary on: most
transcripts have none, and hashing and keeping every record's cost a 1 GB ``show`` 8 MB
and 0.1 CPU-s.  At the first boundary the uuids before it are taken from the bytes
already read (``collect``: a scan, not a decode); from then on the pass keeps each
record's.  They are kept as 64-bit ``hash()`` values in one flat array (8 bytes a
record, where a ``set`` takes 72); records looked up are few (a ``/compact``'s own
command records are written after its boundary), so the lookup's index (a ``Hashes64``)
is made at the first one and brought up to date at each later one.

The scan takes every ``"uuid"`` string of those lines, a nested one too: a progress
record holds its subagent's record, with that record's uuid.  A nested uuid is never a
later top-level record's of the same file (a subagent's records are in its own file), so
the extra members make no record a copy.

``hash()`` of a string changes from one process to the next: the hashes are never kept
past the process (a forked helper shares them: ``halves``), so a row resumed from a
kept state (``rowresume``) does not know the uuids of the part read before.  A record
there that may be a copy of one of them raises ``CopiesUnknown``: the row is read
whole (``rowpass``).
"""

from __future__ import annotations

import re
from array import array
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import orjson

from agentscan.providers.claude.usage import Advisors, call_of
from agentscan.toolkit.hashes64 import Hashes64
from agentscan.toolkit.jsonl import open_binary
from agentscan.toolkit.shrinkline import LONG_LINE_LIMIT

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.providers.claude.filesummary import FileSummary
    from agentscan.providers.claude.windowed import WindowedTotals


#: the finest step of a parsed time: a time before ``t + _TICK`` is one no later than ``t``
_TICK = timedelta(microseconds=1)
#: a ``"uuid"`` key's string value in a line's bytes (its escapes kept: ``_text``); matched by
#: runs of plain bytes, at about 1 GB/s (a byte at a time took twice as long)
_UUID = re.compile(rb'"uuid"\s*:\s*"((?:[^"\\\n]+|\\.)*)"')
#: how much of a transcript ``collect`` reads at a time
_BLOCK = 8 << 20


def copies_before(boundary: datetime, newest: datetime | None) -> datetime:
    """The time a record read after a ``compact_boundary`` dated ``boundary`` must be
    dated before to be looked up as a copy: a copy keeps its original's time, and its
    original was read before the boundary, so it is dated no later than ``newest``, the
    newest time read before the boundary (``None``: not known).  Never later than the
    boundary's own time: a boundary dated wrongly far ahead (a clock set to 2100) made every
    later record one to look up, and a resumed row, which cannot tell (``CopiesUnknown``),
    was read whole on every run after it."""
    if newest is None or newest >= boundary:
        return boundary
    return newest + _TICK


class CopiesUnknown(Exception):
    """A resumed pass met a record that may copy one of the records read before it (not a
    domain error: ``rowpass`` reads the file whole instead, and it never leaves there)."""


class SeenUuids:
    """The hashed uuids met so far.  ``known``: of every record before (a resumed row's is
    not: ``CopiesUnknown``)."""

    __slots__ = ("hashes", "known", "upto", "compactions", "_index", "_indexed")

    def __init__(self, known: bool = True) -> None:
        self.hashes = array("q")
        self.known = known
        self.compactions = 0  # the ``compact_boundary`` records the passes over them met
        # The offset the uuids are collected up to (``collect``), from where the first pass
        # over them began (``None``: no pass yet); not kept up to date by the record.
        self.upto: int | None = None
        self._index: Hashes64 | None = None
        self._indexed = 0  # how many of ``hashes`` the index holds

    def collect(self, path: Path, stop: int) -> None:
        """The uuids of the lines from ``upto`` to ``stop`` (a line boundary), from their
        bytes.  A file that cannot be read again leaves them out: a copy of one is then
        counted as before claude-code issue 92089 was known, never a record lost."""
        start = self.upto or 0
        self.upto = stop
        append, left, pending, skipping = self.hashes.append, stop - start, b"", False
        try:
            with open_binary(path) as handle:
                if start:
                    handle.seek(start)
                while left > 0:
                    block = handle.read(min(_BLOCK, left))
                    if not block:
                        break
                    left -= len(block)
                    if skipping:  # the rest of a line too long for the pass to read at all, which skipped it
                        ends = block.find(b"\n")
                        if ends < 0:
                            continue
                        block, skipping = block[ends + 1:], False
                    data = pending + block if pending else block
                    # A uuid never spans a line: what follows the last newline waits for the next block.
                    cut = data.rfind(b"\n") + 1 if left > 0 else len(data)
                    pending = data[cut:]
                    if len(pending) > LONG_LINE_LIMIT:  # (a line over the cap is read shrunk: ``shrinkline``)
                        pending, skipping = b"", True
                    for raw in _UUID.findall(data, 0, cut):
                        text = _text(raw)
                        if text is not None:
                            append(hash(text))
        except (OSError, ValueError):
            return

    def met(self, key: int) -> bool:
        """Whether the uuid hashed as ``key`` was met before (called for a record dated
        before ``copies_before`` only; the pass appends every other key itself)."""
        hashes, index = self.hashes, self._index
        if index is None or len(hashes) - self._indexed > self._indexed:
            # Made anew from the bytes when most of them are new: one fill, not an ``add`` each.
            index = self._index = Hashes64.from_bytes(hashes.tobytes())
        else:
            add = index.add
            for member in hashes[self._indexed:]:
                add(member)
        self._indexed = len(hashes)
        if key in index:
            return True
        if not self.known:
            raise CopiesUnknown
        return False


def _text(raw: bytes) -> str | None:
    """A uuid's bytes as the string ``orjson`` reads from them (``None``: not one it reads)."""
    try:
        return orjson.loads(b'"' + raw + b'"') if b"\\" in raw else raw.decode()
    except (orjson.JSONDecodeError, UnicodeDecodeError):
        return None


def copied_calls(summary: FileSummary, record: dict, subagent: str | None, order: int, timestamp: datetime | None,
                 totals: WindowedTotals | None, advisors: Advisors | None = None) -> None:
    """A copy's call goes to the sums as every record's does: its message id and request
    make it the original's, which the sums count once (so they stay what ``tokens`` reads)."""
    kind = record.get("type")
    if kind == "assistant" and (totals is not None or not summary.has_usage):
        call = call_of(record, subagent, order, None if timestamp is None else timestamp.timestamp(), None, advisors)
        if call is not None:
            summary.has_usage = True
            if totals is not None:
                totals.add(call)
                if advisors:  # (copies of its original's: the sums count them once)
                    advisors.drain(totals.add)
    elif kind == "progress" and totals is not None:
        call = call_of(record, subagent, order, advisors=advisors)
        if call is not None:
            totals.add(call)
            if advisors:
                advisors.drain(totals.add)
