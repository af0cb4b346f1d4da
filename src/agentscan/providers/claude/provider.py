"""The Claude Code provider (docs/providers/claude.md).

Only discovery is imported with the provider: a command imports what it runs
(``row``/``detail`` modules for ``list``/``show``, the usage reader for a
``tokens`` that must parse), so a warm run pays for none of them.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator

from agentscan.context import ScanContext
from agentscan.model import SessionRef, SessionRow, UsageEntry
from agentscan.providers.base import Provider
from agentscan.providers.claude.roots import claude_roots
from agentscan.toolkit.roots import Root
from agentscan.digests import blake2b

if TYPE_CHECKING:
    from agentscan.providers.claude.discovery import SessionFiles
    from agentscan.bounds import Bounds
    from agentscan.detailmodel import SessionDetail, SubagentInfo
    from agentscan.model import TokenUsage
    from agentscan.providers.claude.row import FileSummary
    from agentscan.providers.claude.showfacts import ShowFacts
    from agentscan.providers.claude.windowed import WindowedTotals
    from agentscan.toolkit.detail import DetailCollector


#: ``usage`` of many sessions numbers each session's calls above the last one's
SESSION_BITS = 96

#: a main transcript at least this large is shown from its end, with the facts its row's
#: pass keeps (``showfacts``); here, so that a row's cost asks for none of a smaller one
TAIL_MIN_BYTES = 8 * 1024 * 1024


class ClaudeProvider(Provider):
    name = "claude"
    label = "Claude Code"
    env_vars = ("CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME")
    # 3: progress copies of missing subagents, summary titles, last branch, orphan rows
    parser_version = "3"

    def roots(self, ctx: ScanContext) -> list[Root]:
        return claude_roots(ctx)

    def discover(self, ctx: ScanContext) -> list[SessionRef]:
        from agentscan.providers.claude.discovery import discover_sessions

        sessions = discover_sessions(self.roots(ctx), ctx)
        return [
            SessionRef(
                provider=self.name,
                native_id=files.native_id,
                path=files.main,
                recency=files.newest_mtime,
                files=files.paths(),
                hint=files,
                children=tuple(files.subagents),
            )
            for files in sessions.values()
        ]

    def locate(self, native_id: str, path: str | None, ctx: ScanContext) -> SessionRef | None:
        from agentscan.providers.claude.discovery import session_files_at

        if path is None:
            return None
        ctx.confine_to(root.path for root in self.roots(ctx))
        files = session_files_at(Path(path), native_id, ctx)
        if files is None:
            return None
        return SessionRef(self.name, native_id, files.main, files.newest_mtime, files.paths(), files, tuple(files.subagents))

    def fingerprint(self, ref: SessionRef, ctx: ScanContext) -> str | None:
        # Discovery already holds every file's stat, by path string: no system
        # call and no Path work (a heavy user has 10,000+ sessions).
        from agentscan.providers.claude.discovery import SessionFiles

        files = ref.hint
        if not isinstance(files, SessionFiles) or len(files.stats) != len(ref.files):
            return super().fingerprint(ref, ctx)
        return self._fingerprint_of(files.stats)

    def _fingerprint_of(self, stats: dict[str, os.stat_result]) -> str:
        parts = [self.name, self.parser_version]
        for text, stat in sorted(stats.items()) if len(stats) > 1 else stats.items():
            parts.append(f"{text}\0{stat.st_size}\0{stat.st_mtime_ns}\0{stat.st_ino}\0{stat.st_ctime_ns}")
        return blake2b("\n".join(parts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()

    def refreshable_discovery(self, ctx: ScanContext) -> bool:
        # Without copies to choose between and legacy heads to read, a session is its
        # files: its recency is their newest mtime (``discovery.SessionFiles``).
        from agentscan.providers.claude.discovery import CHOSE

        return ctx.memo.get(CHOSE) is False

    def refreshed(self, native_id: str, files: list[str], ctx: ScanContext) -> tuple[float, str] | None:
        stats = {}
        for text in files:
            try:
                stats[text] = os.stat(text)
            except OSError:
                return None
        if not stats:
            return None
        # As ``discovery.SessionFiles.newest_mtime``: never below 0 (a file dated before 1970).
        return max(0.0, *(stat.st_mtime for stat in stats.values())), self._fingerprint_of(stats)

    def known_cwds(self, ctx: ScanContext) -> set[str]:
        from agentscan.providers.claude.discovery import header_cwd

        cwds: set[str] = set()
        for ref in self.discover(ctx):
            if ref.path is not None:
                cwd = header_cwd(ref.path, ctx)
                if cwd:
                    cwds.add(cwd)
        return cwds

    # -- parsing -----------------------------------------------------------

    def _summaries(
        self, ref: SessionRef, ctx: ScanContext, collector: DetailCollector | None = None, facts: ShowFacts | None = None,
    ) -> tuple[FileSummary | None, dict[str, FileSummary], WindowedTotals, list]:
        """One pass per file: row facts, token sums, and (for ``show``) the detail, or the
        main transcript's ``facts`` for a later ``show`` from its end."""
        files: SessionFiles = ref.hint
        with _cycle_collector_paused():
            return self._summarize_files(ref, files, ctx, collector, facts)

    def _summarize_files(self, ref: SessionRef, files: SessionFiles, ctx: ScanContext, collector: DetailCollector | None,
                         facts: ShowFacts | None) -> tuple[FileSummary | None, dict[str, FileSummary], WindowedTotals, list]:
        from agentscan.providers.claude.detail import TranscriptStream
        from agentscan.providers.claude.row import summarize
        from agentscan.providers.claude.windowed import WindowedTotals

        totals = WindowedTotals()
        order = 0
        main = None
        subagent_tools: list = []
        if files.main is not None and collector is None:
            main, totals = self._main_row_pass(files.main, ctx, facts)
            order = main.records
        elif files.main is not None and collector is not None:
            main_stream = TranscriptStream(collector)
            main = summarize(files.main, ctx, totals=totals, observer=main_stream.feed)
            main_stream.finish()
            order = main.records
        subs: dict[str, FileSummary] = {}
        for agent_id, sub in sorted(files.subagents.items()):
            stream = TranscriptStream(collector, subagent=agent_id, conversation=main is None) if collector is not None else None
            summary = summarize(sub.path, ctx, subagent=agent_id, order_start=order, totals=totals,
                                observer=stream.feed if stream else None)
            if stream is not None:
                subagent_tools.extend(stream.finish())
            order += summary.records + 1
            subs[agent_id] = summary
        return main, subs, totals, subagent_tools

    def _main_row_pass(self, path: Path, ctx: ScanContext, facts: ShowFacts | None) -> tuple[FileSummary, WindowedTotals]:
        """The main transcript's row pass, from where a kept one stopped when it can (``rowresume``)."""
        from agentscan.providers.claude import rowresume
        from agentscan.providers.claude.row import summarize
        from agentscan.providers.claude.sidepass import SidePass
        from agentscan.providers.claude.windowed import WindowedTotals
        from agentscan.toolkit.fsutil import stat_now
        from agentscan.toolkit.jsonl import ReadProgress

        before = stat_now(path)  # the file as this pass finds it, not as discovery did
        keeping = rowresume.worth_keeping(path, before, ctx)
        resumed = rowresume.load(ctx, path, before, facts) if keeping and before is not None else None
        side = None
        with ctx.warnings.capture() as captured:
            if resumed is not None:
                resumed.replay(ctx, path)
                totals, progress = resumed.totals, resumed.progress()
            else:
                # Hashes that outlive the process only for a pass whose state is kept (``windowed``).
                totals, progress = WindowedTotals(stable=keeping), ReadProgress()
                side = SidePass.worth_it(path, ctx, before, keeping)  # a huge one: sums on the second core
            try:
                if side is not None:
                    side.start()
                main = summarize(path, ctx, totals=totals if side is None else None, progress=progress, facts=facts,
                                 resumed=resumed.summary if resumed is not None else None)
                if side is not None:
                    totals = side.take(main, progress)
            finally:
                if side is not None:
                    side.stop()
        if keeping and before is not None:
            # Before the subagents' calls join the totals and before ``finish`` closes the open reply.
            rowresume.keep(ctx, path, before, progress, captured, main, totals, facts, resumed)
        if facts is not None:
            facts.finish()
            facts.lines = progress.lines
        return main, totals

    def row(self, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        facts = self._facts_worth_keeping(ref, ctx)
        with ctx.warnings.capture() as captured:
            main, subs, totals, _ = self._summaries(ref, ctx, facts=facts)
        files: SessionFiles = ref.hint
        if facts is not None and main is not None:
            self._keep_facts(ref, ctx, facts, main, totals)
        elif files.main is not None and totals.exact and not captured.passing and not captured.overflowed:
            # The row's cost from these sums: no second pass over the session (``rowsums``).
            from agentscan.providers.claude import rowsums

            rowsums.keep(ctx, files.main, self.fingerprint(ref, ctx), totals.groups(set(files.subagents)))
        return self._row_from(ref, main, subs, totals)

    rows_may_travel = True

    def row_travels(self, ref: SessionRef, ctx: ScanContext) -> bool:
        # A huge transcript's pass keeps ``show``'s facts for the scan (``showfacts.gathered``).
        from agentscan.providers.claude.discovery import SessionFiles

        return isinstance(ref.hint, SessionFiles) and not self._tail_worthy(ref, ctx)

    def _row_from(self, ref: SessionRef, main: FileSummary | None, subs: dict[str, FileSummary], totals: WindowedTotals) -> SessionRow:
        from collections import Counter

        from agentscan.model import Counts
        from agentscan.providers.claude.row import title_of
        from agentscan.timeutil import from_epoch, newest, oldest

        everything = ([main] if main else []) + list(subs.values())
        tokens = totals.total()
        models = main.models if main and main.models else sum((s.models for s in subs.values()), start=Counter())
        # With the parent transcript gone, the subagents' own content is all
        # there is: the earliest one names the session, and their counts add up.
        orphans = sorted(subs.values(), key=lambda s: (s.first_ts is None, s.first_ts or 0, str(s.path)))
        primary = main or (orphans[0] if orphans else None)
        started = oldest(*(s.first_ts for s in everything))
        # The newest time the transcript recorded; the mtime only when it recorded none
        # (a copied home has every mtime at the copy time).
        updated = newest(*(s.last_ts for s in everything)) or (from_epoch(ref.recency) if ref.recency else None)
        if main is not None:
            counts = Counts(main.prompts, main.responses, main.tool_calls)
        else:
            counts = Counts(sum(s.prompts for s in subs.values()), sum(s.responses for s in subs.values()),
                            sum(s.tool_calls for s in subs.values()))
        return SessionRow(
            provider=self.name,
            native_id=ref.native_id,
            path=str(ref.path) if ref.path else (str(ref.files[0].parent.parent) if ref.files else None),
            title=title_of(primary) if primary else None,
            cwd=primary.cwd if primary else None,
            model=models.most_common(1)[0][0] if models else None,
            git_branch=primary.git_branch if primary else None,
            started_at=started,
            updated_at=updated,
            tokens=tokens,
            counts=counts,
            subagents=len(set(subs) | set(totals.by_subagent())),
        )

    def detail(self, ref: SessionRef, ctx: ScanContext, bounds: Bounds) -> SessionDetail:
        from agentscan.toolkit.detail import DetailCollector

        files: SessionFiles = ref.hint
        collector = DetailCollector(bounds)
        main, subs, totals, extra_tools = self._summaries(ref, ctx, collector)
        row = self._row_from(ref, main, subs, totals)
        infos = self._subagent_infos(files, ctx, main.task_types if main else {}, main.task_calls if main else {},
                                     totals.by_subagent())
        extra = {"parent_missing": True} if main is None else {}
        return collector.build(row, subagents=infos, extra_tools=extra_tools, extra=extra)

    # -- show of a huge transcript from its end (tail.py) ------------------------

    def shows_from_row(self, ref: SessionRef, ctx: ScanContext) -> bool:
        return self._tail_worthy(ref, ctx)

    def detail_with_row(self, ref: SessionRef, ctx: ScanContext, bounds: Bounds, row: SessionRow) -> SessionDetail | None:
        """The main transcript read from its end, with the facts its row's pass kept;
        ``None`` when there are none for this state of the files (or these bounds)."""
        from agentscan.providers.claude import showfacts
        from agentscan.providers.claude.detail import TranscriptStream
        from agentscan.providers.claude.row import summarize
        from agentscan.providers.claude.tail import read_tail
        from agentscan.toolkit.detail import DetailCollector

        files: SessionFiles = ref.hint
        if files.main is None:
            return None
        fingerprint = self.fingerprint(ref, ctx)
        facts = showfacts.kept(ctx, files.main, fingerprint)
        if facts is None and not showfacts.gathered(ctx, fingerprint):
            # A row kept before its facts were (an earlier version, an index entry lost):
            # one pass keeps them now, and the next show reads only the end.
            row = self.row(ref, ctx)
            facts = showfacts.kept(ctx, files.main, fingerprint)
        stat = _main_stat(files, ctx)
        if facts is None or not facts.answers(bounds) or stat is None or stat.st_size != facts.size:
            return None
        collector = DetailCollector(bounds)
        read_tail(collector, files.main, ctx, bounds, facts)
        extra_tools: list = []
        for agent_id, sub in sorted(files.subagents.items()):
            # Subagent transcripts are read whole, as by ``detail`` (they are small).
            stream = TranscriptStream(collector, subagent=agent_id)
            summarize(sub.path, ctx, subagent=agent_id, observer=stream.feed)
            extra_tools.extend(stream.finish())
        infos = self._subagent_infos(files, ctx, facts.task_types, facts.task_calls, facts.per_agent)
        return collector.build(row, subagents=infos, extra_tools=extra_tools)

    def row_sums(self, ref: SessionRef, ctx: ScanContext, fingerprint: str | None) -> list[list] | None:
        """The session's sums as its row's pass kept them under the main transcript's path
        (a huge one's with its ``show`` facts, others' in ``rowsums``): its row's cost then
        needs no second pass over the session."""
        if ref.path is None:
            return None
        if _shown_from_end(ref.path, ctx.stat(ref.path)):
            from agentscan.providers.claude import showfacts

            facts = showfacts.kept(ctx, Path(ref.path), fingerprint)
            if facts is not None:
                return facts.groups
        from agentscan.providers.claude import rowsums

        return rowsums.kept(ctx, Path(ref.path), fingerprint)

    def _tail_worthy(self, ref: SessionRef, ctx: ScanContext) -> bool:
        from agentscan.providers.claude.discovery import SessionFiles

        files = ref.hint
        if not isinstance(files, SessionFiles) or files.main is None:
            return False
        return _shown_from_end(files.main, _main_stat(files, ctx))

    def _facts_worth_keeping(self, ref: SessionRef, ctx: ScanContext) -> ShowFacts | None:
        if not self._tail_worthy(ref, ctx):
            return None
        from agentscan.providers.claude.showfacts import ShowFacts

        return ShowFacts()

    def _keep_facts(self, ref: SessionRef, ctx: ScanContext, facts: ShowFacts, main: FileSummary,
                    totals: WindowedTotals) -> None:
        from agentscan.bounds import MAX_FILE_LINES
        from agentscan.detailmodel import PlanStep
        from agentscan.providers.claude import showfacts
        from agentscan.toolkit.fsutil import changed_since

        files: SessionFiles = ref.hint
        stat = _main_stat(files, ctx)
        if files.main is None or stat is None or facts.lines >= MAX_FILE_LINES or changed_since(files.main, stat):
            # The forward reader stops at the line cap: lines after it are never shown.  And a
            # live transcript written to during the pass holds more than its fingerprint's
            # size: facts about those lines would not match a tail read stopping there.
            showfacts.keep(ctx, files.main or Path(), self.fingerprint(ref, ctx), None)
            return
        showfacts.keep(ctx, files.main, self.fingerprint(ref, ctx), showfacts.TailFacts(
            size=stat.st_size, prompts=facts.prompts, responses=facts.responses, tools=facts.tools, reused=facts.reused,
            window=facts.window, clipped=facts.clipped, message_bytes=facts.message_bytes,
            plan=None if facts.plan is None else tuple(PlanStep(step, status) for step, status in facts.plan),
            task_types=dict(main.task_types), task_calls=dict(main.task_calls), groups=totals.groups(set(files.subagents))))

    def _subagent_infos(self, files: SessionFiles, ctx: ScanContext, task_types: dict[str, str], task_calls: dict[str, str],
                        per_agent: dict[str, TokenUsage]) -> tuple[SubagentInfo, ...]:
        from agentscan.bounds import MAX_SIDE_FILE_BYTES
        from agentscan.detailmodel import SubagentInfo
        from agentscan.model import PROGRESS_ORIGIN
        from agentscan.providers.claude.usage import meta_agent_type
        from agentscan.toolkit.jsonl import load_json_file

        infos = []
        for agent_id in sorted(set(files.subagents) | set(per_agent)):
            sub = files.subagents.get(agent_id)
            agent_type = None
            if sub is not None and sub.meta_path is not None:
                agent_type = meta_agent_type(load_json_file(sub.meta_path, ctx, max_bytes=MAX_SIDE_FILE_BYTES))
            agent_type = agent_type or task_types.get(agent_id) or ("compaction" if agent_id.startswith("acompact") else None)
            # No transcript: its part was recovered from the parent's progress records.
            recovered = None if sub is not None else PROGRESS_ORIGIN
            infos.append(SubagentInfo(agent_id, agent_type, str(sub.path) if sub else None, per_agent.get(agent_id), recovered,
                                      call_id=task_calls.get(agent_id)))
        return tuple(infos)

    def usage(self, refs: Iterable[SessionRef], ctx: ScanContext) -> list[UsageEntry]:
        # One deduplication over every session's calls: a call copied into
        # another session (a resume, a fork) counts once, as the rules say.
        from agentscan.providers.claude.incremental import session_calls
        from agentscan.providers.claude.usage import C_ORDER, CallDeduper, usage_entries

        deduper = CallDeduper()
        sessions: list[str] = []
        transcripts: set[tuple[str, str]] = set()
        for ref in refs:
            files: SessionFiles = ref.hint
            transcripts.update((ref.native_id, agent_id) for agent_id in files.subagents)
            calls, _ = session_calls(files, ctx)
            shift = len(sessions) << SESSION_BITS
            sessions.append(ref.native_id)
            deduper.add_all((*call[:C_ORDER], call[C_ORDER] + shift, *call[C_ORDER + 1:]) for call in calls)
        return usage_entries(deduper.winners(), lambda order: sessions[order >> SESSION_BITS], transcripts)

    def session_usage(self, ref: SessionRef, ctx: ScanContext, resume: bytes | None = None, *,
                      keep_state: bool = False) -> tuple[Iterable[list], bytes | None]:
        from agentscan.providers.claude.incremental import session_calls
        from agentscan.providers.claude.usage import packed_entries

        files: SessionFiles = ref.hint
        calls, state = session_calls(files, ctx, resume=resume, keep_state=keep_state)
        return packed_entries(calls, ref.native_id, files.subagents), state


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


def _shown_from_end(main: Path | str, stat: os.stat_result | None) -> bool:
    """Whether ``show`` reads this main transcript from its end (its row's pass keeps the
    facts and sums that needs): a plain file of ``TAIL_MIN_BYTES`` or more."""
    return stat is not None and stat.st_size >= TAIL_MIN_BYTES and not str(main).endswith(".zst")


def _main_stat(files: SessionFiles, ctx: ScanContext):
    """The main transcript's stat as the fingerprint saw it (discovery's)."""
    if files.main is None:
        return None
    return files.stats.get(str(files.main)) or ctx.stat(files.main)


__all__ = ["ClaudeProvider"]
