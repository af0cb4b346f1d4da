"""The running totals a rollout reached before ``list``'s last 1 MiB, for a replay in it.

A total that goes down and equals one of the file's latest is a replay (Codex wrote an older
count again: ``counters.step``); any other drop is a restart, whose run before adds to the
row.  ``list`` reads a larger rollout's last 1 MiB alone (``headtail``), so a replay of a total
reached before that window matched none the window saw, and counted as a restart: the row
was above the whole file's count.  A window that took a drop for a restart is read again from
the file's latest totals before it, found as ``turnseed`` finds a turn's model: by searching
the bytes backwards for ``token_count`` lines (at most ``seedwalk.MAX_BACK_BYTES``) and
decoding only those, never the whole file.  The totals found are fed, in file order, through
the same ``counters.step`` as a whole read (``seeds_before``), so that the window resumes where that
read would be: its ``previous`` the running total reached (not a replay's), its ``seen`` the
same latest totals (zero among them when the search reached the file's start).
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import BinaryIO, NamedTuple

from agentscan.providers.codex.counters import (RECENT, ZERO, Counters, Seen, counters_of, moved_total, read_total,
                                               recent_totals, repeated, step, token_info)
from agentscan.providers.codex.records import enveloped
from agentscan.toolkit import jsonl
from agentscan.toolkit.jsonl import line_record
from agentscan.providers.codex.seedwalk import walk_back
from agentscan.providers.codex.turnseed import ModelSearch, Seed
from agentscan.toolkit.markedlines import MarkedLines

_MARKER = b'"token_count"'
#: ``TotalsSearch``'s answer: the totals found, in file order, each with its call's count and its
#: line's ``timestamp`` (a total ``None``: one not read beside a readable call,
#: ``counters.moved_total``), and whether they are all the file's
Found = tuple[tuple[tuple[Counters | None, Counters | None, object], ...], bool]


class Reached(NamedTuple):
    """Where a whole read of a rollout would stand at a byte: the running total it reached
    (``previous``: not a replay's) and its latest totals (``seen``, ``counters.recent_totals``)."""

    previous: Counters | None
    seen: Seen


def seeds_before(path: Path, end: int, *, model: bool, totals: bool) -> tuple[Seed | None, Reached | None]:
    """The model the calls at byte ``end`` (a line's start) of ``path`` ran on (``model``:
    ``turnseed.ModelSearch``) and where a whole read of it would stand there (``totals``:
    ``Reached``, from the ``token_count`` lines before it), in one walk back for both
    (``seedwalk.walk_back``); ``None`` for one not asked, or none found."""
    turn, found = ModelSearch() if model else None, TotalsSearch() if totals else None
    walk_back(path, end, [search for search in (turn, found) if search is not None])
    return (None if turn is None else turn.seed), (None if found is None else _reached(found.found))


def _reached(found: Found | None) -> Reached | None:
    """Where a whole read of the file would stand at the byte the search began at, from the
    totals found before it (``TotalsSearch``) fed through ``counters.step`` in file order;
    ``None``: none found, or a total of garbage (no running count to look a replay up in: the
    window stays as it was read)."""
    if not found:
        return None
    totals, whole = found
    # (every total from the file's start: fed as a whole read is, zero the first of its totals
    # until 64 push it out)
    seen = recent_totals() if whole else deque((), RECENT)
    previous: Counters | None = None
    carried = ZERO
    before: tuple[object, Counters] | None = None  # (the call counted last: ``counters.repeated``)
    for total, last, time in totals:
        if total is None:  # (moved by its call unless a repeat, as a whole read takes it: none to move before a total)
            if previous is None:
                continue
            total = moved_total(previous, last, repeated(time, last, before))
        previous, carried, call = step(previous, carried, total, last, seen)
        if call is not None:
            before = (time, call)
    return Reached(previous, tuple(seen))


class TotalsSearch:
    """The latest running totals (as many as hold ``counters.RECENT`` distinct ones, in file
    order, each with its call's count: ``step`` reads both; one written again right after itself
    once) of the ``token_count`` lines before the walk's byte (a line's start), within
    ``MAX_BACK_BYTES`` of it, and whether they are all the file's (the search met its start);
    ``None``: none found, or a total of garbage.  Distinct, not lines: a replay among them takes
    no place in a whole read's latest totals (it moves its total up), and 64 lines with one left
    the window fewer than that read kept (a review, pass 58: a row of 1,927 for 74,024).
    One of ``seedwalk.walk_back``'s searches: its ``found`` once done."""

    markers: tuple[bytes, ...] = (_MARKER,)

    def __init__(self) -> None:
        self.found: Found | None = None
        self._totals: list[tuple[Counters | None, Counters | None, object]] = []
        self._distinct: set[Counters] = set()

    def take(self, handle: BinaryIO, line: int, marker: bytes, walk: MarkedLines) -> bool:
        total, last, garbage, unread, time = _total_at(handle, line)
        if garbage:
            self.found = None
            return True
        if unread:
            self._totals.append((None, last, time))
        elif total is not None and (not self._totals or self._totals[-1][0] != total):
            self._totals.append((total, last, time))
            self._distinct.add(total)
            if len(self._distinct) >= RECENT:
                self.ended(walk)
                return True
        return False

    def ended(self, walk: MarkedLines) -> None:
        # (whether they are all the file's: the walk stands in its first block, no line of
        # one left below the last taken)
        self.found = (tuple(reversed(self._totals)), walk.none_below(_MARKER)) if self._totals else None

    def cut(self) -> None:
        self.found = None

    def failed(self) -> None:
        self.found = None


def _total_at(handle: BinaryIO, offset: int) -> tuple[Counters | None, Counters | None, bool, bool, object]:
    """The running total of the ``token_count`` record on the line at ``offset`` (``None``: the
    line is none, or has none), its call's count, whether the total held no count, whether it
    was not read beside a readable call (it moved by that call unless the line is a repeat:
    ``counters.moved_total``), and the line's ``timestamp``."""
    handle.seek(offset)
    line = handle.readline(jsonl.MAX_LINE_BYTES + 2)
    decoded = line_record(line.rstrip(b"\r\n"), first=offset == 0)
    if decoded is None:
        return None, None, False, False, None
    record = enveloped(decoded)
    info = token_info(record) or {}
    last = counters_of(info.get("last_token_usage"))
    total, garbage, unread = read_total(info.get("total_token_usage"))
    return total, last, garbage, unread and last is not None, record.get("timestamp")
