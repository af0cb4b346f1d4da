"""The Codex CLI provider (docs/providers/codex.md).

``discover`` walks the rollout trees and unites them with Codex's thread
index; ``row`` reads only a rollout's head and last 1 MiB; ``detail`` and
``usage`` stream whole files, counting each model call once (``show``'s pass:
``showpass``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Collection, Iterable

from agentscan.context import ScanContext
from agentscan.providers.base import Provider, file_identity
from agentscan.providers.codex.roots import codex_roots
from agentscan.toolkit.roots import Root
from agentscan.digests import blake2b

if TYPE_CHECKING:  # a command imports only what it runs (see ``claude.provider``)
    from agentscan.model import SessionRef, SessionRow, TableFacts, UsageEntry
    from agentscan.providers.codex.discovery import CodexSession, Thread
    from agentscan.bounds import Bounds
    from agentscan.detailmodel import SessionDetail
    from agentscan.providers.codex.callscan import FileUsageScanner

#: (owning session, subagent id or None, the thread, its scanner): a file read by ``usage``
#: or by ``show`` (``showpass``), whose calls ``owncalls.own_calls`` counts once
Scanned = tuple[str, "str | None", "Thread", "FileUsageScanner"]


class CodexProvider(Provider):
    name = "codex"
    label = "Codex CLI"
    env_vars = ("CODEX_HOME", "CODEX_SQLITE_HOME")
    # (3-28: docs/providers/codex.md, "Parser versions", where every version is told)
    # 29: a running total that moved by other than its call (``counters.jumped``) is no running
    #     count: the row counts the calls, as ``tokens`` does, and the file says so (``countwarnings.total_warning``)
    # 30: that name is `<model> (<tier>)` (`gpt-5.5 (priority)`), which no model's own name is:
    #     a model whose name ends in a tier's word (`…-ultrafast`) was read as a tier
    # 31: a `turn_context` `service_tier` of `null`, and thread settings with none, put the calls
    #     after them on the standard tier (they kept the tier before); `scale` and a tier agentscan
    #     does not know are counted under `<model> (scale)`, `<model> (<tier> tier)`: no price, said
    # 32: a thread whose copy counted is in `archived_sessions/`, or that the thread index marks
    #     archived (naming that file or none), is `archived` (``row``)
    # 33: a tier whose recorded name is no word is `<model> (? tier)` (`aliases.UNNAMED_TIER`), not
    #     `<model> (unknown tier)`, which a tier named `unknown` would be too
    # 34: a `service_tier` that is neither `null` nor a string (a number, an object) is that
    #     `?` tier too (``aliases.recorded_tier``), not the standard tier
    # 35: a `.jsonl.zst` cut short says so (``toolkit.zstdframes``); an index row naming the rollout's
    #     place under a moved home marks it archived; `created_at` only from a row naming the file
    # 36: a `.jsonl.zst` cut mid-line is said once, at that line, not also as a line being written
    # 37: a call before the file's first `turn_context` runs on the model the thread's settings
    #     name (`thread_settings_applied`), not on none (`unknown`, no price)
    # 38: a kept tally's position keeps the settings' model and tier apart from the turn's
    #     (``FileUsageScanner.position``); a window's calls take the settings' model before it
    #     when no `turn_context` is there (``turnseed``)
    # 39: a running total below the last one that repeats an older count (not its own call's, not
    #     a context overflow's fill) is that count emitted again (``counters.stale``, replaced in 41), not a
    #     restart: its call counted once, the row's run not added twice; an empty
    #     `last_token_usage` (`{}`) is no count: the total's growth is the call (it was lost)
    # 40: a paginated subagent's copied history ends at its meta's `subagent_history_start_ordinal`
    #     (the lines' `ordinal`s: ``callscan._by_ordinal``), not at a copied turn marker within
    #     the slack of its start (the parent's calls of that turn counted twice)
    # 41: only a running total equal to one of the file's latest is a replay (``counters.step``);
    #     any other drop is a restart again (39's rule skipped real calls after a resume from an
    #     older base, a rollback, interleaved counters), whose run counts less the base it
    #     restarts from; a drop whose `last_token_usage` is `{}` counts no call
    # 42: a drop with no `last_token_usage` at all counts the total less the base it restores
    #     (the newest latest total it passed: ``counters._base``), not the whole total again; a
    #     window's replay of a total reached before it is one (``totalseed``), not a restart
    # 43: that base only when the total was written again right before the drop (a rollback's
    #     replay), else from zero as 41 counted: 42 took an earlier total off a restart from
    #     zero whose first call was at or above it in every counter
    # 44: a fork that references its parent's history takes its row's base from its own first
    #     call (``usage.first_call_base``), never from the parent; none found: counts partial
    # 45: such a fork's first total with `last_token_usage: {}` is the base restored, no call (row,
    #     tokens and show: it counted the parent's whole history as the fork's); a later call
    #     that disagrees leaves it a lower bound (partial)
    # 46: a counter of no number at all (null, "x") makes no total and no call (it read as zeros: a
    #     restart); a row counting a rollout's calls counts one written again once, as tokens does
    # 47: the no-session_meta warning says what is lost and where to look (its words are kept)
    # 48: an unread total beside a readable call moves the running total by it (no false "moved by
    #     other" warning, no switch to counting calls); "-5" and 16-digit strings are garbage counts
    #     (no longer unread); the unread counters' warning in JSON spelling
    # 49: an unread total on a line that writes again the call counted just before it (same
    #     timestamp and last_token_usage) moves nothing (it moved the total a second time)
    parser_version = "49"

    def roots(self, ctx: ScanContext) -> list[Root]:
        return codex_roots(ctx)

    def discover(self, ctx: ScanContext) -> list[SessionRef]:
        from agentscan.model import SessionRef
        from agentscan.providers.codex.discovery import discover

        return [
            SessionRef(
                provider=self.name,
                native_id=session.native_id,
                path=session.main.rollout.path if session.main else None,
                recency=session.recency,
                files=tuple(path for thread in session.threads() for path in thread.files()),
                hint=session,
                children=tuple(child.thread_id for child in session.children),
            )
            for session in discover(ctx).sessions.values()
        ]

    def fingerprint(self, ref: SessionRef, ctx: ScanContext, *, version: str | None = None) -> str | None:
        # A row also depends on the thread index (titles, freshness), on the session's
        # names in ``session_index.jsonl``, and a fork's calls on its parent's rollout:
        # add their identities.
        base = super().fingerprint(ref, ctx, version=version)
        if base is None:
            return None
        from agentscan.providers.codex.discovery import discover

        session = self._session(ref, ctx)
        # The index's identity as taken before it was read (``ThreadIndex.identity``); of the
        # session index, only the names it gives this session's threads (a rename of another
        # thread leaves this row as it is).  Every thread's, though only the naming thread's
        # (the main one, else the first subagent) can title the row: a subagent's rename makes
        # the row be read again for nothing, which is harmless and keeps this simple.
        names = [f"name {thread.thread_id}\0{thread.session_index_name}" for thread in session.threads()
                 if thread.session_index_name is not None]
        parts = [base, *self._parents_files(session, ctx), *discover(ctx).thread_index.identity, *names]
        if len(parts) == 1:
            return base
        return blake2b("\n".join(parts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()

    def _parents_files(self, session: CodexSession, ctx: ScanContext) -> list[str]:
        """The files of each parent thread outside ``session`` that a thread of it copied
        its history from, or that the parent is gone: ``owncalls.own_calls`` may tell a fork's
        own calls from its copied ones by its parent's (``FileUsageScanner.own_events``)."""
        from agentscan.providers.codex.ancestry import nearest_found
        from agentscan.providers.codex.discovery import discover
        from agentscan.providers.codex.forkpart import is_fork
        from agentscan.providers.codex.goneparent import earlier_forks, passed_forks
        from agentscan.providers.codex.header import read_header

        threads = session.threads()
        own = {thread.thread_id for thread in threads}
        parts = []
        for thread in threads:
            header = thread.header
            if header is None:
                rollout = thread.rollout.path
                with ctx.held_warnings():  # never said: the pass that parses the session says them
                    header = read_header(rollout, ctx, thread.thread_id, ctx.stat(rollout))
            link = header.link
            parent_id = link.forked_from or link.spawn_parent
            if parent_id is None or parent_id in own:
                continue
            parent = discover(ctx).threads.get(parent_id)
            parts.append(f"parent {parent_id}" + ("" if parent else " gone"))
            read = [parent] if parent else []
            if parent is None and link.forked_from is not None and is_fork(link):
                # Its copies count in it, but those any fork of that parent before it copied
                # (``goneparent``), or a thread it came through that is found (``ancestry``): its
                # count is keyed by all those threads' files, and by those walked that are gone.
                read = earlier_forks(thread.thread_id, parent_id, header.started_at, ctx)
                parts.extend([f"earlier fork {fork.thread_id}" for fork in read] or ["first fork"])
                ancestry = nearest_found(thread, parent_id, ctx)
                parts.extend(f"ancestor {one}" + ("" if found else " gone") for one, found in ancestry.walked)
                # The earlier forks of each gone thread it came through (``passed_forks``): one
                # deleted or restored, the calls it copied count here, or there, again.
                passed = passed_forks(thread.thread_id, ancestry, ctx)
                parts.extend(f"passed fork {fork.thread_id}" for fork in passed)
                read += passed + ([ancestry.found] if ancestry.found is not None else [])
            for path, _ in (item for source in read for item in _thread_files(source)):
                stat = ctx.stat(path)
                parts.append(file_identity(path, stat) if stat else f"{path} gone")  # as a session's own files
        return parts

    def census_stat_paths(self, ctx: ScanContext) -> list[str] | None:
        # Discovery also reads each home's ``session_index.jsonl`` (thread names): a rename
        # appends to it, and then the stored discovery (its fingerprints) no longer stands.
        from agentscan.providers.codex.roots import session_index_paths

        return [_census_path(path) for path in session_index_paths(self.roots(ctx))]

    def copied_elsewhere(self, native_id: str, path: str | None, ctx: ScanContext) -> bool:
        from agentscan.providers.codex.goneparent import forks_of

        return bool(forks_of(native_id, ctx))  # (a fork of a gone parent counts its copies: ``goneparent``)

    def copies_another(self, native_id: str, path: str | None, ctx: ScanContext) -> bool:
        from agentscan.providers.codex.goneparent import is_a_fork

        return is_a_fork(native_id, ctx)

    def known_gone(self, prefix: str, ctx: ScanContext) -> list[str]:
        from agentscan.providers.codex.diagnose import known_gone

        return known_gone(prefix, ctx)

    def database_problem(self, path: Path, ctx: ScanContext) -> str | None:
        from agentscan.providers.codex.index import database_problem

        return database_problem(path, ctx)

    def database_caveat(self, path: Path, ctx: ScanContext) -> str | None:
        from agentscan.toolkit.sqlite_ro import WAL_UNREAD_STATUS, unread_wal

        # (read from its main file alone, as ``index`` reads it then, and warns)
        return WAL_UNREAD_STATUS if unread_wal(path) else None

    def diagnostics(self, ctx: ScanContext) -> list[str]:
        """For doctor: which thread index was used, and what it knows that disk does not."""
        from agentscan.providers.codex.diagnose import diagnostics

        return diagnostics(ctx, self.roots(ctx))

    def known_cwds(self, ctx: ScanContext, *, brief: bool = False) -> set[str]:
        from agentscan.providers.codex.discovery import discover

        from agentscan.providers.codex.header import thread_header

        cwds: set[str] = set()
        # ``brief``: a run that did not ask for Codex does not wait on its locked thread index.
        for thread in discover(ctx, names=False, brief=brief).threads.values():  # the directories alone
            cwd = thread.indexed.cwd if thread.indexed and thread.indexed.cwd else thread_header(thread, ctx).cwd
            if cwd:
                cwds.add(cwd)
        return cwds

    def row(self, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        from agentscan.providers.codex.row import build_row

        return build_row(self._session(ref, ctx), ctx)

    rows_may_travel = True

    #: the models its window, its kept tally and the index name (``tablefacts``), or none where unsure
    facts_name_models = True
    can_archive = True  # (``row.archived``)

    def subagent_types(self, ref: SessionRef, ctx: ScanContext, runs: Collection[str]) -> dict[str, str]:
        from agentscan.providers.codex.threadfacts import child_kinds

        return child_kinds(self._session(ref, ctx), ctx, runs)

    def table_facts(self, ref: SessionRef, ctx: ScanContext, *, models: bool = False) -> TableFacts | None:
        from agentscan.providers.codex.discovery import CodexSession
        from agentscan.providers.codex.tablefacts import table_facts

        return table_facts(ref.hint, ctx, models=models) if isinstance(ref.hint, CodexSession) else None

    def archived_unread(self, ref: SessionRef, ctx: ScanContext) -> bool | None:
        # As the row tells it, from discovery; a ref the index remembered (a warm windowed ``tokens``:
        # discovering again cost 0.3 s of 1,500 threads) from its main file's place and index row.
        from agentscan.memohint import is_memo_ref

        if is_memo_ref(ref) and ref.path is not None:
            from agentscan.providers.codex.index import archived_at

            return archived_at(ref.path, ref.native_id, ctx)
        from agentscan.providers.codex.row import session_archived

        return session_archived(self._session(ref, ctx))

    def row_travels(self, ref: SessionRef, ctx: ScanContext) -> bool:
        # Without its session from discovery, the row would discover again (``_session``), as
        # would a fork's (is its parent found? ``goneparent``): those are read here.
        return self.passes_stand_alone(ref, ctx)

    def usage_travels(self, ref: SessionRef, ctx: ScanContext) -> bool:
        return self.passes_stand_alone(ref, ctx)

    def passes_stand_alone(self, ref: SessionRef, ctx: ScanContext) -> bool:
        # A thread forked from (or spawned by) one outside the session may need that
        # thread's calls, which only discovery finds (``owncalls.own_calls`` and ``own_packed``); so does the fingerprint,
        # which its holder hands over with the ref.
        from agentscan.providers.codex.discovery import CodexSession

        return isinstance(ref.hint, CodexSession) and not self._parents_files(ref.hint, ctx)

    def wants_refresh(self, row: SessionRow) -> bool:
        return row.counts_partial

    def refresh_row(self, row: SessionRow, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        """A cached row with partial counts: a full pass may have left the tally since."""
        if not row.counts_partial:
            return row
        from agentscan.providers.codex.row import build_row, session_counts

        session = self._session(ref, ctx)
        if session_counts(session, ctx) is None:
            return row
        # The tally also tells the calls per model of the whole file, so the model may change
        # with the counts: the row is built again (its windows were just read, and are cached).
        return build_row(session, ctx)

    def _session(self, ref: SessionRef, ctx: ScanContext) -> CodexSession:
        from agentscan.providers.codex.discovery import CodexSession, discover

        if isinstance(ref.hint, CodexSession):
            return ref.hint
        return discover(ctx).sessions[ref.native_id]

    def detail(self, ref: SessionRef, ctx: ScanContext, bounds: Bounds) -> SessionDetail:
        from agentscan.providers.codex.showpass import ShowPass

        session = self._session(ref, ctx)
        shown = ShowPass(session, ctx, bounds)
        for thread in session.threads():
            shown.read_thread(thread, _thread_files(thread))
        from agentscan.providers.codex.owncalls import own_calls

        return shown.build(own_calls(shown.scanned, ctx))

    def usage(self, refs: Iterable[SessionRef], ctx: ScanContext) -> list[UsageEntry]:
        from agentscan.providers.codex.owncalls import own_calls

        return own_calls(self._scanned(refs, ctx), ctx)

    def session_usage(
        self, ref: SessionRef, ctx: ScanContext, resume: bytes | None = None, *, keep_state: bool = False,
        call_times: bool = False,
    ) -> tuple[Iterable[list], bytes | None]:
        # ``usage``'s calls packed as they are found, no ``UsageEntry`` made (``owncalls.own_packed``).
        from agentscan.providers.codex.owncalls import own_packed

        return own_packed(self._scanned([ref], ctx), ctx), None

    def _scanned(self, refs: Iterable[SessionRef], ctx: ScanContext) -> list[Scanned]:
        """Every file of ``refs``' threads, scanned for its calls (``owncalls`` counts them)."""
        from agentscan.providers.codex.header import first_file_reading, thread_header
        from agentscan.providers.codex.usage import scan_file

        scanned: list[Scanned] = []
        for ref in refs:
            session = self._session(ref, ctx)
            for thread in session.threads():
                header = thread_header(thread, ctx)
                subagent = None if thread is session.main else thread.thread_id
                for path, _ in _thread_files(thread):
                    replay, referenced = first_file_reading(thread, header, path)
                    scanner = scan_file(
                        path, ctx, replay=replay,
                        started=header.started_at, thread_id=thread.thread_id, history_start=header.history_start,
                        referenced=referenced,
                    )
                    scanned.append((session.native_id, subagent, thread, scanner))
        return scanned


def _census_path(path: Path) -> str:
    """The path the census stats for a session index: itself, or the folder holding it, whose
    own stat changes when the file is put right, when it cannot be stat'ed (a symlink loop: the
    census gives up on such a path, and every run would discover afresh) or links out of its
    home (never read, and what it leads to may change each run: ``/proc/self/environ``)."""
    import os

    from agentscan.providers.codex.names import links_out

    if links_out(path):
        return str(path.parent)
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        pass  # missing: the census says so itself
    except (OSError, ValueError):
        return str(path.parent)
    return str(path)


def _thread_files(thread: Thread) -> list[tuple[Path, int | None]]:
    """A thread's files in history order, each with the bytes of it the live
    conversation uses (``None``: all)."""
    return [(segment.rollout.path, segment.live_bytes) for segment in thread.segments] + [(thread.rollout.path, None)]


__all__ = ["CodexProvider"]
