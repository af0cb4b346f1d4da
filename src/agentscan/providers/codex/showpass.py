"""The pass ``show`` makes over a Codex session: one read of each of its threads' files
feeds both the conversation (``detail.TranscriptReader``) and the call counter
(``callscan.FileUsageScanner``); the detail is built once every thread is read.

The provider hands each thread's files in and the session's calls, counted once
(``owncalls.own_calls``, which ``usage`` shares), back: this module is ``show``'s
alone, imported by the provider's ``detail``, so ``list`` and ``tokens`` load none of it.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from agentscan.context import ScanContext
from agentscan.detailmodel import SubagentInfo
from agentscan.model import Counts, sum_usage
from agentscan.pricing.aliases import service_tier_of
from agentscan.providers.codex.callscan import FileUsageScanner
from agentscan.providers.codex.detail import TranscriptReader
from agentscan.providers.codex.header import first_file_reading, thread_header
from agentscan.providers.codex.facts import LineFacts
from agentscan.providers.codex.forkpart import ForkPart, fork_part
from agentscan.providers.codex.fullcounts import remember
from agentscan.providers.codex.goneparent import parent_found
from agentscan.providers.codex.goneshow import GoneParent, gone_parent
from agentscan.providers.codex.lineage import SourceNote, forks_extra
from agentscan.providers.codex.messages import add_kind, counts_of, line_kind
from agentscan.providers.codex.headtail import TailSummary
from agentscan.providers.codex.modeluse import ModelUse, merge, model_use, most_used
from agentscan.providers.codex.row import assemble_row, session_head
from agentscan.providers.codex.threadfacts import ThreadFacts, child_kind
from agentscan.providers.codex.usage import own_start
from agentscan.toolkit.detail import DetailCollector
from agentscan.toolkit.jsonl import ReadProgress, iter_json_lines

if TYPE_CHECKING:
    from agentscan.bounds import Bounds
    from agentscan.detailmodel import SessionDetail, ToolEvent
    from agentscan.model import UsageEntry
    from agentscan.providers.codex.discovery import CodexSession, Thread
    from agentscan.providers.codex.provider import Scanned


class ShowPass:
    """``show``'s read of one session: ``read_thread`` each of its threads (the main one,
    then its subagents, as ``CodexSession.threads`` gives them), then ``build`` the detail
    from the calls of ``scanned``, deduplicated."""

    def __init__(self, session: CodexSession, ctx: ScanContext, bounds: Bounds) -> None:
        self.session = session
        self.ctx = ctx
        self.collector = DetailCollector(bounds)
        #: each file's scanner, for the provider to count the session's calls from
        self.scanned: list[Scanned] = []
        self.facts: dict[str, ThreadFacts] = {}
        self.turns: dict[str, list[ModelUse]] = {}  # per thread, each file's turns per model
        self.extra_tools: list[ToolEvent] = []
        self.main_reader: TranscriptReader | None = None
        self.fork: ForkPart | None = None  # the main thread's own part, when it is a fork
        self.fork_counts: Counts | None = None  # and its counts, of its live lines (as ``reader``'s)
        #: whether the fork's parent is found (its copied calls count there); else the copy is the
        #: only record of that conversation, listed with the fork's own, whose calls count here
        self.parent_found = True
        #: with the parent gone: where the copy counts, and what of it is listed (``goneshow``)
        self.gone: GoneParent | None = None
        #: how Codex was run (``codex exec``, …): the main thread's own meta says (``lineage``)
        self.source = SourceNote(session.main.thread_id) if session.main is not None else None

    def read_thread(self, thread: Thread, files: list[tuple[Path, int | None]]) -> None:
        """Read ``thread``'s ``files`` (in history order, each with the bytes of it the live
        conversation uses, ``None``: all): one pass per file feeds both the conversation
        and the call counter."""
        session, ctx = self.session, self.ctx
        subagent = None if thread is session.main else thread.thread_id
        header = thread_header(thread, ctx)
        reader = TranscriptReader(self.collector, subagent=subagent, conversation=session.main is None,
                                  facts=LineFacts(thread.thread_id))
        for path, live_bytes in files:
            replay, referenced = first_file_reading(thread, header, path)
            scanner = FileUsageScanner(replay=replay, started=header.started_at, thread_id=thread.thread_id,
                                       history_start=header.history_start, referenced=referenced)
            # A subagent's copy of its parent's history (``fork_context``) is the parent's
            # conversation, shown there: its own starts with the task it was given.  So is a
            # fork's: its own part starts after the copy, as its tokens' and counts' (``forkpart``).
            own_from = own_start(path, ctx, header.started_at, header.history_start) \
                if replay and subagent and session.main else 0
            fork = fork_part(path, ctx, header.link, header.started_at, thread.thread_id) \
                if replay and subagent is None and not thread.segments and header.history_base is None else None
            if fork is not None:
                self.fork, self.parent_found = fork, parent_found(fork.parent, ctx)
                # With the parent gone, the copy's conversation is listed too (as its calls
                # count here: ``goneparent``), but for the part of a thread up the chain that
                # is found (its own show lists it); the counts stay the own part's, as the row's.
                own_from = fork.start
                if not self.parent_found:
                    self.gone = gone_parent(thread, fork.parent, path, ctx)
                    own_from = self.gone.listed_from
            #: a fork's own live lines' kinds: its counts (the file's, in the tally ``remember`` keeps)
            own_kinds: dict[str, int] | None = {} if fork is not None else None
            source = self.source if subagent is None and self.source is not None and not self.source.found else None
            progress = ReadProgress()
            with closing(iter_json_lines(path, ctx, progress=progress)) as lines:
                for line in lines:
                    if source is not None:
                        source.note(line.record)
                    if line.offset < own_from:
                        reader.facts.note(line.record)
                    # A reverted segment's calls were billed, but its tail is
                    # not part of the live conversation.
                    elif live_bytes is None or line.offset < live_bytes:
                        reader.feed(line.record)
                        if own_kinds is not None and fork is not None and line.offset >= fork.start:
                            kind = line_kind(line.record)
                            if kind is not None:
                                add_kind(own_kinds, kind)
                    else:
                        # A rollback does not undo a rename in Codex: the thread keeps the
                        # name (``list`` reads it there too, in each file's window).
                        reader.facts.note_rename(line.record)
                    scanner.feed(line.record)
            if not thread.segments:
                remember(path, ctx, reader.facts.kinds, progress, scanner.model_use(), scanner.position,
                         scanner.copy_end(), recount=scanner.recount)
            if own_kinds is not None:
                self.fork_counts = counts_of(own_kinds)
            self.scanned.append((session.native_id, subagent, thread, scanner))
            self.turns.setdefault(thread.thread_id, []).append(scanner.model_use(()))
        self.extra_tools.extend(reader.finish())
        # With the parent gone, the first subagent speaks for the session.
        if subagent is None or (session.main is None and self.main_reader is None):
            self.main_reader = reader
        counts = self.fork_counts if self.fork_counts is not None and subagent is None else reader.counts()
        seen = TailSummary(last_timestamp=reader.last_ts, counts=counts, whole_file=True,
                           names=reader.facts.thread_names())
        self.facts[thread.thread_id] = ThreadFacts(thread, header, seen, None)

    def build(self, entries: list[UsageEntry]) -> SessionDetail:
        """The detail, its row and its subagents' parts made of ``entries``: the session's
        own calls, counted once (``owncalls.own_calls`` of ``scanned``)."""
        session, ctx, facts = self.session, self.ctx, self.facts
        for thread_id, thread_facts in facts.items():
            # The model of most of the thread's own calls, as ``tokens --by model`` counts them.
            subagent = None if session.main is not None and thread_facts.thread is session.main else thread_id
            calls = model_use((entry.model for entry in entries if entry.subagent == subagent), {})
            use = merge([calls, *self.turns[thread_id]])
            facts[thread_id] = thread_facts._replace(tail=thread_facts.tail._replace(models=use))
        row = assemble_row(
            session,
            facts[session.main.thread_id] if session.main else None,
            [facts[child.thread_id] for child in session.children],
            session_head(session, ctx, facts[session.main.thread_id].header if session.main else None),
            tokens=sum_usage(entry.tokens for entry in entries),
            exact_tokens=True,
        )
        subagents = tuple(
            SubagentInfo(
                child.thread_id,
                child_kind(child, facts[child.thread_id].header),
                str(child.rollout.path),
                sum_usage(e.tokens for e in entries if e.subagent == child.thread_id),
                # As the row's: the model of most of its calls (``modeluse``), else the index's.
                model=most_used(facts[child.thread_id].tail.models) or (child.indexed.model if child.indexed else None),
            )
            for child in session.children
        )
        collector = self.collector
        rate_limits = self.main_reader.rate_limits if self.main_reader else None
        extra: dict = {"codex": {"rate_limits": rate_limits}} if rate_limits else {}
        # The messages of the main thread's turns a rollback took back (``detail._roll_back``).
        extra["rewound_messages"] = collector.rewound
        extra["errors"] = collector.errors()
        if session.main is None:
            extra["parent_missing"] = True
        if self.fork is not None:
            # What its conversation leaves out: the parent's, up to the fork (``show_text``).
            extra["forked_from"] = f"codex:{self.fork.parent}"
            extra["forked_after_prompts"] = self.fork.copied.prompts
            # Whether its copied calls count there, found here; else here (``goneparent``), and
            # the copy's conversation is listed with its own.
            extra["forked_counted_there"] = self.parent_found
            extra["forked_copies_listed"] = not self.parent_found
            if self.gone is not None:
                # The nearest thread the copy came through that is found keeps its own calls
                # (``ancestry``), and the earlier forks their copies': the card says where.
                if self.gone.through is not None:
                    extra["forked_through"] = f"codex:{self.gone.through}"
                    # (its part of the copy is its own show's to list, when a turn marker tells it)
                    extra["forked_through_listed"] = self.gone.listed_from == 0
                extra["forked_counted_in"] = [{"session": f"codex:{fork}", "forked_from": f"codex:{gone}"}
                                              for fork, gone in self.gone.counted_in]
        # The calls per service tier (``gpt-5.5 (priority)``: ``priority``; the standard one
        # ``default``), when any was on another: the card's cost says how many.
        tiers: dict[str, int] = {}
        for entry in entries:
            tier = (service_tier_of(entry.model)[1] if entry.model else None) or "default"
            tiers[tier] = tiers.get(tier, 0) + 1
        if set(tiers) - {"default"}:
            extra["service_tiers"] = tiers
        extra["source"] = self.source.source if self.source is not None else None
        extra.update(forks_extra(session, ctx))  # the sessions forked from this one
        return collector.build(row, subagents=subagents, extra_tools=self.extra_tools, extra=extra)


__all__ = ["ShowPass"]
