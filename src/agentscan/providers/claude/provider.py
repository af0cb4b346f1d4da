"""The Claude Code provider (docs/providers/claude.md).

Only discovery is imported with the provider: a command imports what it runs
(``rowpass``, ``sessionrow`` and the ``row``/``detail`` modules for ``list``/``show``,
``hugeshow`` for a transcript large enough to be shown from its end, the
usage reader for a ``tokens`` that must parse), so a warm run pays for none
of them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Collection, Iterable, Sequence

from agentscan.context import ScanContext
from agentscan.providers.base import Provider, file_identity
from agentscan.providers.claude.liveprocs import REGISTRY
from agentscan.providers.claude.roots import claude_roots
from agentscan.toolkit.roots import Root
from agentscan.digests import blake2b

if TYPE_CHECKING:
    from agentscan.model import SessionRef, SessionRow, TableFacts, UsageEntry
    from agentscan.providers.claude.discovery import SessionFiles
    from agentscan.bounds import Bounds
    from agentscan.detailmodel import SessionDetail
    from agentscan.providers.claude.showfacts import ShowFacts


#: a main transcript at least this large is shown from its end, with the facts its row's
#: pass keeps (``tailfacts``, ``hugeshow``); here, so that a row's cost asks neither of them
#: about a smaller one
TAIL_MIN_BYTES = 8 * 1024 * 1024


class ClaudeProvider(Provider):
    name = "claude"
    label = "Claude Code"
    env_vars = ("CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "APPDATA", "LOCALAPPDATA")
    # Bumped whenever a row's or a call's rules change (cached rows and calls are then read
    # again); what each version changed: docs/providers/claude.md, "Parser versions".
    parser_version = "43"
    # Claude Code opens, writes and closes its transcript for each record: a running session
    # is told by the registry 2.1.x builds keep (``liveprocs``), not by a file held open.
    running_registry = REGISTRY

    def roots(self, ctx: ScanContext) -> list[Root]:
        return claude_roots(ctx)

    def dates_session(self, record: dict) -> bool:
        from agentscan.providers.claude.records import is_recap

        return not is_recap(record)  # (a recap is written while the person is away, as in ``list``)

    def discover(self, ctx: ScanContext) -> list[SessionRef]:
        from agentscan.model import SessionRef
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

    def recorded_children(self, refs: Sequence[SessionRef], wanted: str, key: Callable[[str], str],
                          ctx: ScanContext) -> list[tuple[SessionRef, str]]:
        # Found in the bytes of the main transcripts, within a budget (``childsearch``).
        from agentscan.providers.claude.childsearch import recorded_children

        return recorded_children(refs, wanted, key, ctx)

    def locate(self, native_id: str, path: str | None, ctx: ScanContext) -> SessionRef | None:
        from agentscan.model import SessionRef
        from agentscan.providers.claude.discovery import session_files_at

        if path is None:
            return None
        roots = [root.path for root in self.roots(ctx)]
        ctx.confine_to(roots)
        files = session_files_at(Path(path), native_id, ctx, roots)
        if files is None:
            return None
        return SessionRef(self.name, native_id, files.main, files.newest_mtime, files.paths(), files, tuple(files.subagents))

    def fingerprint(self, ref: SessionRef, ctx: ScanContext, *, version: str | None = None) -> str | None:
        # Discovery already holds every file's stat, by path string: no system
        # call and no Path work (a heavy user has 10,000+ sessions).
        from agentscan.providers.claude.discovery import SessionFiles

        files = ref.hint
        if not isinstance(files, SessionFiles) or len(files.stats) != len(ref.files):
            return super().fingerprint(ref, ctx, version=version)
        return self._fingerprint_of(files.stats, version)

    def _fingerprint_of(self, stats: dict[str, os.stat_result], version: str | None = None) -> str:
        parts = [self.name, version or self.parser_version]
        for text, stat in sorted(stats.items()) if len(stats) > 1 else stats.items():
            parts.append(file_identity(text, stat))  # (the stats are discovery's: no ``stat`` again)
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

    def known_cwds(self, ctx: ScanContext, *, brief: bool = False) -> set[str]:
        from agentscan.providers.claude.headfields import header_cwd

        cwds: set[str] = set()
        for ref in self.discover(ctx):
            if ref.path is not None:
                cwd = header_cwd(ref.path, ctx)
                if cwd:
                    cwds.add(cwd)
        return cwds

    # -- parsing: one pass per file (rowpass.py) --------------------------------

    def row(self, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        from agentscan.providers.claude.rowpass import summaries
        from agentscan.providers.claude.sessionrow import session_row

        facts = self._facts_worth_keeping(ref, ctx)
        fingerprint = self.fingerprint(ref, ctx)
        read = None if facts is not None else self._sums_read(ref, ctx, fingerprint)
        with ctx.warnings.capture() as captured:
            main, subs, totals, _ = summaries(ref.hint, ctx, facts=facts, count=read is None)
        files: SessionFiles = ref.hint
        if main is not None and main.resumed_last and files.main is not None and main.own_met:
            # (the session it was resumed from, for the card of that one: ``continuations``; only
            # once a record of its own is met, as ``continuations.resumed_last`` finds it cold)
            from agentscan.providers.claude.continuations import note

            note(files.main, main.resumed_last, ctx)
        if totals is None:
            from agentscan.readsums import total_of

            assert read is not None  # ``count`` was false
            return session_row(self.name, ref, main, subs, *total_of(read), ctx=ctx)
        if facts is not None and main is not None:
            from agentscan.providers.claude.hugeshow import keep_facts

            keep_facts(self, ref, ctx, facts, main, totals)
        elif files.main is not None and totals.exact and not captured.passing and not captured.overflowed:
            # The row's cost from these sums: no second pass over the session (``rowsums``).
            from agentscan.providers.claude import rowsums

            rowsums.keep(ctx, files.main, fingerprint, totals.groups(set(files.subagents)))
            if not captured:
                rowsums.keep_usage(ctx, ref, fingerprint, totals)
        return session_row(self.name, ref, main, subs, totals.total(), totals.by_subagent(), ctx=ctx)

    def _sums_read(self, ref: SessionRef, ctx: ScanContext, fingerprint: str | None) -> list[list] | None:
        """The session's own sums as this scan read them (``tokens``' table reads its rows
        after the report: ``readsums``), if its files are still what they were then: the
        same calls by the same rules, so the row's pass need not add them up again.  Not
        for a session of more calls than half the row pass's window: a copy of a call far
        back is never counted twice by either, but only ``tokens`` lets it replace the one
        counted (docs/providers/claude.md), and a row must not depend on which came first."""
        from agentscan.providers.claude.discovery import SessionFiles
        from agentscan.providers.claude.windowed import WINDOW
        from agentscan.readsums import calls_in, groups_read

        read = groups_read(ctx, ref.id, fingerprint)
        files = ref.hint
        if read is None or not isinstance(files, SessionFiles) or calls_in(read) > WINDOW // 2:
            return None
        # Discovery's stats make the fingerprint: an agent may have written since. Taken
        # again, they must give it again.
        try:
            now = {text: os.stat(text) for text in files.stats}
        except OSError:
            return None
        return read if self._fingerprint_of(now) == fingerprint else None

    rows_may_travel = True

    row_takes_sums = True

    facts_name_models = True

    def subagent_types(self, ref: SessionRef, ctx: ScanContext, runs: Collection[str]) -> dict[str, str]:
        from agentscan.providers.claude.agenttypes import subagent_types

        return subagent_types(ref.hint, ctx, runs)

    def subagent_type_files(self, ref: SessionRef) -> Sequence[str]:
        from agentscan.providers.claude.agenttypes import sidecar_paths

        return sidecar_paths(ref.files)

    def table_facts(self, ref: SessionRef, ctx: ScanContext, *, models: bool = False) -> TableFacts | None:
        from agentscan.providers.claude.discovery import SessionFiles
        from agentscan.providers.claude.tablefacts import table_facts

        return table_facts(ref.hint, ref.recency, models=models) if isinstance(ref.hint, SessionFiles) else None

    def row_travels(self, ref: SessionRef, ctx: ScanContext) -> bool:
        # A huge transcript's pass keeps ``show``'s facts for the scan (``tailfacts.gathered``).
        from agentscan.providers.claude.discovery import SessionFiles

        return isinstance(ref.hint, SessionFiles) and not self._tail_worthy(ref, ctx)

    def copied_elsewhere(self, native_id: str, path: str | None, ctx: ScanContext) -> bool:
        from agentscan.providers.claude.resumedfiles import resumed_as

        # (Their heads name it: a chain's later sessions too, whose heads name its first.)
        return path is not None and bool(resumed_as(native_id, Path(path), ctx))

    def copies_another(self, native_id: str, path: str | None, ctx: ScanContext) -> bool:
        from agentscan.providers.claude.resumedfiles import resumed_from

        # (A transcript gone copies nothing: its header is not read, which would warn.)
        return path is not None and os.path.isfile(path) and resumed_from(native_id, Path(path), ctx) is not None

    def known_gone(self, prefix: str, ctx: ScanContext) -> list[str]:
        from agentscan.providers.claude.gonehint import known_gone

        return known_gone(prefix, self.roots(ctx), ctx)

    def copied_from(self, ref: SessionRef, ctx: ScanContext) -> list[str]:
        from agentscan.providers.claude.resumedfiles import resumed_from

        # ``ref.path``: the main transcript (``None`` without one); its hint may be a
        # discovery remembered, not read yet.
        first = resumed_from(ref.native_id, ref.path, ctx)
        return [first] if first is not None else []

    def detail(self, ref: SessionRef, ctx: ScanContext, bounds: Bounds) -> SessionDetail:
        from agentscan.providers.claude import resumedshow
        from agentscan.providers.claude.subagentlist import subagent_infos, subagent_models
        from agentscan.providers.claude.gonesession import in_time_order
        from agentscan.providers.claude.sessionrow import session_row

        files: SessionFiles = ref.hint
        collector, (main, subs, totals, extra_tools), listed, held = resumedshow.detail_pass(ref, ctx, bounds)
        assert totals is not None  # counted: ``count`` is left as it is
        row = session_row(self.name, ref, main, subs, totals.total(), totals.by_subagent(), ctx=ctx)
        # (The transcript gone, the Task calls that name its runs' kinds are in the copies of a
        # session resumed from it: ``agenttypes.copied_task_types``.)
        kinds = main.task_types if main else self.subagent_types(ref, ctx, set(files.subagents) | set(totals.by_subagent()))
        groups = totals.groups(files.subagents)
        infos = subagent_infos(files, ctx, kinds, main.task_calls if main else {},
                               totals.by_subagent(), inline=main.inline if main else {},
                               models=subagent_models(groups, {**subs, **(main.inline if main else {})}))
        extra: dict = {"rewound_messages": collector.rewound,  # (an edited prompt's branch: ``detail.LiveBranch``)
                       "retracted_replies": collector.retracted,  # (refused or aborted: ``retractions``)
                       "errors": collector.errors(),
                       "agent_reported": None if collector.reported is None else collector.reported.json(groups)}
        if main is None:
            extra["parent_missing"] = True
        elif moved_from := main.moved_from():
            extra["moved_from"] = moved_from  # (the session counts whole under where it moved: ``sessionrow``)
        extra.update(resumedshow.extra(ref, ctx, listed, held))
        detail = collector.build(row, subagents=infos, extra_tools=extra_tools, extra=extra)
        return detail if main is not None else in_time_order(detail)

    # -- show of a huge transcript from its end (hugeshow.py, tail.py) ---------

    def shows_from_row(self, ref: SessionRef, ctx: ScanContext) -> bool:
        return self._tail_worthy(ref, ctx)

    def detail_with_row(self, ref: SessionRef, ctx: ScanContext, bounds: Bounds, row: SessionRow) -> SessionDetail | None:
        from agentscan.providers.claude import hugeshow, resumedshow
        from agentscan.providers.claude.gonesession import is_gone

        resumed = row.resumed_from
        if resumed is not None and is_gone(resumed.partition(":")[2], ref.path):
            return None  # its copies are listed: read forward (a read from the end skips them)
        detail = hugeshow.detail_with_row(self, ref, ctx, bounds, row)
        if detail is None:
            return None
        extra = resumedshow.extra(ref, ctx, False if resumed is not None else None)
        if not extra:
            return detail
        from dataclasses import replace

        return replace(detail, extra={**detail.extra, **extra})

    def row_sums(self, ref: SessionRef, ctx: ScanContext, fingerprint: str | None) -> list[list] | None:
        """The session's sums as its row's pass kept them under the main transcript's path
        (a huge one's with its ``show`` facts, others' in ``rowsums``): its row's cost then
        needs no second pass over the session."""
        main = ref.path_text  # no ``Path`` made: ``list --all`` asks this of every session
        if main is None:
            return None
        if _shown_from_end(main, ctx.stat(main)):
            from agentscan.providers.claude import tailfacts

            facts = tailfacts.kept(ctx, Path(main), fingerprint)
            if facts is not None:
                return facts.groups
        from agentscan.providers.claude import rowsums

        return rowsums.kept(ctx, main, fingerprint)

    def prefetch_row_sums(self, refs: Sequence[SessionRef], ctx: ScanContext) -> None:
        from agentscan.providers.claude import rowsums

        rowsums.prefetch(ctx, [main for ref in refs if (main := ref.path_text) is not None])

    def _tail_worthy(self, ref: SessionRef, ctx: ScanContext) -> bool:
        from agentscan.providers.claude.discovery import SessionFiles

        files = ref.hint
        if not isinstance(files, SessionFiles) or files.main is None:
            return False
        return _shown_from_end(files.main, files.main_stat(ctx))

    def _facts_worth_keeping(self, ref: SessionRef, ctx: ScanContext) -> ShowFacts | None:
        if not self._tail_worthy(ref, ctx):
            return None
        from agentscan.providers.claude.showfacts import ShowFacts

        return ShowFacts()

    def usage(self, refs: Iterable[SessionRef], ctx: ScanContext) -> list[UsageEntry]:
        # Each session's calls deduplicated on their own, then a call copied into another
        # session (a resume, a fork) counted once by the rule ``tokens`` follows
        # (``sharedcalls``): the same credit whatever the order of ``refs``.
        from agentscan.model import UsageEntry
        from agentscan.providers.claude.incremental import calls_and_chain
        from agentscan.providers.claude.dedupe import packed_entries
        from agentscan.sharedcalls import merge_duplicates

        packed: list[list] = []
        for ref in refs:
            files: SessionFiles = ref.hint
            calls, _, chain = calls_and_chain(files, ctx)
            packed.extend(packed_entries(calls, ref.native_id, files.subagents, files.main, chain))
        return [UsageEntry.unpack(entry) for entry in merge_duplicates(packed)]

    def session_usage(self, ref: SessionRef, ctx: ScanContext, resume: bytes | None = None, *,
                      keep_state: bool = False, call_times: bool = False) -> tuple[Iterable[list], bytes | None]:
        from agentscan.providers.claude.incremental import calls_and_chain
        from agentscan.providers.claude.dedupe import packed_entries

        files: SessionFiles = ref.hint
        calls, state, chain = calls_and_chain(files, ctx, resume=resume, keep_state=keep_state, call_times=call_times)
        return packed_entries(calls, ref.native_id, files.subagents, files.main, chain), state


def _shown_from_end(main: Path | str, stat: os.stat_result | None) -> bool:
    """Whether ``show`` reads this main transcript from its end (its row's pass keeps the
    facts and sums that needs): a plain file of ``TAIL_MIN_BYTES`` or more."""
    return stat is not None and stat.st_size >= TAIL_MIN_BYTES and not str(main).endswith(".zst")


__all__ = ["ClaudeProvider"]
