"""What a row knows of one Codex thread (``ThreadFacts``): its header, its tail's
counts and its own tokens.  Split from ``row``, which merges threads with the index.

Tokens come from the latest cumulative ``total_token_usage`` in the tail of
each of the session's rollouts (its subagents' included): for one thread the
cumulative total equals the sum of its calls, and re-emitted counts cannot
inflate it.  A count that restarted (an older build resuming the thread) adds
the run it ended: in a file larger than its window, where the window cannot
see one, the whole file's count comes from its tally or ``runs``.  A fork or
a subagent that began with a copy of its parent's
history starts its cumulative count from the parent's, so the count the copy
ended with is subtracted: found within the first ``REPLAY_HEAD_BYTES``, else
in the tally a whole pass kept, else the file is read whole as ``tokens``
reads it (a fork of a long session: rare, and that pass keeps the tally).
"""

from __future__ import annotations

from pathlib import Path
from typing import Collection, Iterable, NamedTuple

from agentscan.context import ScanContext
from agentscan.model import Counts, TokenUsage, sum_usage
from agentscan.providers.codex.discovery import CodexSession, Thread
from agentscan.providers.codex.header import RolloutHeader, by_reference, thread_header
from agentscan.providers.codex.counters import minus, to_tokens
from agentscan.providers.codex.forkpart import fork_part, is_fork
from agentscan.providers.codex.fullcounts import exact_tally
from agentscan.providers.codex.goneparent import copies_count_here, past_earlier_fork
from agentscan.providers.codex.headtail import TailSummary, tail_summary
from agentscan.providers.codex.modeluse import ModelUse, merge, without_calls
from agentscan.providers.codex.names import merged as merged_names
from agentscan.providers.codex import runs as whole_runs
from agentscan.providers.codex.runs import whole_count
from agentscan.providers.codex.usage import (ReplayHead, first_call_base, read_replay_head, read_replay_whole,
                                             read_segment_start)

REPLAY_HEAD_BYTES = 1024 * 1024
#: how far a fork that references its history is searched for its first call (``first_call_base``)
FORK_BASE_BYTES = 64 * 1024 * 1024


class ThreadFacts(NamedTuple):
    """What a row knows of one thread (a named tuple: see ``cli.term.Terminal``)."""

    thread: Thread
    header: RolloutHeader
    tail: TailSummary
    tokens: TokenUsage | None


def child_kind(child: Thread, header: RolloutHeader) -> str | None:
    """A subagent thread's role, as ``show`` names it: its rollout's header's, else the index's."""
    return header.link.agent_type or (child.indexed.agent_type if child.indexed else None)


def child_kinds(session: CodexSession, ctx: ScanContext, runs: Collection[str]) -> dict[str, str]:
    """``child_kind`` of each of ``session``'s child threads among ``runs`` that has one
    (``Provider.subagent_types``): only their headers are read (cached with discovery's)."""
    found: dict[str, str] = {}
    for child in session.children:
        if child.thread_id in runs:
            kind = child_kind(child, thread_header(child, ctx))
            if kind:
                found[child.thread_id] = kind
    return found


def _nonzero(usage: TokenUsage | None) -> TokenUsage | None:
    return usage if usage is not None and usage.total > 0 else None


def _own_facts(thread: Thread, header: RolloutHeader, tail: TailSummary, ctx: ScanContext, copies: bool) -> ThreadFacts:
    """The thread's facts, its own calls told from a copied history's (for the tokens, and for
    the calls per model that name its model); ``copies``: its copied calls count in it too."""
    if not header.link.replays_history or copies:
        return ThreadFacts(thread, header, tail, _nonzero(to_tokens(tail.cumulative)) if tail.cumulative else None)
    link = header.link
    parent = link.forked_from or link.spawn_parent
    if tail.garbled:
        return _garbled_fork(thread, header, tail, parent, ctx)
    head = read_replay_head(thread.rollout.path, ctx, header.started_at, REPLAY_HEAD_BYTES, parent,
                            header.history_start)
    if head.baseline is None and not head.complete:
        # The copied history runs past the head (a fork of a long session): the last
        # cumulative count would be the parent's too.
        head, tail = _past_the_head(thread, header, tail, parent, ctx)
    if head.complete:
        return ThreadFacts(thread, header, tail._replace(models=head.models), _nonzero(head.own))
    if tail.whole_file:
        # The whole file's calls less the copied ones (a larger file's window is past the copy).
        tail = tail._replace(models=without_calls(tail.models, head.models))
    if tail.cumulative is None or head.baseline is None:
        return ThreadFacts(thread, header, tail, None)
    return ThreadFacts(thread, header, tail, _nonzero(to_tokens(minus(tail.cumulative, head.baseline))))


def _garbled_fork(thread: Thread, header: RolloutHeader, tail: TailSummary, parent: str | None,
                  ctx: ScanContext) -> ThreadFacts:
    """Totals of garbage say nowhere where the copy ended: the thread's own calls, read as
    ``tokens`` reads them.  The whole file, on each row built (a rare file: a fork whose totals
    are garbage; no tally keeps its own calls), so no more than ``runs`` reads in one run
    (``tests/test_codex_bounded.py``): past it, the window's calls, and the row says so."""
    path = thread.rollout.path
    size = ctx.stat(path)
    if size is not None and size.st_size > whole_runs.MAX_READ_BYTES:
        window = tail_summary(path, ctx, thread.thread_id)
        spent = window.cumulative if window.garbled else None  # (its calls: else its totals)
        return ThreadFacts(thread, header, tail._replace(whole_file=False), _nonzero(to_tokens(spent)) if spent
                           else None)
    own = _replay_whole(thread, header, parent, ctx)
    return ThreadFacts(thread, header, tail._replace(models=own.models), _nonzero(own.own))


def _past_the_head(
    thread: Thread, header: RolloutHeader, tail: TailSummary, parent: str | None, ctx: ScanContext
) -> tuple[ReplayHead, TailSummary]:
    """Where a copy that runs past the head ended: as the file's tally kept it (it holds as
    the file grows), else from a whole pass, which keeps the tally (with a cache) and so
    gives the whole file's counts too."""
    path = thread.rollout.path
    kept = exact_tally(path, ctx)
    if kept is not None and kept.copy is not None:
        return ReplayHead(baseline=kept.copy.baseline, models=ModelUse(kept.copy.calls)), tail
    head = _replay_whole(thread, header, parent, ctx)
    return head, file_tail(path, ctx, thread.thread_id, whole=False)


def _replay_whole(thread: Thread, header: RolloutHeader, parent: str | None, ctx: ScanContext) -> ReplayHead:
    """``read_replay_whole`` of the thread's file.  A fork's own part is told first (its row
    needs it: ``_fork_counts``): that read of the whole file feeds the scanner this one takes
    (``fullcounts.shared_scanner``), so the file is read once, not twice."""
    if is_fork(header.link):
        fork_part(thread.rollout.path, ctx, header.link, header.started_at, thread.thread_id)
    return read_replay_whole(thread.rollout.path, ctx, header.started_at, thread.thread_id, parent,
                             header.history_start)


def file_tail(path: Path, ctx: ScanContext, own: str, *, whole: bool = True) -> TailSummary:
    """``own``: the id of the thread ``path`` is a file of (``headtail.tail_summary``);
    ``whole``: its count the whole file's (every run's), else the latest run's alone."""
    tail = tail_summary(path, ctx, own)
    if not tail.whole_file:
        # The window saw only the end: a full pass may have left the exact tally.  Not one an
        # older agentscan kept of a file the window shows a 0.145+ build wrote: it missed those
        # messages, or those hosted tool calls (the row says its counts are the window's until
        # a whole pass keeps another).
        exact = exact_tally(path, ctx)
        if exact is not None and not (exact.older and (tail.turn_items or tail.newer_tools)):
            # A tally kept before tallies had models leaves the window's.
            models = exact.models if exact.models is not None else tail.models
            tail = tail._replace(counts=exact.counts, whole_file=True, models=models)
            if exact.counted and (not exact.previous or _past_the_budget(path, tail, ctx)):
                tail = tail._replace(cumulative=exact.cumulative if whole else exact.run_total, whole_count=whole,
                                     garbled=exact.garbled)
            elif exact.garbled:
                tail = tail._replace(garbage_kept=True)
    return tail


def _past_the_budget(path: Path, tail: TailSummary, ctx: ScanContext) -> bool:
    """Whether the count of a tally the build before kept (``fullcounts.Tally.previous``) is
    taken: as ``runs`` takes that build's state, for a file it cannot read in one run whose
    window shows no garbage (that build counted as ``counters.step`` does a file of counts whose
    totals never went down: ``fullcounts._PREVIOUS``).
    A file within the budget is read by ``runs`` instead, once (its state is kept)."""
    size = ctx.stat(path)
    return not tail.garbled and size is not None and size.st_size > whole_runs.MAX_READ_BYTES


def _whole_count(path: Path, tail: TailSummary, ctx: ScanContext) -> TailSummary:
    """``tail`` with the file's whole cumulative count when its window cut the file and no tally
    gave it: a count that restarted before the window (``runs``) is part of the file's."""
    if tail.whole_count:
        return tail
    garbage = tail.garbled or tail.garbage_kept
    found = whole_count(path, ctx, garbled_window=garbage)
    if found.known:
        return tail._replace(cumulative=found.cumulative, whole_count=True, garbled=found.garbled)
    # The count is the window's.  Of totals of garbage, the calls before it are missing: no
    # estimate of the file's count, so the row says it read only a part (a ``tokens`` that keeps
    # a counted tally repairs it: ``wants_refresh``).  Of a file of counts it is the file's
    # unless a run restarted before the window (a known limit, ``docs/providers/codex.md``):
    # not marked partial, which would build the row again on every ``list`` until a whole pass
    # keeps a tally (in this process, or in a worker whose write the parent makes: ``usageparse``).
    return tail._replace(whole_file=False) if garbage else tail


def thread_facts(thread: Thread, ctx: ScanContext) -> ThreadFacts:
    header = thread_header(thread, ctx)
    # A fork's (or a subagent's) own part is its latest run's count less where its copy
    # ended, both runs' counts: the whole file's count would hold the copy's earlier runs.
    copies = copies_count_here(header.link, ctx)  # (a fork of a gone parent: the whole file's)
    whole = not header.link.replays_history or copies
    tail = file_tail(thread.rollout.path, ctx, thread.thread_id, whole=whole)
    if whole:
        tail = _whole_count(thread.rollout.path, tail, ctx)
    if thread.segments or header.history_base is not None:
        # Several files, or a file that continues one (maybe gone): each
        # file's own part, from the count it starts at.
        return _segmented_facts(thread, header, tail, ctx)
    facts = _own_facts(thread, header, tail, ctx, copies)
    facts = past_earlier_fork(facts, ctx) if copies else facts
    return _fork_counts(facts, ctx) if is_fork(header.link) else facts


def _fork_counts(facts: ThreadFacts, ctx: ScanContext) -> ThreadFacts:
    """A fork's counts: its own part's, as its tokens are (``forkpart``).  A fork too large to
    read whole keeps the counts of its whole file, copied history and all, as any rollout's
    (exact from a kept tally): made partial, its row was built again on every ``list``."""
    thread, header = facts.thread, facts.header
    part = fork_part(thread.rollout.path, ctx, header.link, header.started_at, thread.thread_id)
    if part is not None:
        # Read whole: the counts are exact (a window's would leave the row partial, and
        # rebuilt on the next run).
        return facts._replace(tail=facts.tail._replace(counts=part.counts, whole_file=True))
    return facts


def _segmented_facts(thread: Thread, header: RolloutHeader, live: TailSummary, ctx: ScanContext) -> ThreadFacts:
    """A paginated thread over several files: each file's own part, added up.

    A later file does not copy the history it continues; Codex restores the
    cumulative count instead, so a file's own calls are its last cumulative
    count minus the count before its first call (found in its first 1 MiB).
    Counts add up every file's lines (a reverted branch's turns included).
    """
    tokens: TokenUsage | None = None
    counts: list[Counts] = []
    tails: list[TailSummary] = []
    whole = True
    for segment in thread.segments:
        tail = _whole_count(segment.rollout.path, file_tail(segment.rollout.path, ctx, thread.thread_id), ctx)
        tails.append(tail)
        counts.append(tail.counts)
        whole = whole and tail.whole_file
        tokens = sum_usage([tokens, _segment_tokens(segment.rollout.path, tail, ctx).tokens])
    counts.append(live.counts)
    # (one file that references its history: its base is its first call's, searched for further)
    referenced = by_reference(thread, header)
    own = _segment_tokens(thread.rollout.path, live, ctx, referenced)
    tokens = sum_usage([tokens, own.tokens])
    models = merge(tail.models for tail in [*tails, live])  # every file's calls, as ``show`` counts them
    merged = live._replace(counts=sum_counts(counts), whole_file=whole and live.whole_file and own.based,
                           models=models, names=merged_names(tail.names for tail in [*tails, live]))
    return ThreadFacts(thread, header, merged, _nonzero(tokens))


class _OwnTokens(NamedTuple):
    tokens: TokenUsage | None
    #: the base its running total starts from was found (else the row says its counts are partial)
    based: bool = True


def _segment_tokens(path: Path, tail: TailSummary, ctx: ScanContext, referenced: bool = False) -> _OwnTokens:
    if tail.cumulative is None:
        return _OwnTokens(None)
    if tail.garbled:  # the file's own calls added up already (``TailSummary.garbled``)
        return _OwnTokens(to_tokens(tail.cumulative))
    if referenced:
        # A file that references the history it continues (a fork of 0.158+ builds): its running
        # totals count on from that history's, so its base is its own first call's total less
        # that call, searched for in its bytes however far a tool output put it; the parent's
        # total at ``end_byte_offset`` was read before (``totalseed``) and a compressed, gone or
        # far parent left the row counting that history as the fork's (a review, pass 58:
        # 233,750 for 11,250).
        start, exact = first_call_base(path, ctx, FORK_BASE_BYTES)
        if start is None:
            return _OwnTokens(to_tokens(tail.cumulative), based=False)
        if not exact:
            return _OwnTokens(to_tokens(minus(tail.cumulative, start)), based=False)
    else:
        start = read_segment_start(path, ctx, REPLAY_HEAD_BYTES)
    return _OwnTokens(to_tokens(minus(tail.cumulative, start) if start is not None else tail.cumulative))


def sum_counts(parts: Iterable[Counts]) -> Counts:
    prompts = responses = tools = 0
    for part in parts:
        prompts, responses, tools = prompts + part.prompts, responses + part.responses, tools + part.tool_calls
    return Counts(prompts, responses, tools)

