"""The newest of a session's errors (and interruptions, compactions) ``show`` keeps, by one
rule for its collector (``toolkit.detail``) and a huge Claude transcript's row pass
(``providers.claude.showfacts``), so both keep the same ones."""

from __future__ import annotations

import heapq
import itertools
from typing import Generic, TypeVar

#: the errors ``show`` keeps (the newest: ``NewestErrors``)
ERRORS_KEPT = 20


E = TypeVar("E")


def error_key(timestamp: str | None, order: int) -> tuple[bool, str, int]:
    """Where an error stands among those ``show`` keeps: the newer by the time it shows
    (ISO to the millisecond, as a huge transcript's row pass keeps it for ``show``: a finer
    time would order two errors one way read forward and the other from the kept facts),
    one of no time older than any, equal times by reading order (``order``)."""
    return (timestamp is not None, timestamp or "", order)


class NewestErrors(Generic[E]):
    """The newest ``ERRORS_KEPT`` errors by ``error_key``, added in reading order: the one
    rule for a collector (one pool for it and its ``child()``s, so a subagent's file read
    after its parent's cannot push out the parent's newer errors) and for what a huge
    Claude transcript's row pass keeps (``showfacts``), so both keep the same errors."""

    def __init__(self, kept: int = ERRORS_KEPT) -> None:
        """``kept``: how many are kept (interruptions are kept by the same rule, more of them)."""
        self._heap: list[tuple[tuple[bool, str, int], E]] = []
        self._order = itertools.count()
        self._kept = kept
        #: how many were added, kept or not (the card counts every interruption, not the kept)
        self.seen = 0

    def add(self, timestamp: str | None, entry: E) -> None:
        """``timestamp``: the error's ISO time (``timeutil.to_iso``), ``None`` when it has none."""
        item = (error_key(timestamp, next(self._order)), entry)
        self.seen += 1
        if len(self._heap) < self._kept:
            heapq.heappush(self._heap, item)
        else:
            heapq.heappushpop(self._heap, item)  # (keys are unique: entries never compared)

    def count_unkept(self, count: int) -> None:
        """``count`` more were added than these, read but not kept (a huge transcript's kept
        facts hold the newest only): in ``seen``, never listed."""
        self.seen += max(count, 0)

    def by_time(self) -> list[E]:
        """The errors kept, oldest first."""
        return [entry for _, entry in sorted(self._heap, key=lambda pair: pair[0])]

    def in_reading_order(self) -> list[E]:
        """The errors kept in the order added: adding them again in that order (a resume
        state, the second half of a split pass) keeps what adding every one would."""
        return [entry for _, entry in sorted(self._heap, key=lambda pair: pair[0][2])]
