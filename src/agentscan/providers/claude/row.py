"""One streaming pass over a Claude transcript: the row facts and usage.

It serves ``list`` rows and the row of ``show``; token sums go into a shared
``WindowedTotals`` so that memory stays bounded on a 1 GB transcript (none,
when the caller has them: ``rowpass``).
Nothing here holds more than counters, a small window of recent message
ids, and the few strings a row needs (``filesummary.FileSummary``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from agentscan import progress as reporting
from agentscan.context import EMPTY_FILE, ScanContext
from agentscan.toolkit.jsonl import ReadProgress, iter_json_records
from agentscan.providers.claude.records import AWAY_SUMMARY, as_str
from agentscan.providers.claude.filesummary import FileSummary
from agentscan.providers.claude.recordnotes import NOTES, note_assistant, note_copied_tasks, note_queued_prompt, note_user
from agentscan.providers.claude.resumes import is_copy
from agentscan.providers.claude.seenuuids import copied_calls, copies_before
from agentscan.providers.claude.sidechains import note_inline
from agentscan.providers.claude.titles import note_leaf, note_summary
from agentscan.providers.claude.usage import Advisors, call_of
from agentscan.providers.claude.windowed import WindowedTotals
from agentscan.timeutil import parse_iso

if TYPE_CHECKING:
    from agentscan.providers.claude.showfacts import ShowFacts


def summarize(
    path: Path,
    ctx: ScanContext,
    *,
    subagent: str | None = None,
    order_start: int = 0,
    totals: WindowedTotals | None = None,
    observer: Callable[[dict], None] | None = None,
    progress: ReadProgress | None = None,
    facts: ShowFacts | None = None,
    resumed: FileSummary | None = None,
    end: int | None = None,
    seam: bool = False,
    tell_values: bool = True,
    list_copies: Callable[[str, dict], bool] | None = None,
    loop: Callable[..., FileSummary] | None = None,
    copies_as_own: bool = False,
) -> FileSummary:
    """``observer`` sees every record too (``show`` builds its detail in the same pass);
    ``progress`` learns how many lines were read; ``facts`` gathers what ``show`` of a
    huge transcript needs from all of it (fed from this pass's own reading of each record).
    ``resumed`` is what an earlier pass found in the bytes before ``progress`` (a row's
    resume state, ``rowresume``): only what follows them is read.  ``end``: the pass stops
    there, a line boundary (the first half of a transcript read on two cores: ``halves``).
    ``seam``: the pass begins at a seam, the times before it unknown (the second half: ``halfpass``).
    Not ``tell_values``: the bad values met (``valuewarnings``) are left in ``progress.values``
    for the caller to say, joined with another read's: a half's (``halves``, ``halfpass``),
    a pass without totals beside a side pass (``sidepass``).  ``list_copies``: which of a
    resumed session's copies of other sessions' records are shown to ``observer`` too, by the
    session each names and the record (one that is gone: ``show`` lists them, but for those a
    sibling's card lists: ``resumedshow.HeldCopies``), though they are not this row's.
    ``loop``: the loop specialised for a main transcript's pass with totals and no observer, of
    a session that resumed none (``halfrow.lean_loop``, the same rules: a huge one's halves),
    taken when the pass is such.  ``copies_as_own``: a resumed session's copies are read as its
    own records (what a session of copies alone says of itself: ``copiedhead``)."""
    start, first_line, size = 0, 1, None
    if resumed is not None and progress is not None:
        summary = resumed
        start, first_line = progress.complete_offset, progress.lines + 1
    else:
        summary = FileSummary(path)
        try:
            size = path.stat().st_size
            if size == 0:
                ctx.warn(path, EMPTY_FILE)
                return summary
        except OSError as exc:
            ctx.cannot_read(path, exc)
            return summary
    # A huge transcript's pass takes seconds: say how far it is (on a terminal, ``ctx.progress``).
    read = progress if progress is not None else ReadProgress(start)
    tell = reporting.file_teller(ctx.progress, path, size)
    if tell is not None and end and size:
        # The second half is read on the other core meanwhile, at about this pace: told as
        # the share of the whole file read.
        tell = _scaled(tell, size, end)
    pending_tasks = summary.pending_tasks
    # Only a main transcript holds inline subagent runs: a subagent's own file is all sidechain.
    inline = subagent is None
    # A resumed session's transcript begins with copies of an earlier session's records, each
    # with that session's id: its calls still go to the sums (``tokens`` credits them:
    # ``scan.creditedrows``), but they are not this session's prompts, replies, tool calls,
    # title, start or directory, and ``show`` does not list them again.
    if inline and summary.resumed_from is None and not copies_as_own:
        summary.resumed_from = resumed_from_of(path, ctx)
    own = path.stem if summary.resumed_from is not None else None
    order = order_start + summary.records
    # What every record says (its time, cwd and branch) is noted inline, the times held
    # locally: this runs on every line of every session of a cold table, and a call and
    # four attribute reads a line cost a tenth of the pass.
    first_ts, last_ts, branch, compacted = summary.first_ts, summary.last_ts, summary.git_branch, summary.compacted
    newest_before = None  # ``last_ts`` before the record that last raised it (a compaction's: ``copies_before``)
    # The last time string parsed, and its time: a tool's result, its progress records and the
    # reply's next part are mostly written in the same millisecond, and ``parse_iso`` was 3-5 %
    # of a huge transcript's pass.  (Only a time it took: an implausible one is told each time.)
    same_raw: str | None = None
    same_time = None
    seen = summary.seen
    if seen.upto is None:
        seen.upto = start  # (the uuids are collected from here: ``seenuuids``)
    remember = seen.hashes.append
    # The calls of an advisor a call consulted (``usage.advisor_calls``): only for the sums.
    advisors = Advisors() if totals is not None else None
    if loop is not None and own is None and inline and observer is None and totals is not None and advisors is not None:
        return loop(path, ctx, summary, read, start, first_line, end, tell_values, tell, order, totals, facts, seam,
                    advisors)
    try:
        for record in iter_json_records(path, ctx, start=start, first_line=first_line, progress=read, end=end,
                                        tell_values=tell_values):
            summary.records += 1
            order += 1
            if tell is not None and not summary.records % reporting.TOLD_EVERY:
                tell(read.complete_offset)
            raw = record.get("timestamp")
            if raw is None:
                timestamp = None
            elif raw == same_raw:  # (a string: nothing else equals one)
                timestamp = same_time
            else:
                timestamp = parse_iso(raw)
                if timestamp is not None and raw.__class__ is str:
                    same_raw, same_time = raw, timestamp
            # Dated no later than what a compaction followed: maybe a copy claude-code re-appended
            # (``seenuuids``); the uuids are kept from the first compaction on.
            if compacted is not None and (uuid := record.get("uuid")).__class__ is str:
                key = hash(uuid)
                if timestamp is not None and timestamp < compacted and seen.met(key):
                    summary.copies += 1
                    copied_calls(summary, record, subagent, order, timestamp, totals, advisors)
                    continue
                remember(key)
            if own is not None and is_copy(record, own):
                summary.resumed_copies += 1
                # The last session the copies before its own first record name is the one
                # resumed: a chain A → B → C copies A's records, then B's, at C's head.
                named = record["sessionId"]
                if not summary.own_met:
                    summary.resumed_last = named
                if list_copies is not None and observer is not None and list_copies(named, record):
                    observer(record)
                if summary.summaries:
                    note_leaf(summary, record, read.complete_offset)  # (a summary's leaf may be a copied record)
                note_copied_tasks(summary, record, pending_tasks)
                copied_calls(summary, record, subagent, order, timestamp, totals, advisors)
                continue
            if own is not None and not summary.own_met and record.get("sessionId") == own:
                summary.own_met = True  # (the copies end: ``resumed_last``)
            if observer is not None:
                observer(record)
            raised = False  # (not ``last_ts is timestamp``: the record before may have raised it to this same time)
            # Read once, after the observer (which sees the record as it is): nothing below changes it.
            kind = record.get("type")
            # A recap (``records.is_recap``) is written while the person is away: it dates nothing.
            if timestamp is not None and (kind != "system" or record.get("subtype") != AWAY_SUMMARY):
                if first_ts is None or timestamp < first_ts:
                    first_ts = timestamp
                if last_ts is None or timestamp > last_ts:
                    newest_before, last_ts, raised = last_ts, timestamp, True
            if summary.cwd is None:
                summary.cwd = as_str(record.get("cwd"))
            # The branch the session ended on: a session can switch branches.
            value = record.get("gitBranch")
            if value.__class__ is str and value:  # ``as_str``, inline: every record has one
                branch = value
            if summary.summaries:
                note_leaf(summary, record, read.complete_offset)
            if (inline and record.get("isSidechain") is True and (kind == "assistant" or kind == "user")
                    and note_inline(summary, record, kind, order, timestamp, totals, NOTES)):
                continue
            if kind == "assistant":
                # Without totals (a side pass adds them up: ``sidepass``; or the scan has read
                # the session's sums: ``readsums``) a call matters only until it says the
                # session has usage: a tenth of a 1 GB pass, skipped.
                if totals is not None or not summary.has_usage:
                    # The time just read, not read again (``epoch_of_iso`` is ``parse_iso``'s epoch).
                    call = call_of(record, subagent, order, None if timestamp is None else timestamp.timestamp(),
                                   None, advisors)
                    if call is not None:
                        summary.has_usage = True
                        if totals is not None:
                            totals.add(call)
                            if advisors:
                                advisors.drain(totals.add)
                note_assistant(summary, record, pending_tasks, facts)
            elif kind == "user":
                note_user(summary, record, pending_tasks, facts)
            elif kind == "progress" and totals is not None:
                # Only a copy naming its subagent counts (``usage.progress_call``): most progress
                # records are a tool's output as it ran, a fifth of a long transcript's records.
                data = record.get("data")
                call = call_of(record, subagent, order, advisors=advisors) if isinstance(data, dict) and (
                    "agentId" in data) else None
                if call is not None:
                    totals.add(call)
                    if advisors:
                        advisors.drain(totals.add)
            elif kind == "attachment" and subagent is None:
                note_queued_prompt(summary, record, facts)
            elif kind == "custom-title" and as_str(record.get("customTitle")):
                summary.custom_title = record["customTitle"]
            elif kind == "ai-title" and as_str(record.get("aiTitle")):
                summary.ai_title = record["aiTitle"]
            elif kind == "summary" and as_str(record.get("summary")):
                note_summary(summary, record, read.complete_offset)
            elif kind == "system":
                if facts is not None and record.get("subtype") == "compact_boundary":
                    facts.compaction(record)  # (``show`` from the end marks it: ``hugeshow``)
                if timestamp is not None and record.get("subtype") == "compact_boundary":
                    # (The newest time read before this record: ``newest_before`` if it raised ``last_ts``.)
                    cutoff = copies_before(timestamp, None if seam else newest_before if raised else last_ts)
                    seen.compactions += 1
                    if compacted is None:
                        seen.collect(path, read.complete_offset)  # every uuid before it, this one's too
                        compacted = cutoff
                    elif cutoff > compacted:
                        compacted = cutoff
                if facts is not None:
                    facts.error(record)  # (an API error, a refusal: ``show``'s errors)
            elif kind == "relocated" and as_str(record.get("relocatedCwd")):
                summary.relocated_cwd = record["relocatedCwd"]  # (the session moved: ``sessionrow``)
    finally:
        summary.first_ts, summary.last_ts, summary.git_branch, summary.compacted = first_ts, last_ts, branch, compacted
    return summary


def resumed_from_of(path: Path, ctx: ScanContext) -> str | None:
    """The session the main transcript ``path``'s head names, when it is a resumed session's
    (``resumedfiles.resumed_from``; remembered per file)."""
    from agentscan.providers.claude.resumedfiles import resumed_from

    return resumed_from(path.stem, path, ctx)


def _scaled(tell: Callable[[int], None], size: int, end: int) -> Callable[[int], None]:
    return lambda done: tell(done * size // end)
