"""One pass over each of a Claude session's files: its row, its token sums, its detail.

``list`` and ``show`` read a session the same way: the main transcript, then each
subagent's, every record fed to the row's facts (``row.summarize``), the windowed
token sums (``WindowedTotals``, one for the whole session) and, for ``show``, the
detail (``detail.TranscriptStream``).  The main transcript's row pass is the one
that may resume where a kept one stopped (``rowresume``), add its sums up on the
second core (``sidepass``) and gather the facts a later ``show`` from its end
needs (``showfacts``, ``hugeshow``).  When the scan has just read the session's
sums (``tokens``' table reads every row after the report: ``readsums``),
a row's pass adds up no call: its tokens come from those sums.  Imported by the
provider's ``row`` and ``detail`` only: a warm run reads no file.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from agentscan.context import ScanContext, say
from agentscan.providers.claude.seenuuids import CopiesUnknown

if TYPE_CHECKING:
    import os

    from agentscan.providers.claude.discovery import SessionFiles
    from agentscan.providers.claude.filesummary import FileSummary
    from agentscan.providers.claude.rowresume import Resumed
    from agentscan.providers.claude.showfacts import ShowFacts
    from agentscan.providers.claude.windowed import WindowedTotals
    from agentscan.toolkit.detail import DetailCollector
    from agentscan.toolkit.jsonl import ReadProgress


def summaries(
    files: SessionFiles, ctx: ScanContext, collector: DetailCollector | None = None, facts: ShowFacts | None = None,
    *, count: bool = True, list_copies: Callable[[str, dict], bool] | None = None,
) -> tuple[FileSummary | None, dict[str, FileSummary], WindowedTotals | None, list]:
    """One pass per file: row facts, token sums, and (for ``show``) the detail, or the
    main transcript's ``facts`` for a later ``show`` from its end.  Not ``count``: the
    caller has the session's sums (``readsums``), and the totals are
    ``None`` unless a resume state kept for the main transcript needs them anyway.
    ``list_copies``: which of a resumed session's copies the detail lists too, by the session
    each names (``resumedshow``)."""
    with _cycle_collector_paused():
        return _summarize_files(files, ctx, collector, facts, count, list_copies)


def _summarize_files(files: SessionFiles, ctx: ScanContext, collector: DetailCollector | None,
                     facts: ShowFacts | None, count: bool, list_copies: Callable[[str, dict], bool] | None = None,
                     ) -> tuple[FileSummary | None, dict[str, FileSummary], WindowedTotals | None, list]:
    from agentscan.providers.claude.row import summarize
    from agentscan.providers.claude.windowed import WindowedTotals

    if collector is not None:
        # Only ``show`` builds a detail: a row's pass (``list``, a grown session's ``tokens``
        # table row) does without the detail model's 15 classes.
        from agentscan.providers.claude.detail import TranscriptStream
    totals: WindowedTotals | None = WindowedTotals() if count else None
    order = 0
    main = None
    subagent_tools: list = []
    if files.main is not None and collector is None:
        main, totals = _main_row_pass(files.main, ctx, facts, more_follow=bool(files.subagents), count=count)
        order = main.records
    elif files.main is not None and collector is not None:
        # (The subagents without a transcript of their own: their calls are the parent's records.)
        # (A resumed session's copies listed: counted apart, the card's counts being its own.)
        main_stream = TranscriptStream(collector, transcripts=files.subagents,
                                       own_session=files.native_id if list_copies is not None else None)
        # Claude Code's own count of the session, in this same pass (``coststate``).
        from agentscan.providers.claude.coststate import CostStates

        collector.reported = CostStates(files.native_id, files.main, ctx)
        main = summarize(files.main, ctx, totals=totals, observer=collector.reported.feeding(main_stream.feed),
                         list_copies=list_copies)
        subagent_tools.extend(main_stream.finish())
        order = main.records
    subs: dict[str, FileSummary] = {}
    for agent_id, sub in sorted(files.subagents.items()):
        stream = TranscriptStream(collector, subagent=agent_id, conversation=main is None) if collector is not None else None
        observer = stream.feed if stream else None
        if stream is not None and collector is not None and collector.reported is not None:
            observer = collector.reported.feeding(stream.feed, subagent=True)  # (a background run's later call)
        summary = summarize(sub.path, ctx, subagent=agent_id, order_start=order, totals=totals, observer=observer)
        if stream is not None:
            subagent_tools.extend(stream.finish())
        order += summary.records + 1
        subs[agent_id] = summary
    return main, subs, totals, subagent_tools


def _main_row_pass(path: Path, ctx: ScanContext, facts: ShowFacts | None, *,
                   more_follow: bool, count: bool = True) -> tuple[FileSummary, WindowedTotals | None]:
    """The main transcript's row pass, from where a kept one stopped when it can (``rowresume``).
    ``more_follow``: other files' calls (the subagents') join its totals after it.  Not
    ``count``: no totals (``None``), unless a resume state is kept (it holds them)."""
    from agentscan.providers.claude import rowresume, sidepass
    from agentscan.providers.claude.row import summarize
    from agentscan.toolkit.fsutil import stat_now

    before = stat_now(path)  # the file as this pass finds it, not as discovery did
    keeping = rowresume.worth_keeping(path, before, ctx)
    if not count and not keeping and facts is None:
        # Only the row's facts: adding up every call was a quarter of the pass.
        return summarize(path, ctx), None
    resumed = rowresume.load(ctx, path, before, facts) if keeping and before is not None else None
    halves = None
    if (resumed is None and not keeping and not more_follow and before is not None
            and before.st_size >= sidepass.SPLIT_BYTES):
        from agentscan.providers.claude.halves import Halves

        halves = Halves.worth_it(path, ctx, before)
    totals: WindowedTotals | None
    if halves is not None:
        # Sums alone taken back, no state kept: read by halves, one on each core (``halves``).
        try:
            main, half_totals, progress = halves.first_half(facts)
            main, totals = halves.join(main, half_totals, facts, progress)
        finally:
            halves.stop()
    else:
        try:
            main, totals, progress = _one_row_pass(path, ctx, facts, before, keeping, resumed, more_follow)
        except CopiesUnknown:
            # A record that may copy one the kept state read (its uuids are not kept: ``seenuuids``).
            if facts is not None:
                facts.reset()
            main, totals, progress = _one_row_pass(path, ctx, facts, before, keeping, None, more_follow)
    if facts is not None:
        facts.finish()
        facts.lines = progress.lines
    return main, totals


def _one_row_pass(path: Path, ctx: ScanContext, facts: ShowFacts | None, before: os.stat_result | None,
                  keeping: bool, resumed: Resumed | None, more_follow: bool
                  ) -> tuple[FileSummary, WindowedTotals | None, ReadProgress]:
    """The main transcript read in one pass here, its sums on the second core for a huge one
    (``sidepass``), going on from a resume state and keeping one when ``keeping``."""
    from agentscan.providers.claude import rowresume
    from agentscan.providers.claude.row import summarize
    from agentscan.providers.claude.sidepass import SidePass
    from agentscan.providers.claude.windowed import WindowedTotals
    from agentscan.toolkit.jsonl import ReadProgress

    side = None
    with ctx.warnings.capture() as captured:
        if resumed is not None:
            # Held until the pass ends: one that meets a copy it cannot tell (``CopiesUnknown``)
            # is read again whole, and says them then.
            with ctx.held_warnings() as held:
                resumed.replay(ctx, path)
                totals, progress = resumed.totals, resumed.progress()
                main = summarize(path, ctx, totals=totals, progress=progress, facts=facts, resumed=resumed.summary)
            say(ctx, held.said)
        else:
            # Hashes that outlive the process only for a pass whose state is kept (``windowed``).
            totals, progress = WindowedTotals(stable=keeping), ReadProgress()
            # A huge one: sums on the second core, taken back whole only for what still needs
            # the window and the settled hashes (calls joining them, a resume state).
            side = SidePass.worth_it(path, ctx, before, keeping, whole=keeping or more_follow)
            try:
                if side is not None:
                    side.start()
                # (Its bad values are said with the side pass's, which meets every call's: ``take``.)
                main = summarize(path, ctx, totals=totals if side is None else None, progress=progress, facts=facts,
                                 tell_values=side is None)
                if side is not None:
                    totals = side.take(main, progress)
            finally:
                if side is not None:
                    side.stop()
    if keeping and before is not None:
        from agentscan.providers.claude.titles import settle_summaries

        # Its summaries told against the bytes before them first (``lateleaves``): kept pending,
        # every run after an append would scan them again (those bytes never change).
        settle_summaries(main, path)
        # Before the subagents' calls join the totals and before ``finish`` closes the open reply.
        rowresume.keep(ctx, path, before, progress, captured, main, totals, facts, resumed)
    return main, totals, progress


@contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    """A row pass allocates millions of short-lived dicts that hold no cycles: the
    cycle collector's passes over the growing heap found nothing and cost seconds
    on a 1 GB transcript (everything is still freed by reference counting)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
