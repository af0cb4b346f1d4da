"""The Cursor provider: transcripts, the Agent CLI store and ``state.vscdb``.

Sessions are the parent transcripts under ``.cursor/projects`` plus the IDE
composers that exist only in ``state.vscdb``, less the delegated runs (each in one
session: ``children``).  Tokens come only from the DB's bubbles (transcripts record
none), summed over the composer and every delegated sub-composer; when all of them say ``{0,0}`` (current builds) the
session's tokens are ``null`` and ``show`` reports the context gauge instead.
See docs/providers/cursor.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Collection, Iterable, Sequence

from agentscan.context import ScanContext
from agentscan.providers.base import Provider
from agentscan.providers.cursor.roots import cursor_roots, workspace_dir
from agentscan.toolkit.roots import Root

if TYPE_CHECKING:  # a command imports only what it runs (see ``claude.provider``)
    from agentscan.model import SessionRef, SessionRow, UsageEntry
    from agentscan.bounds import Bounds
    from agentscan.detailmodel import SessionDetail
    from agentscan.providers.cursor.discovery import TranscriptSet




class CursorProvider(Provider):
    name = "cursor"
    label = "Cursor"
    env_vars = ("CURSOR_STATE_DB", "CURSOR_CONFIG_DIR", "XDG_CONFIG_HOME", "APPDATA")
    # 3: .txt transcripts, CLI stores and workspace composers listed, agentKv text;
    # 4: updated_at takes meta.json updatedAtMs; 5: a guessed cwd checked against
    # the session folder's name; 6: rows read while state.vscdb was locked were kept
    # (an upgrade must not take them back); 7: a value with a lone surrogate escape is read;
    # 8: a transcript's "[REDACTED]" reasoning marker is no reply, nor part of one;
    # 9: subagentComposerIds/subagentInfo children rolled in, injected user messages no
    # prompts, bubbles' times in updated_at, the last of a comma-joined model label,
    # "New Agent" no title, CLI subagent chats, a 3.0 composer's cwd by its workspaceId;
    # 10: each run in one session only (``children``): a child with a transcript of its own or
    # two parents counted once, loops and isSubagent orphans listed, nested CLI chats kept
    # 11: a multi-root workspace's first folder is its chats' cwd (``multiroot``); a bubble's
    # ``createdAt`` in epoch ms is its time (``records.bubble_time``)
    # 12: a transcript line over the 4 MiB cap is read without its long strings
    #     (``toolkit.shrinkline``), not skipped
    # 13: a multi-root workspace's every folder is the row's ``workspace_folders`` (``--cwd``
    #     matches any of them)
    # 14: while the global DB cannot be read, every composer a workspace DB lists is a row
    #     (tokens null, counts partial)
    # 15: a composer archived in Cursor's chat list (``isArchived``) is marked ``archived``
    # 16: an Agent CLI chat whose store.db could not be read (locked, corrupt) has its counts
    #     not known (``counts_partial``), not 0
    # 17: calls read while the state DB was locked are not kept (``usageparse.calls``): an index
    #     of 16 may hold a session's calls as ``[]``, read so, at the fingerprint of a DB that
    #     did not change; the rows of composers listed from a workspace DB alone are not kept
    # 18: a composer's usage sums carry the warnings of its bubbles (a bad token count) when
    #     its stats were built by the scan's row pass first (``StateDb.bubble_stats``): an
    #     index of 17 may hold such sums with none, read after ``list``
    # 19: a model tie goes to the first by name (``mostused``); a chat only the state DB holds,
    #     listed while the DB cannot be read, has its counts not known
    # 20: a model from the calls (bubbles with tokens) as the kept sums count them, replies with
    #     none only when no call names one; a row built without a locked DB keeps its newer time
    # 21: a multi-root workspace file's JSON error is said at its line as written (comments
    #     blanked in place: ``toolkit.jsoncomments``; a block comment was folded to one space)
    # 22: a bubble with no ``createdAt`` (builds before about 2025-09) is dated by its
    #     ``timingInfo`` wall times (``records.bubble_moment``), not its composer's last update
    # 23: a bubble's bad send time (past the supported years) gives way to its settle or end
    #     time; ``list``'s bound walks back to the last bubble with a time (``bubbletimes``)
    # 24: a value's JSON warnings lead with what happened (``invalid JSON skipped: bubbleId:…``):
    #     ``doctor`` counted them by their key, each a kind of its own
    parser_version = "24"
    # The Agent CLI holds its chat's store.db open (SQLite) while it runs; nothing shows Cursor
    # holding an agent transcript open (tools that follow Cursor live watch its mtime), and the
    # state.vscdb it holds is every composer's: only a store tells, else ``running`` is null.
    liveness_files = ("store.db",)
    #: a composer the user archived in Cursor's chat list (``isArchived``) is ``archived``:
    #: ``list --archived`` reads its rows (``Provider.can_archive``)
    can_archive = True
    # Transcripts carry no time for a tool call (a prompt's only in an optional wrapper).
    records_call_times = False

    def diagnostics(self, ctx: ScanContext) -> list[str]:
        from agentscan.providers.cursor.statedb import state_db
        from agentscan.providers.cursor.workspace import workspace_status

        return [line for line in (state_db(ctx).status(), workspace_status(ctx)) if line]

    def roots(self, ctx: ScanContext) -> list[Root]:
        return cursor_roots(ctx)

    def unread_stores(self, ctx: ScanContext) -> list[tuple[str, str]]:
        from agentscan.providers.cursor.statedb import unread_state_db
        from agentscan.providers.cursor.workspace import unread_workspace_dbs

        return unread_state_db(ctx) + [(str(path), "Cursor workspace DB not read") for path in unread_workspace_dbs(ctx)]

    def kept_model(self, groups: Sequence[Sequence], agent: str | None) -> str | None:
        from agentscan.providers.cursor.mostused import calls_model

        return calls_model(groups, agent)

    def before_archived_unread(self, refs: Sequence[SessionRef], ctx: ScanContext) -> None:
        from agentscan.providers.cursor.statedb import state_db

        db = state_db(ctx)
        db.headers()  # (opened now if nothing in the scan has: ``archived_of`` reads them for each ref anyway)
        if db.unread() is not None:  # (read, the DB says it: ``row.archived_of``)
            from agentscan.providers.cursor.keptrow import read_kept_archived

            read_kept_archived(refs, ctx)

    def archived_unread(self, ref: SessionRef, ctx: ScanContext) -> bool | None:
        from agentscan.providers.cursor.row import archived_of

        return archived_of(ref, ctx)

    def locked_usage(self, ref: SessionRef, ctx: ScanContext) -> tuple[str, str] | None:
        # Every session's tokens are its composer's bubbles (a transcript records none): while
        # the state DB is locked, whether it has any is not known; an Agent CLI chat's never are.
        # Only a lock: a chat listed from a workspace DB alone because the global DB is broken
        # for good has its usage not known too (``unknown_usage``), but an export does not hold
        # it out (a DB broken for good holds back nothing), and a row read while the DB is
        # locked is never kept, which ``unreadrows.read_with_its_db`` relies on.
        from agentscan.providers.cursor.statedb import locked_state_db

        if _cli_chat(ref, ctx):
            return None  # the Agent CLI records no tokens, there or anywhere (formats.md 4.2)
        return locked_state_db(ctx)

    def unknown_usage(self, ref: SessionRef, ctx: ScanContext) -> tuple[str, str] | None:
        # A transcript records no tokens: every session's are its composer's bubbles, in the
        # state DB, so with that DB corrupt they are unknown too, not "recorded no usage".
        from agentscan.providers.cursor.statedb import unread_state_db

        if _cli_chat(ref, ctx):
            return None  # its tokens are in no DB: "not recorded", as with the DB sound
        unread = unread_state_db(ctx)
        return self.locked_usage(ref, ctx) or (unread[0] if unread else None)

    def database_problem(self, path: Path, ctx: ScanContext) -> str | None:
        from agentscan.providers.cursor.statedb import state_db

        db = state_db(ctx)
        return db.problem() if path == db.path else None

    def database_caveat(self, path: Path, ctx: ScanContext) -> str | None:
        from agentscan.providers.cursor.statedb import state_db

        db = state_db(ctx)
        return db.caveat() if path == db.path else None

    def confinement_roots(self, ctx: ScanContext) -> list[Path]:
        workspaces = workspace_dir(ctx)
        return super().confinement_roots(ctx) + ([workspaces] if workspaces is not None else [])

    def census_stat_paths(self, ctx: ScanContext) -> list[str] | None:
        from agentscan.providers.cursor.fingerprint import census_stat_paths

        return census_stat_paths(ctx)

    def discover(self, ctx: ScanContext) -> list[SessionRef]:
        from agentscan.providers.cursor.children import family
        from agentscan.providers.cursor.dbonly import remember_db_only
        from agentscan.providers.cursor.standalone import store_ref, workspace_only, workspace_ref
        from agentscan.providers.cursor.statedb import state_db
        from agentscan.providers.cursor.workspace import workspace_composers

        # Delegated runs (sub-composers, subagent transcripts, CLI subagent chats) are no
        # sessions of their own: each rolls into one parent (``children``).
        found = family(ctx)
        refs = [self._ref(native_id, files, ctx) for native_id, files in found.transcripts.items()]
        refs += [self._ref(native_id, None, ctx) for native_id in found.ide]
        refs += [store_ref(native_id, directory, ctx, found.children(native_id)) for native_id, directory in found.stores]
        listed = {ref.native_id for ref in refs}
        # A composer only a workspace DB lists, with its conversation inline (or any, while
        # the global DB cannot be read: ``workspace_only``).
        for native_id, composer in workspace_composers(ctx).items():
            if native_id not in listed and workspace_only(composer, found, ctx):
                refs.append(workspace_ref(native_id, composer))
        remember_db_only(ctx, state_db(ctx), len(found.ide))  # (said when they are left out: ``dbonly``)
        return refs

    def _ref(self, native_id: str, files: TranscriptSet | None, ctx: ScanContext) -> SessionRef:
        from agentscan.model import SessionRef
        from agentscan.providers.cursor.children import family
        from agentscan.providers.cursor.row import CursorHint, recency

        # An IDE-only composer names no file of its own: state.vscdb is shared
        # by every composer (and held open by Cursor), so it is not the
        # session's file for liveness or the id index.
        return SessionRef(
            provider=self.name,
            native_id=native_id,
            path=files.main if files else None,
            recency=recency(native_id, files, ctx),
            files=files.paths() if files else (),
            hint=CursorHint(files),
            children=family(ctx).children(native_id),  # ``show <child id>`` opens the parent
        )

    def fingerprint(self, ref: SessionRef, ctx: ScanContext, *, version: str | None = None) -> str | None:
        """The transcripts' identity plus every store a row also reads (``fingerprint``)."""
        from agentscan.providers.cursor.fingerprint import session_fingerprint

        return session_fingerprint(self.name, version or self.parser_version, ref, ctx)

    def locate(self, native_id: str, path: str | None, ctx: ScanContext) -> SessionRef | None:
        """An id-index hit on a transcript session (IDE-only ones are rediscovered).  Whose
        runs are whose is known only over every session (``children.family``): that is read
        once per scan, here as in discovery."""
        from agentscan.providers.cursor.children import family

        files = family(ctx).transcripts.get(native_id) if path is not None else None
        return self._ref(native_id, files, ctx) if files is not None else None

    def known_cwds(self, ctx: ScanContext, *, brief: bool = False) -> set[str]:
        from agentscan.providers.cursor.chats import known_chat_cwds
        from agentscan.providers.cursor.statedb import brief_state_db, state_db

        cwds = known_chat_cwds(ctx)
        # For a run that did not ask for Cursor, its DB locked by Cursor is skipped at once
        # (a cron's ``list -p gemini`` must not wait on it).
        db = brief_state_db(ctx) if brief else state_db(ctx)
        cwds.update(info.fs_path for info in db.composers().values() if info.fs_path)
        if db.brief:
            db.close()  # (read once a scan: ``OwnRefs.borrowed_cwds``)
        return cwds

    # -- rows (``assembly``, imported only when a row is built) ------------

    def row(self, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        from agentscan.providers.cursor.assembly import assemble
        from agentscan.providers.cursor.showsession import SHOWN_ROW, shown_key

        shown = ctx.memo.pop(SHOWN_ROW, None)  # (taken once: ``show``'s own, under a lock)
        if shown and shown[0] == shown_key(ref):
            from agentscan.providers.cursor.statedb import state_db

            row = shown[1].row
            state_db(ctx).composers()  # (its failure said again to this row's read: such a row is never kept)
        else:
            row = assemble(ref, ctx).row
        if row.tokens is None and self.locked_usage(ref, ctx) is not None:
            from agentscan.providers.cursor.keptrow import with_sums

            row = with_sums(row, ref, ctx, self.fingerprint(ref, ctx))  # (the sums kept: the DB's)
        return row

    #: only while the state DB is locked (``row``): read with it, a row sums its bubbles itself
    row_takes_sums = True

    def lends_kept(self, ref: SessionRef, ctx: ScanContext) -> bool:
        # Only a row built without the DB's facts (its name, model and times): a workspace-only
        # composer's or a CLI store's is read whole from its own files, which may be newer.
        hint = ref.hint
        if getattr(hint, "workspace", None) is not None or getattr(hint, "store", None) is not None:
            return False
        return self.unknown_usage(ref, ctx) is not None

    def with_kept(self, row: SessionRow, kept: SessionRow, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        from agentscan.providers.cursor.keptrow import with_kept

        return with_kept(row, kept, ref, ctx)

    def subagent_types(self, ref: SessionRef, ctx: ScanContext, runs: Collection[str]) -> dict[str, str]:
        from agentscan.providers.cursor.detail import delegated_kinds  # (the Task calls of its transcripts)
        from agentscan.providers.cursor.statedb import state_db
        from agentscan.providers.cursor.subcomposers import SubComposers

        files = ref.hint.transcripts
        if files is None:
            return {}
        # The runs only state.vscdb holds are claimed by the Task calls too, as ``show`` does.
        composers = SubComposers.of(ref.children, {sub.agent_id for sub in files.subagents}, None, state_db(ctx))
        return {run: kind for run, kind in delegated_kinds(files, ctx, composers.first_texts()).items() if run in runs}

    # -- show ------------------------------------------------------------

    def detail(self, ref: SessionRef, ctx: ScanContext, bounds: Bounds) -> SessionDetail:
        from agentscan.providers.cursor.showsession import session_detail

        return session_detail(ref, ctx, bounds)

    # -- tokens ----------------------------------------------------------

    def usage(self, refs: Iterable[SessionRef], ctx: ScanContext) -> list[UsageEntry]:
        from agentscan.providers.cursor.children import family
        from agentscan.providers.cursor.row import top_model
        from agentscan.providers.cursor.statedb import state_db
        from agentscan.providers.cursor.usage import SessionUsage, session_usage

        db = state_db(ctx)
        entries: list[UsageEntry] = []
        for ref in refs:
            if ref.hint.workspace is not None:
                usage = SessionUsage(ref.hint.workspace.stats, {})
                entries.extend(usage.entries(ref.native_id, db, top_model(ref.hint.workspace.stats)))
                continue  # a workspace-only composer has no delegated runs
            children = family(ctx).children(ref.native_id)
            info = db.composers().get(ref.native_id)
            usage = session_usage(ref.native_id, children, db)
            entries.extend(usage.entries(ref.native_id, db, info.model if info else None))
        return entries


def _cli_chat(ref: SessionRef, ctx: ScanContext) -> bool:
    """Whether ``ref`` is an Agent CLI chat: a folder named by its id under ``chats/<hash>/`` or
    ``acp-sessions/`` (``chats.chat_dirs``), whatever it holds (a ``store.db``, a ``meta.json``
    sidecar alone, as the legacy layout has it: formats.md 4.2), with or without a transcript.
    Only the CLI writes there.  The CLI writes nothing to the IDE's
    ``state.vscdb`` and keeps no billing tokens in its store (formats.md 4.2): its tokens are
    never recorded locally, so a locked or corrupt state DB leaves them "not recorded", not
    "not known".  A flat transcript alone is not taken for one: the layout says the CLI, but
    nothing rules out a composer of that id in the DB, whose tokens would then be unknown."""
    if getattr(ref.hint, "store", None) is not None:
        return True
    from agentscan.providers.cursor.chats import chat_dirs

    return ref.native_id in chat_dirs(ctx)


__all__ = ["CursorProvider"]
