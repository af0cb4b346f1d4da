"""The whole cumulative count of a rollout larger than ``list``'s window, without a tally.

For one run of a thread, Codex's cumulative ``total_token_usage`` is the sum
of its calls, so a row takes the latest one from the file's last 1 MiB.  But
a count can start over: an older build resuming a thread begins again from
zero, and the calls counted before were spent all the same (``tokens``
counts them).  Nothing in the window tells whether a count restarted before
it, so a row of a larger file takes the file's whole count (every run's last
count, added up: ``FileUsageScanner.cumulative``): from the tally a whole
pass kept (``fullcounts``), else from here.

Here only the file's ``token_count`` lines are decoded (the rest is skipped
undecoded, ``toolkit.linescan``), and where the read stopped is kept in
agentscan's index with the counts reached, so that the file, which Codex
only appends to, is read once: a file that grew is read on from there.
Without agentscan's index (``--no-cache``, the library's default) nothing
could be kept, so nothing is read (a row reads a bounded part of a rollout:
``tests/test_codex_bounded.py``): the row's count is the window's, and the
row says it read only that (``counts_partial``), as it does of its counts.

A file whose running totals are garbage (``-5``, ``2.5``: no running count)
is counted by its calls instead, added up from its first line as ``tokens``
adds them (``_Runs.recount``); found only on the way, so such a file is read
twice, once.
"""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path
from typing import NamedTuple

import orjson

from agentscan.context import ScanContext, say
from agentscan.providers.codex.counters import (RECENT, ZERO, CallKey, Counters, Seen, add, counters_of, jumped,
                                                kept_counters, kept_keys, recent_totals, repeated, spent_on, step, token_info,
                                                total_counters, unsummed)
from agentscan.providers.codex.fullcounts import head_digest
from agentscan.toolkit.linescan import ScanProgress, matching_records

KIND = "codex.runs"
#: "2": a file of garbage totals is counted by its calls (``recount``); one kept before took
#: its totals, and the one 0.1.x build that kept a ``recount`` added it up another way
#: "3": a running total that moved by other than its call (``counters.jumped``) is garbage too;
#: a "2" took it for a running count, so it is one of ``_PREVIOUS``
#: "4": a total below the last one that repeats an older count (39's ``counters.stale``) moves nothing; a
#: "3" took it for a restart (the run before it added again): read again
#: "5": only a total equal to one of the latest (``seen``, kept) is a replay; any other drop is a
#: restart whose run counts less the base it restarts from (``counters.step``); a "4" skipped
#: real calls after a lower total: read again
#: "6": a drop with no ``last_token_usage`` counts the total less the base it restores
#: (``counters._base``); a "5" counted that base again: read again
#: "7": that base only when the total was written again right before the drop, else from zero
#: (``counters._base``); a "6" took an earlier total off a restart from zero: read again
#: "8": a total with a counter of no number at all is none (``counters._unreadable``), and a call
#: written again adds to ``recount`` once; a "7" read it as zeros (a restart): read again
#: "9": the latest calls ``recount`` added are kept (``keys``): one written again across an append
#: is added once; and an unread total beside a readable call moves the running total by that call
#: (``counters.moved_total``); an "8" added the call again, and left the total where it was: read again
#: "10": an unread total whose line is the call counted just before it written again (its time and
#: count: ``counters.repeated``) moves nothing; a "9" moved the total by it again: read again
VERSION = "10"
#: a state of those builds reached what ``step`` reaches now only of a file whose running totals
#: never went down: a drop (a replay, a restart) it counted by its build's rules, which "4" to
#: "7" changed; and one of a file of garbage totals (no ``recount``) took them for a running
#: count.  Nothing in the state tells either.  Taken all the same, only where the file cannot be
#: read again in one run (past ``MAX_READ_BYTES``: the row would otherwise say it read only its
#: window, and be built again on every ``list``, until ``tokens``) and its window shows no
#: garbage; a file within the budget is read again, once
_PREVIOUS = frozenset({"1", "2"})
#: at most this much of a file is read here in one run (a first ``list`` of a heavy user's
#: newest sessions must not read gigabytes): past it the row keeps the window's count and
#: says so (``counts_partial``) until ``tokens`` or ``show`` read the file whole
MAX_READ_BYTES = 32 * 1024 * 1024
#: the lines that hold a cumulative count
_MARKER = b'"token_count"'


class _Runs:
    """The cumulative counts read so far, added up as ``FileUsageScanner`` adds them, by the
    same rule (``counters.step``), without keeping its calls: memory stays bounded whatever
    the file's size (of a ``recount``, the keys of one read's calls, within ``MAX_READ_BYTES``).  ``recount``, when kept, is the calls since the file's first line added
    up (``FileUsageScanner.spent``): the file's count once a total was garbage (``-5``,
    ``2.5``), as its totals are then no running count.  Adding each call costs, so a read
    keeps it only from a file's start and once it knows the file needs it (``whole_count``)."""

    __slots__ = ("last", "carried", "recount", "seen", "_keys", "latest", "before")

    def __init__(self, last: Counters | None = None, carried: Counters = ZERO,
                 recount: Counters | None = None, seen: Seen = (), keys: tuple[CallKey, ...] = ()) -> None:
        self.last, self.carried, self.recount = last, carried, recount
        self.seen = recent_totals(seen, last)  # the latest totals: a replay of one counts nothing
        #: the calls ``recount`` added, by time and count: one written again is added once, as
        #: ``FileUsageScanner.spent``.  This read's all (at most ``MAX_READ_BYTES`` of lines), and
        #: the latest a read before kept (``latest``, ``RECENT``: the state stays bounded)
        self._keys: set[CallKey] = set(keys)
        self.latest: deque[CallKey] = deque(keys, RECENT)
        #: the call counted last, by time and count: a line of it written again moves no total
        #: not read (``counters.moved_total``), as ``FileUsageScanner`` reads one
        self.before: tuple[object, Counters] | None = self.latest[-1] if self.latest else None

    def feed(self, total: Counters | None, call: Counters | None, lost: bool = False, garbage: bool = False,
             time: object = None) -> None:
        """``total``: a ``token_count``'s cumulative count; ``call``: its last call's (``lost``:
        an empty one); ``garbage``: the total held no count (``counters.total_counters``);
        ``time``: the line's ``timestamp``."""
        self.last, self.carried, call = step(self.last, self.carried, total, call, None if garbage else self.seen,
                                             lost)
        if call is not None:
            self.before = (time, call)
        if call is not None and self.recount is not None:
            if isinstance(time, str):
                if (key := (time, call)) in self._keys:
                    return
                self._keys.add(key)
                self.latest.append(key)
            self.recount = spent_on(self.recount, call)

    @property
    def cumulative(self) -> Counters | None:
        if self.recount is not None:
            return self.recount
        return None if self.last is None else add(self.carried, self.last)


class _Garbled(Exception):
    """A read that keeps no ``recount`` met a total of garbage: read again from the start."""


def _kept(path: Path, ctx: ScanContext, size_now: int, mtime_now: int,
          previous: bool = False) -> tuple[int, _Runs, bool] | None:
    """Where the last read stopped, the counts it had reached, and whether the file is unchanged
    since; ``None``: none kept, a damaged one, or a file rewritten since.  ``previous``: a
    state of ``_PREVIOUS`` without a ``recount`` is taken too."""
    state = ctx.file_cache.get_file(str(path), KIND)
    if state is None:
        return None
    size, mtime_ns, version, head, offset, blob = state
    if not (version == VERSION or (previous and version in _PREVIOUS)) or size_now < size or type(offset) is not int:
        return None
    try:
        document = orjson.loads(blob)
        if version in _PREVIOUS and document.get("recount") is not None:
            return None  # (the one build that kept one added it up another way)
        last = None if document["last"] is None else kept_counters(document["last"])
        carried = kept_counters(document["carried"], signed=True)
        recount = None if document.get("recount") is None else kept_counters(document["recount"])
        seen = tuple(kept_counters(value) for value in document.get("seen", ()))
        keys = kept_keys(document.get("keys", []))
    except (orjson.JSONDecodeError, TypeError, KeyError, AttributeError):
        return None  # a damaged value is no value
    if last is None and recount is None:
        # No running total read: a build before counted a file of calls with none (``last_token_usage``
        # alone: ``counters.unsummed``) as nothing.  Read again (a file of no call at all, each time it changes).
        return None
    if head_digest(path, size) != head:
        return None
    return offset, _Runs(last, carried, recount, seen, keys), size_now == size and mtime_now == mtime_ns


def _read(path: Path, ctx: ScanContext, runs: _Runs, start: int) -> ScanProgress:
    """``runs`` fed the ``token_count`` lines from ``start``; ``_Garbled`` when one's total
    is garbage and ``runs`` keeps no ``recount`` (its totals were taken for a running count)."""
    progress = ScanProgress()
    for _, record in matching_records(path, ctx, _MARKER, progress, start=start):
        info = token_info(record) or {}
        raw_last = info.get("last_token_usage")
        last = counters_of(raw_last)
        total, garbage = total_counters(info.get("total_token_usage"), runs.last, last,
                                        repeated(record.get("timestamp"), last, runs.before))
        if (garbage or unsummed(total, last) or jumped(runs.last, total, last)) and runs.recount is None:
            raise _Garbled
        runs.feed(total, last, raw_last == {}, garbage, record.get("timestamp"))
    return progress


class WholeCount(NamedTuple):
    """What ``whole_count`` found (a named tuple: see ``cli.term.Terminal``)."""

    known: bool = False  # the file's whole count is known (``False``: only the window's is)
    cumulative: Counters | None = None  # that count (``None``: the file has none)
    #: the file's totals are garbage: ``cumulative`` is its calls added up (``_Runs.recount``)
    garbled: bool = False


_UNKNOWN = WholeCount()


def whole_count(path: Path, ctx: ScanContext, *, garbled_window: bool = False) -> WholeCount:
    """The file's whole cumulative count, when it can be known.  Read (and kept) only with
    agentscan's index open.  Its warnings are left to the passes that read the file (the
    row's window says its own), but one that says the file could not be read this time is
    said, and then the count is not known.  ``garbled_window``: the row's window held a
    total of garbage (a state of the build before is then not taken: ``_PREVIOUS``)."""
    if ctx.file_cache is None or path.name.endswith(".zst"):
        return _UNKNOWN
    try:
        stat = os.stat(path)
    except OSError:
        return _UNKNOWN
    previous = stat.st_size > MAX_READ_BYTES and not garbled_window
    kept = _kept(path, ctx, stat.st_size, stat.st_mtime_ns, previous)
    start, runs = 0, _Runs()
    if kept is not None:
        start, runs, unchanged = kept
        if unchanged:
            return WholeCount(True, runs.cumulative, runs.recount is not None)
    if stat.st_size - start > MAX_READ_BYTES:
        return _UNKNOWN
    with ctx.held_warnings() as held:
        try:
            progress = _read(path, ctx, runs, start)
        except _Garbled:
            # The calls before were taken by their totals: all are added up again, from the
            # first line (a file of garbage totals only, read twice so that no other pays
            # for adding up each call).
            if stat.st_size > MAX_READ_BYTES:
                return _UNKNOWN
            runs = _Runs(recount=ZERO)
            progress = _read(path, ctx, runs, 0)
    passing = [said for said in held.said if said[3]]
    if passing:
        say(ctx, passing)
        return _UNKNOWN
    # The last line, if not finished yet, is read again next time: its count is then the
    # one reached, which adds nothing.
    head = head_digest(path, progress.complete_offset)
    if head is not None and progress.complete_offset > 0:
        kept_runs: dict = {"last": runs.last, "carried": runs.carried, "seen": list(runs.seen)}
        if runs.recount is not None:
            kept_runs.update(recount=runs.recount, keys=list(runs.latest))
        document = orjson.dumps(kept_runs)
        ctx.file_cache.put_file(str(path), KIND, progress.complete_offset, stat.st_mtime_ns, VERSION, head,
                                progress.complete_offset, document)
    return WholeCount(True, runs.cumulative, runs.recount is not None)
