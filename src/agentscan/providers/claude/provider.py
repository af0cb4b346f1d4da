"""The Claude Code provider (docs/providers/claude.md).

Only discovery is imported with the provider: a command imports what it runs
(``row``/``detail`` modules for ``list``/``show``, the usage reader for a
``tokens`` that must parse), so a warm run pays for none of them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from agentscan.context import ScanContext
from agentscan.model import SessionRef, SessionRow, UsageEntry
from agentscan.providers.base import Provider
from agentscan.providers.claude.roots import claude_roots
from agentscan.toolkit.roots import Root

if TYPE_CHECKING:
    from agentscan.providers.claude.discovery import SessionFiles
    from agentscan.bounds import Bounds
    from agentscan.model import SessionDetail
    from agentscan.providers.claude.row import FileSummary
    from agentscan.providers.claude.usage import WindowedTotals
    from agentscan.toolkit.detail import DetailCollector


#: ``usage`` of many sessions numbers each session's calls above the last one's
SESSION_BITS = 96


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
        parts = [self.name, self.parser_version]
        for text, stat in sorted(files.stats.items()) if len(files.stats) > 1 else files.stats.items():
            parts.append(f"{text}\0{stat.st_size}\0{stat.st_mtime_ns}\0{stat.st_ino}\0{stat.st_ctime_ns}")
        return hashlib.blake2b("\n".join(parts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()

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
        self, ref: SessionRef, ctx: ScanContext, collector: DetailCollector | None = None
    ) -> tuple[FileSummary | None, dict[str, FileSummary], WindowedTotals, list]:
        """One pass per file: row facts, token sums, and (for ``show``) the detail."""
        from agentscan.providers.claude.detail import TranscriptStream
        from agentscan.providers.claude.row import summarize
        from agentscan.providers.claude.usage import WindowedTotals

        files: SessionFiles = ref.hint
        totals = WindowedTotals()
        order = 0
        main = None
        subagent_tools: list = []
        if files.main is not None:
            stream = TranscriptStream(collector) if collector is not None else None
            main = summarize(files.main, ctx, session=ref.native_id, totals=totals, observer=stream.feed if stream else None)
            if stream is not None:
                stream.finish()
            order = main.records
        subs: dict[str, FileSummary] = {}
        for agent_id, sub in sorted(files.subagents.items()):
            stream = TranscriptStream(collector, subagent=agent_id, conversation=main is None) if collector is not None else None
            summary = summarize(sub.path, ctx, session=ref.native_id, subagent=agent_id, order_start=order, totals=totals,
                                observer=stream.feed if stream else None)
            if stream is not None:
                subagent_tools.extend(stream.finish())
            order += summary.records + 1
            subs[agent_id] = summary
        return main, subs, totals, subagent_tools

    def row(self, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        main, subs, totals, _ = self._summaries(ref, ctx)
        return self._row_from(ref, main, subs, totals)

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
        from agentscan.model import PROGRESS_ORIGIN, SubagentInfo
        from agentscan.providers.claude.usage import meta_agent_type
        from agentscan.toolkit.detail import DetailCollector
        from agentscan.bounds import MAX_SIDE_FILE_BYTES
        from agentscan.toolkit.jsonl import load_json_file

        files: SessionFiles = ref.hint
        collector = DetailCollector(bounds)
        main, subs, totals, extra_tools = self._summaries(ref, ctx, collector)
        row = self._row_from(ref, main, subs, totals)
        task_types = main.task_types if main else {}
        task_calls = main.task_calls if main else {}
        per_agent = totals.by_subagent()
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
        extra = {"parent_missing": True} if main is None else {}
        return collector.build(row, subagents=tuple(infos), extra_tools=extra_tools, extra=extra)

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


__all__ = ["ClaudeProvider"]
