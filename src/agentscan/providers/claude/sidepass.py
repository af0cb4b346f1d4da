"""A huge transcript's token sums, added up on the second core.

A row pass over a main transcript (``row.summarize``) feeds each record to
three consumers: the row's facts (``FileSummary``), the windowed token sums
(``WindowedTotals``) and, for a transcript ``show`` reads from its end, the
show facts (``ShowFacts``).  Each sees every record in file order and the
sums depend on nothing else, so for a transcript of ``SPLIT_BYTES`` or more
a forked helper (``helperproc.Helper``) reads the file too and adds up the sums
while this process feeds the other two: a first ``show`` of a 1 GB
transcript took ≈ 15-19 s, every consumer after the other on each record.
The show facts stay here: they reuse what the row's facts read of each
record (its blocks, its prompt text), and fed on their own in the helper
they made it the slower side by a third.

The helper hands back the totals whole (the window's calls and the settled
hashes, ``WindowedTotals.packed``) only when something still needs them: a
subagent's calls that join the session's totals after the main transcript,
or a resume state that keeps them (``rowresume``).  Otherwise it hands back
their sums alone (``WindowedTotals.settled``): taking back the whole was a
third of this process's peak memory for a 1 GB transcript.

What the helper read must be what this process read: it answers with the
records and lines it read and where its last complete line ended, and its
sums stand only when those are this pass's and the file is the same one,
at most appended to (an agent at work in the session).  Anything else (no
fork, a helper gone, an answer that does not read back, a file replaced or
cut, a helper that read lines appended after this pass's end) is a second
pass here, silent (this pass
said its warnings) and over the records this pass read only, so the
outcome is that of the one pass.  Only what cannot be read
again differs: a file rewritten in place or replaced during the pass (its
sums are the new bytes'), and a read that fails the second time (the file
gone, an I/O error: said, as passing, so that nothing of it is kept).  The
helper opens no database and says nothing.

This process's pass reads a call's usage only until the row knows the session
has some, so its usage values that are no count (``valuewarnings``) are the
helper's: it met every call's.  Its times are this pass's (it reads every
record's).  The two are said as one pass's, when the sums are taken (``take``).
"""

from __future__ import annotations

import os
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from agentscan.context import ScanContext, say
from agentscan.toolkit.jsonl import ReadProgress, iter_json_lines
from agentscan.toolkit.valuewarnings import TIME, USAGE, ValueCounts

if TYPE_CHECKING:
    from agentscan.providers.claude.filesummary import FileSummary
    from agentscan.providers.claude.windowed import WindowedTotals
    from agentscan.toolkit.helperproc import Helper

#: a main transcript this large is read on two cores (below it a fork costs more than it saves)
SPLIT_BYTES = 64 * 1024 * 1024


class SidePass:
    """The helper adding up a transcript's sums while this process reads its row."""

    def __init__(self, path: Path, ctx: ScanContext, before: os.stat_result, stable: bool, whole: bool) -> None:
        self._path, self._ctx, self._before, self._stable, self._whole = path, ctx, before, stable, whole
        self._helper: Helper | None = None

    @classmethod
    def worth_it(cls, path: Path, ctx: ScanContext, before: os.stat_result | None, stable: bool, *,
                 whole: bool = True) -> SidePass | None:
        """A side pass over ``path`` (its sums hashed ``stable``, as ``WindowedTotals``), not
        started yet; ``None``: the file is too small, or there is no second core free.
        ``whole``: the totals are taken back whole, window and settled hashes, for calls that
        will join them (a subagent's) or a resume state that keeps them; else their sums only
        (``WindowedTotals.settled``)."""
        from agentscan.toolkit import cores

        if before is None or before.st_size < SPLIT_BYTES or not cores.usable_workers() or cores.busy():
            return None  # (busy: rows read here while workers read others, ``rowbuild``: no core is free)
        return cls(path, ctx, before, stable, whole)

    def start(self) -> None:
        """Fork the helper: called inside the caller's ``try``/``finally: stop()``, so that
        a Ctrl-C however soon after the fork still stops it.  No helper (no fork): ``take``
        adds the sums up here."""
        from agentscan.toolkit.helperproc import Helper, HelperGone

        path, stable, ctx, whole = self._path, self._stable, self._ctx, self._whole

        def serve(_: object) -> tuple[tuple[bytes, bytes] | bytes, int, int, int, list]:
            # A context of its own: no index.
            totals, records, offset, lines, values = side_pass(path, ctx.for_worker(), stable)
            return totals.packed() if whole else totals.settled(), records, offset, lines, values.to_parts()

        # Known before it is forked: ``stop`` stops it from then on (``Helper.start`` notes
        # its pid before a Ctrl-C held back across the fork is raised).
        helper = self._helper = Helper(lambda: None, serve, start=False)
        try:
            helper.start()
            helper.send("sums")  # not ``None``: that ends a helper
        except (OSError, HelperGone):
            self.stop()

    def stop(self) -> None:
        if self._helper is not None:
            self._helper.stop()
            self._helper = None

    def take(self, main: FileSummary, progress: ReadProgress) -> WindowedTotals:
        """The sums of the records this pass read (``main``, ``progress``): the helper's when
        it read the same, else a second pass here, silent but for a read that failed where
        this pass's did not.  The bad values both met are said then, as one pass's (this
        pass, ``row.summarize`` without totals, leaves them in ``progress.values``)."""
        totals, values = self._sums(main, progress)
        progress.values = _usage_from(progress.values, values)
        progress.values.say(self._ctx, self._path)
        return totals

    def _sums(self, main: FileSummary, progress: ReadProgress) -> tuple[WindowedTotals, ValueCounts]:
        from agentscan.providers.claude.windowed import WindowedTotals
        from agentscan.toolkit.helperproc import last_answer

        answer = last_answer(self._helper)
        self._helper = None
        read_here = (main.records, progress.complete_offset, progress.lines)
        if answer is not None and tuple(answer[1:4]) == read_here and only_appended(self._path, self._before):
            try:
                values = ValueCounts.from_parts(answer[4])
                if self._whole:
                    return WindowedTotals.unpacked(answer[0], stable=self._stable), values
                return WindowedTotals.from_settled(answer[0], stable=self._stable), values
            except (ValueError, TypeError, KeyError, IndexError):
                pass  # an answer that does not read back (the helper's bug): no reason to lose the session
        # Only the records this pass read: lines an agent appended since it reached the
        # end of the file are not among its row's (nor would the one pass have read them).
        with self._ctx.held_warnings() as held:  # said by this process's pass already
            totals, _, _, _, values = side_pass(self._path, self._ctx, self._stable, limit=main.records)
        # But for what this pass did not meet (an I/O error, the file gone): the sums are
        # then of part of what it read, and nothing of this pass may be kept (``passing``).
        say(self._ctx, [said for said in held.said if said[3]])
        return totals, values


def _usage_from(here: ValueCounts, helper: ValueCounts) -> ValueCounts:
    """``here``'s counts (this pass's, which met every time) with the usage values ``helper``'s
    (the side pass's, which met every call's), the kinds in the order one pass would have met
    them (a time before a usage value of its line: a reader reads a record's time first)."""
    def chosen(mine: dict[str, list], theirs: dict[str, list]) -> dict[str, list]:
        found = {kind: list(entry) for kind, entry in mine.items() if kind != USAGE}
        if USAGE in theirs:
            found[USAGE] = list(theirs[USAGE])
        return dict(sorted(found.items(), key=lambda item: (item[1][1] is None, item[1][1] or 0, item[0] != TIME)))

    return ValueCounts(chosen(here.complete, helper.complete), chosen(here.tail, helper.tail))


def only_appended(path: Path, before: os.stat_result) -> bool:
    """Whether ``path`` is still the file ``before`` describes, or it has grown: transcripts are
    appended to, so two reads that ended at the same record of it read the same bytes
    (an agent writing to the session as it is shown is the common case, not a rare one)."""
    from agentscan.toolkit.fsutil import stat_now

    now = stat_now(path)
    return now is not None and (now.st_dev, now.st_ino) == (before.st_dev, before.st_ino) and now.st_size >= before.st_size


def side_pass(path: Path, ctx: ScanContext, stable: bool, *, limit: int | None = None
              ) -> tuple[WindowedTotals, int, int, int, ValueCounts]:
    """What ``row.summarize`` gives its ``totals`` over ``path``, read whole (or its first
    ``limit`` records): the sums, and the records, complete offset and lines it read (as
    ``summarize`` counts them), and the bad values its calls held (unsaid)."""
    from agentscan.providers.claude.sidechains import InlineRuns
    from agentscan.providers.claude.usage import Advisors, call_of
    from agentscan.providers.claude.windowed import WindowedTotals

    totals = WindowedTotals(stable=stable)
    progress = ReadProgress()
    records = 0
    add = totals.add
    runs = InlineRuns()  # the subagent runs written inline, named as ``summarize`` names them
    advisors = Advisors()
    try:
        if limit == 0 or path.stat().st_size == 0:
            return totals, 0, 0, 0, ValueCounts()
    except OSError as exc:
        ctx.cannot_read(path, exc)
        return totals, 0, 0, 0, ValueCounts()
    with closing(iter_json_lines(path, ctx, progress=progress, tell_values=False)) as lines:
        for line in lines:
            record = line.record
            records += 1
            kind = record.get("type")
            run = (runs.run_of(record) if (kind == "assistant" or kind == "user") and record.get("isSidechain") is True
                   else None)
            if run is not None:
                call = call_of(record, run, records, advisors=advisors) if kind == "assistant" else None
                if call is not None:
                    add(call)
                    if advisors:
                        advisors.drain(add)
            elif kind == "assistant" or kind == "progress":  # as ``summarize`` feeds its totals
                call = call_of(record, None, records, advisors=advisors)
                if call is not None:
                    add(call)
                    if advisors:
                        advisors.drain(add)
            if records == limit:
                break
    return totals, records, progress.complete_offset, progress.lines, progress.values
