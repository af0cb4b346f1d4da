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
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from agentscan.context import ScanContext, say
from agentscan.providers.codex.counters import (ZERO, Counters, add, counters_of, kept_counters, minus, odd_values,
                                               restarted, token_info)
from agentscan.providers.codex.fullcounts import head_digest
from agentscan.toolkit.linescan import ScanProgress, matching_records

KIND = "codex.runs"
VERSION = "1"
#: at most this much of a file is read here in one run (a first ``list`` of a heavy user's
#: newest sessions must not read gigabytes): past it the row keeps the window's count and
#: says so (``counts_partial``) until ``tokens`` or ``show`` read the file whole
MAX_READ_BYTES = 32 * 1024 * 1024
#: the lines that hold a cumulative count
_MARKER = b'"token_count"'


class _Runs:
    """The cumulative counts read so far, added up as ``FileUsageScanner`` adds them (without
    keeping its calls: memory stays bounded whatever the file's size).  Once a total is
    garbage (``garbled``: ``-5``, ``2.5``), the totals are no running count: ``recount`` goes
    on from the count reached with each call as ``tokens`` counts it (``FileUsageScanner
    .recount``), and is the file's count."""

    __slots__ = ("last", "carried", "recount")

    def __init__(self, last: Counters | None = None, carried: Counters = ZERO,
                 recount: Counters | None = None) -> None:
        self.last, self.carried, self.recount = last, carried, recount

    def feed(self, total: Counters | None, call: Counters | None, garbled: bool = False) -> None:
        """``total``: a ``token_count``'s cumulative count; ``call``: its last call's;
        ``garbled``: ``total`` held a value that is no token count."""
        if garbled and self.recount is None:
            self.recount = self.cumulative or ZERO  # (the calls before: the totals counted them)
        if total is not None and total == self.last:
            return  # the same count emitted again
        if self.recount is not None:
            # The call as ``FileUsageScanner._token_count`` takes it.
            delta = call if call is not None else (minus(total, self.last) if total is not None else None)
            if delta is not None and any(delta[:5]):
                self.recount = add(self.recount, delta)
        if total is None:
            return
        if self.last is not None and restarted(total, self.last, call):
            self.carried = add(self.carried, self.last)
        self.last = total

    @property
    def cumulative(self) -> Counters | None:
        if self.recount is not None:
            return self.recount
        return None if self.last is None else add(self.carried, self.last)


def _kept(path: Path, ctx: ScanContext, size_now: int, mtime_now: int) -> tuple[int, _Runs, bool] | None:
    """Where the last read stopped, the counts it had reached, and whether the file is unchanged
    since; ``None``: none kept, a damaged one, or a file rewritten since."""
    state = ctx.file_cache.get_file(str(path), KIND)
    if state is None:
        return None
    size, mtime_ns, version, head, offset, blob = state
    if version != VERSION or size_now < size or type(offset) is not int:
        return None
    try:
        document = orjson.loads(blob)
        last = None if document["last"] is None else kept_counters(document["last"])
        carried = kept_counters(document["carried"])
        recount = None if document.get("recount") is None else kept_counters(document["recount"])
    except (orjson.JSONDecodeError, TypeError, KeyError, AttributeError):
        return None  # a damaged value is no value
    if head_digest(path, size) != head:
        return None
    return offset, _Runs(last, carried, recount), size_now == size and mtime_now == mtime_ns


def whole_count(path: Path, ctx: ScanContext) -> tuple[bool, Counters | None]:
    """Whether the file's whole cumulative count is known, and that count (``None``: the file
    has none).  Read (and kept) only with agentscan's index open.  Its warnings are left to
    the passes that read the file (the row's window says its own), but one that says the file
    could not be read this time is said, and then the count is not known."""
    if ctx.file_cache is None or path.name.endswith(".zst"):
        return False, None
    try:
        stat = os.stat(path)
    except OSError:
        return False, None
    kept = _kept(path, ctx, stat.st_size, stat.st_mtime_ns)
    start, runs = 0, _Runs()
    if kept is not None:
        start, runs, unchanged = kept
        if unchanged:
            return True, runs.cumulative
    if stat.st_size - start > MAX_READ_BYTES:
        return False, None
    progress = ScanProgress()
    with ctx.held_warnings() as held:
        for _, record in matching_records(path, ctx, _MARKER, progress, start=start):
            info = token_info(record) or {}
            odd = odd_values[0]
            total = counters_of(info.get("total_token_usage"))
            runs.feed(total, counters_of(info.get("last_token_usage")), odd_values[0] != odd)
    passing = [said for said in held.said if said[3]]
    if passing:
        say(ctx, passing)
        return False, None
    # The last line, if not finished yet, is read again next time: its count is then the
    # one reached, which adds nothing.
    head = head_digest(path, progress.complete_offset)
    if head is not None and progress.complete_offset > 0:
        kept_runs: dict = {"last": runs.last, "carried": runs.carried}
        if runs.recount is not None:  # (none for a file of counts: the state reads as ever)
            kept_runs["recount"] = runs.recount
        document = orjson.dumps(kept_runs)
        ctx.file_cache.put_file(str(path), KIND, progress.complete_offset, stat.st_mtime_ns, VERSION, head,
                                progress.complete_offset, document)
    return True, runs.cumulative
