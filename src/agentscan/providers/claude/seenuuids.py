"""The uuids a Claude transcript's row pass has met, to tell a re-appended copy of a record.

Claude Code 2.1.237 to 2.1.260 (claude-code issue 92089): a second ``/compact`` in one
process re-appends a copy of every earlier message to the transcript, each with its
original ``uuid``, ``parentUuid`` and ``timestamp``.  Usage is deduplicated by message id
and request id, so tokens were right, but the copies were counted again as prompts,
replies and calls, and ``show`` listed them twice.  A record whose uuid the pass has
already met is such a copy (``row.summarize`` skips it).

Every record's uuid is kept as its 64-bit ``hash()`` in one flat array (8 bytes a
record: 9 MB of the bench's 1 GB transcript, where a ``set`` of them takes 72 MB and
more than the pass's whole peak of 64 MB), and looked up only for a record dated no later
than the newest record read before a compaction boundary (and before the boundary:
``copies_before``): a copy keeps the time of its original, read before the boundary
written after it.  Such records are few (a ``/compact``'s own command records are written
after its boundary), so the lookup's index (a ``Hashes64``) is made at the first one and
brought up to date at each later one.

``hash()`` of a string changes from one process to the next: the hashes are never kept
past the process (a forked helper shares them: ``halves``), so a row resumed from a
kept state (``rowresume``) does not know the uuids of the part read before.  A record
there that may be a copy of one of them raises ``CopiesUnknown``: the row is read
whole (``rowpass``).
"""

from __future__ import annotations

from array import array
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from agentscan.providers.claude.usage import Advisors, call_of
from agentscan.toolkit.hashes64 import Hashes64

if TYPE_CHECKING:
    from agentscan.providers.claude.row import FileSummary
    from agentscan.providers.claude.windowed import WindowedTotals


#: the finest step of a parsed time: a time before ``t + _TICK`` is one no later than ``t``
_TICK = timedelta(microseconds=1)


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

    __slots__ = ("hashes", "known", "_index", "_indexed")

    def __init__(self, known: bool = True) -> None:
        self.hashes = array("q")
        self.known = known
        self._index: Hashes64 | None = None
        self._indexed = 0  # how many of ``hashes`` the index holds

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
                if advisors:  # (copies of its original's: the sums count them once; said at the original)
                    advisors.drain(totals.add)
    elif kind == "progress" and totals is not None:
        call = call_of(record, subagent, order, advisors=advisors)
        if call is not None:
            totals.add(call)
            if advisors:
                advisors.drain(totals.add)
