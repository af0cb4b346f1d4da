"""The Gemini CLI provider (docs/providers/gemini.md).

Gemini CLI keeps one chat per session under ``.gemini/tmp/<projectId>/chats/``:
a whole-file JSON up to v0.38, an append log with rewrites from v0.39, and
subagent chats in a dir named by their parent session.  Discovery reads
only headers; ``list`` and ``tokens`` replay each chat without its text;
``show`` re-reads the messages it displays.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from agentscan.context import ScanContext
from agentscan.providers.base import Provider, files_identity
from agentscan.providers.gemini.roots import gemini_roots, registry_files, session_roots
from agentscan.toolkit.fsutil import stamp_now
from agentscan.toolkit.roots import Root

if TYPE_CHECKING:  # a command imports only what it runs (see ``claude.provider``)
    from agentscan.model import SessionRef, SessionRow, UsageEntry
    from agentscan.providers.gemini.discovery import SessionFiles
    from agentscan.providers.gemini.projects import ProjectIndex
    from agentscan.bounds import Bounds
    from agentscan.detailmodel import SessionDetail
    from agentscan.providers.gemini.chatlog import SessionChats
    from agentscan.providers.gemini.logs import LoggedPrompt


class GeminiProvider(Provider):
    name = "gemini"
    label = "Gemini CLI"
    env_vars = ("GEMINI_CLI_HOME", "GEMINI_DATA_DIR")
    # 3: function responses are not prompts; cwd from paths the chat names
    # 4: the injected <session_context> message is no prompt nor title
    # 5: a salvaged legacy chat has one warning, not the parser's as well
    # 6: a bad line's place said as its column; show's errors
    # 7: a row keeps no warning of the other providers asked for cwds (``OwnRefs.borrowed_cwds``)
    # 8: no compression summary as a prompt; Gemini's summary the title; an orphan subagent's
    #    title and counts; nothing recorded, no cwd
    # 9: a legacy subagent chat (``<parentId>/<id>.json``) is read, not skipped
    # 10: a user message of images and no text is a prompt (``[image]``: ``records.prompt_text``)
    # 12: a chat of its header alone (a start left at once) recorded nothing: no start, no cwd
    # 13: compression's fixed "Got it. Thanks for the additional context!" after its summary
    #     is no response
    # 14: a line over the 4 MiB cap (inline image data) is read without its long strings
    #     (``toolkit.shrinkline``), not skipped
    # 15: a legacy chat cut short is "cut short (file still being written?)" while young, and
    #     a salvage's count is said in the singular for one message (its warning is kept with the row)
    # 16: a slash command Gemini CLI runs itself (``/stats``, ``/quit``: ``records.LOCAL_COMMANDS``)
    #     that ``logs.json`` holds for a chat of no user message is no prompt
    # 17: a legacy chat cut just after a ``}`` is cut short too (told by where its parse fails)
    # 18: a projects.json of a shape Gemini CLI never writes is said (its warning kept with the
    #     rows it leaves without a cwd); ``show`` marks the slash commands logs.json holds for a
    #     chat with prompts of its own
    # 19: a damaged or huge logs.json read for those marks alone is ``show``'s note
    #     (``commands_unmarked``), not a warning
    # 20: a legacy chat read only up to its damage, before any usage, is marked so in its row
    #     (``SessionRow.usage_cut``), kept in the index: its usage is not known on any run
    # 21: an empty ``$set.messages`` (a turn cancelled before any reply) clears nothing, as in
    #     Gemini CLI's own loader: the prompts before it stay the session's
    # 22: a subagent chat written with no parent id (``chats/<sessionId>.jsonl``) is a session of
    #     its own (``discovery._attach_orphans``), not skipped
    # 23: such a chat with the sessionId of a ``session-*`` chat, or of a nested subagent chat,
    #     is skipped with a warning: it no longer replaces the session, nor counts twice
    # 24: ``$patch`` lines (content and tool-result updates, ``removeIds``, ``orderIds``) are read
    #     as Gemini CLI's loader reads them (``chatpatch``), not skipped; tokens never patched
    # 25: the title is the first prompt in file order (``row.typed_prompts``): a ``$patch``'s
    #     ``orderIds`` or ``removeIds`` titled the session with a later prompt
    # 26: an empty ``$set.messages`` clears the conversation, as the Gemini CLI loader that clears
    #     and rebuilds on any list does (21 followed a loader, 016443b5's, that takes the last
    #     non-empty list alone: its prompts stayed in ``counts`` and ``show``).  Builds differ; the
    #     rebuilding one's rule is the one kept for a non-empty checkpoint (``chatlog``)
    parser_version = "26"
    # Gemini CLI appends each record (``fs.appendFileSync``) and closes the chat: no process
    # holds it open while the session runs, so ``/proc`` cannot tell a running one.
    liveness_known = False

    def roots(self, ctx: ScanContext) -> list[Root]:
        return gemini_roots(ctx)

    def may_cut_usage(self, ref: SessionRef, ctx: ScanContext) -> bool:
        # A legacy chat caught half rewritten (or damaged) is salvaged up to the damage, and
        # every message after it is lost (``legacy``): one whose salvage kept no usage is not
        # a chat that "recorded no usage", its usage is not known (what was recovered counts
        # when there is some).  Its row keeps that mark (``SessionRow.usage_cut``), so a row
        # taken back from the index tells it as well: this run's warnings were matched by
        # their words before.  Only a legacy ``.json`` chat can be cut so, and not one this
        # scan's usage pass read whole (``session_usage``): a cold ``tokens --json`` replayed
        # each legacy chat of no usage again for its row (400 chats: 1.6 s -> 2.7 s).
        if ref.path is None or ref.path.suffix != ".json":
            return False
        whole = ctx.memo.get(_READ_WHOLE, {}).get(ref.id)
        return whole is None or whole != stamp_now(ref.path)

    def discover(self, ctx: ScanContext) -> list[SessionRef]:
        from agentscan.model import SessionRef
        from agentscan.providers.gemini.discovery import discover_sessions

        sessions = discover_sessions(session_roots(self.roots(ctx)), ctx)
        return [
            SessionRef(
                provider=self.name,
                native_id=files.native_id,
                path=files.main.path if files.main else None,
                recency=files.newest_mtime,
                files=files.paths(),
                hint=files,
                children=tuple(files.subagents),
            )
            for files in sessions.values()
        ]

    def index_problem(self, path: Path, ctx: ScanContext) -> str | None:
        from agentscan.providers.gemini.projects import registry_problem

        return registry_problem(path, ctx) if path.name == "projects.json" else None

    def known_cwds(self, ctx: ScanContext, *, brief: bool = False) -> set[str]:
        # Only what Gemini itself wrote down; hash dirs are resolved elsewhere.
        from agentscan.providers.gemini.discovery import project_dirs

        roots = self.roots(ctx)
        index = self._projects(ctx, roots)
        cwds = index.registered_roots()
        for project in project_dirs(session_roots(roots), ctx):
            owner = index.marker(project, ctx)
            if owner:
                cwds.add(owner)
        return cwds

    def fingerprint(self, ref: SessionRef, ctx: ScanContext, *, version: str | None = None) -> str | None:
        """The chats' identity, and that of the files that settle the cwd (``cwd_for``): the
        project dir's ``.project_root``, else the registries (``projects.json``).  Keyed by the
        chats alone, a row (and ``sumsrow``'s) kept the old cwd after either was edited, until
        ``--no-cache``.  A stat per project dir and per registry, memoised for the scan
        (``cwd_stamp``); a registry edit (a new project) renews only the rows it may settle."""
        from agentscan.providers.gemini.discovery import cwd_stamp

        files = ref.read_files
        if not files:
            return None
        return files_identity(ctx, files, [self.name, version or self.parser_version, cwd_stamp(self, ref, ctx)])

    # -- parsing -----------------------------------------------------------

    def _projects(self, ctx: ScanContext, roots: list[Root] | None = None) -> ProjectIndex:
        from agentscan.providers.gemini.projects import project_index

        roots = roots if roots is not None else self.roots(ctx)
        ctx.confine_to(root.path for root in roots)  # before any side file is read
        return project_index(registry_files(roots), ctx)

    def _chats(self, ref: SessionRef, ctx: ScanContext, *, keep_raw: bool = False, prompts: bool = True) -> SessionChats:
        from agentscan.providers.gemini.chatlog import SessionChats, read_conversation
        from agentscan.providers.gemini.logs import logged_prompts

        files: SessionFiles = ref.hint
        main = None
        if files.main is not None:
            main = read_conversation(files.main.path, ctx, legacy=files.main.legacy, keep_raw=keep_raw)
        subagents = {
            agent_id: read_conversation(chat.path, ctx, legacy=chat.legacy, keep_raw=keep_raw)
            for agent_id, chat in sorted(files.subagents.items())
        }
        chats = SessionChats(ref.native_id, main, subagents)
        # logs.json is a fallback for prompts only, so ``tokens`` never reads it.
        if prompts and main is not None and files.main is not None and not any(f.prompt is not None for f in main.messages):
            chats.logged = logged_prompts(files.main.project_dir, ref.native_id, ctx)
        return chats

    def _commands(self, ref: SessionRef, chats: SessionChats, ctx: ScanContext) -> tuple[list[LoggedPrompt], str | None]:
        """The slash commands Gemini CLI ran itself in a chat of prompts of its own: its chat
        records none, ``logs.json`` (the project's inputs as typed) alone holds them.  Read for
        ``show`` only, once a scan (memoised): a row's counts and title are its chat's.  With
        why they could not be told (``logs.local_commands``), or ``None``."""
        from agentscan.providers.gemini.logs import local_commands

        files: SessionFiles = ref.hint
        if chats.logged or chats.main is None or files.main is None:
            return [], None  # (a chat of no prompt: ``logged`` holds them all)
        return local_commands(files.main.project_dir, ref.native_id, ctx)

    def _row_from(self, ref: SessionRef, chats: SessionChats, ctx: ScanContext,
                  projects: ProjectIndex | None = None) -> SessionRow:
        from agentscan.providers.gemini.records import as_str
        from agentscan.providers.gemini.row import build_row, recorded_nothing

        files: SessionFiles = ref.hint
        primary = files.primary
        cwd = None
        # A session that recorded nothing has no cwd: where its broken file lies is no fact of
        # it, and ``list`` leaves out such a row (docs/cli.md), not one of dashes at its top.
        if primary is not None and not recorded_nothing(chats):
            chat_hash = as_str(chats.main.meta.get("projectHash")) if chats.main else None
            mentioned = set().union(*(chat.paths for _, chat in chats.everything()))
            projects = projects or self._projects(ctx)
            cwd = projects.cwd_for(primary.project_dir, chat_hash or primary.project_hash, ctx, mentioned)
        path: str | None
        if files.main is not None:
            path = str(files.main.path)
        else:
            # No main chat: the subagents' dir, named by the parent's id, stands for it.
            path = str(primary.path.parent) if primary is not None else None
        return build_row(chats, provider=self.name, path=path, cwd=cwd, recency=ref.recency)

    def row(self, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        from agentscan.providers.gemini import sumsrow

        # The row the sums' pass built from its own replay, when it kept one (``sumsrow``).
        return sumsrow.kept(self, ref, ctx) or self._row_from(ref, self._chats(ref, ctx), ctx)

    def sums_row(self, ref: SessionRef, chats: SessionChats, ctx: ScanContext) -> SessionRow | None:
        """The row of ``chats`` replayed by the sums' pass (``sumsrow``), when the session's
        project dir alone settles its cwd (``ProjectIndex.settled_by_dir``), else ``None``.
        Its project index is its own, its warnings held and never said: the row's pass, with
        the scan's own index, says them (a bad ``projects.json``); with any, no row is made."""
        from agentscan.providers.gemini.projects import ProjectIndex

        primary = ref.hint.primary
        if primary is None:
            return None
        if _SUMS_PROJECTS not in ctx.memo:
            roots = self.roots(ctx)
            ctx.confine_to(root.path for root in roots)  # before any side file is read
            with ctx.held_warnings() as held:
                index = ProjectIndex(registry_files(roots), ctx)
            ctx.memo[_SUMS_PROJECTS] = None if held.said else index
        projects = ctx.memo[_SUMS_PROJECTS]
        if projects is None or not projects.settled_by_dir(primary.project_dir, ctx):
            return None
        return self._row_from(ref, chats, ctx, projects)

    def session_usage(
        self, ref: SessionRef, ctx: ScanContext, resume: bytes | None = None, *, keep_state: bool = False,
        call_times: bool = False,
    ) -> tuple[Iterable[list], bytes | None]:
        """The calls of one replay of the session's chats, and its row kept from that replay
        (``sumsrow``): the row's pass would replay them again."""
        from agentscan.providers.gemini import sumsrow
        from agentscan.providers.gemini.usage import usage_packed

        # (a capture sees what the replay says, and takes nothing from the sums' own)
        stamp = stamp_now(ref.path) if ref.path is not None else None  # (before: a rewrite meanwhile is not vouched for)
        with ctx.warnings.capture() as said:
            chats = self._chats(ref, ctx, prompts=False)
        whole: dict[str, object] = ctx.memo.setdefault(_READ_WHOLE, {})
        if stamp is not None and (chats.main is None or chats.main.damage is None):
            whole[ref.id] = stamp  # no row of the file as it is now is cut (``may_cut_usage``)
        else:
            whole.pop(ref.id, None)
        entries = usage_packed(chats)  # (``usage``'s entries packed, none made)
        if not said and not said.overflowed:
            sumsrow.keep(self, ref, chats, ctx)
        return entries, None

    def wants_refresh(self, row: SessionRow) -> bool:
        return row.cwd is None

    def revised_by_the_index(self, row: SessionRow) -> bool:
        # The cwd comes from the projects registry or another provider's sessions: files,
        # whose censuses a remembered page is keyed by.
        return False

    def refresh_row(self, row: SessionRow, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        """A cached row with no cwd: another provider may have seen the directory since."""
        from agentscan.providers.gemini.discovery import SessionFiles

        files: SessionFiles = ref.hint
        primary = files.primary if isinstance(files, SessionFiles) else None
        # Chats that recorded nothing (``row.recorded_nothing``: broken lines, a header alone)
        # are given no cwd: one from their folder would bring back the row of dashes ``list``
        # leaves out.
        if row.cwd is not None or primary is None or row.recorded_nothing:
            return row
        cwd = self._projects(ctx).cwd_for(primary.project_dir, primary.project_hash, ctx, read_chats=False)
        return row if cwd is None else row.with_changes(cwd=cwd)

    def detail(self, ref: SessionRef, ctx: ScanContext, bounds: Bounds) -> SessionDetail:
        from agentscan.detailmodel import SubagentInfo
        from agentscan.providers.gemini.detail import stream_chat
        from agentscan.providers.gemini.row import conversation_model, oldest_first, recorded_nothing
        from agentscan.providers.gemini.usage import spend_of
        from agentscan.toolkit.detail import DetailCollector

        files: SessionFiles = ref.hint
        chats = self._chats(ref, ctx, keep_raw=True)
        row = self._row_from(ref, chats, ctx)
        collector = DetailCollector(bounds)
        commands, unmarked = self._commands(ref, chats, ctx)
        if chats.main is not None:
            stream_chat(chats.main, collector, ctx, logged=chats.logged, commands=commands)
        extra_tools = []
        infos = []
        nothing = recorded_nothing(chats)
        # (Orphans in the order they ran: their prompts are the conversation.)
        for agent_id, conversation in oldest_first(chats) if chats.main is None else chats.subagents.items():
            sink = collector.child()
            # With the parent chat gone, the subagents' prompts and replies stand for the
            # session's conversation (``parent_missing``), as the row's title and counts do.
            stream_chat(conversation, sink, ctx, subagent=agent_id, voice=collector if chats.main is None else None)
            extra_tools.extend(sink.tools())
            if nothing:
                continue  # as the row has none: ``show`` says it recorded nothing
            # The chat names no agent type; the parent's call does not link to it.
            infos.append(SubagentInfo(agent_id, None, str(files.subagents[agent_id].path), spend_of(conversation),
                                      model=conversation_model(conversation)))
        rewound = chats.main.rewound if chats.main else 0
        extra: dict = {"rewound_messages": rewound, "errors": collector.errors()}
        if chats.main is None and not nothing:
            extra["parent_missing"] = True
        if unmarked is not None:
            extra["commands_unmarked"] = unmarked  # (the card's note: no warning, the chat itself was read)
        return collector.build(row, subagents=tuple(infos), extra_tools=extra_tools, extra=extra)

    def usage(self, refs: Iterable[SessionRef], ctx: ScanContext) -> list[UsageEntry]:
        from agentscan.providers.gemini.usage import usage_entries

        entries: list[UsageEntry] = []
        for ref in refs:
            entries.extend(usage_entries(self._chats(ref, ctx, prompts=False)))
        return entries


__all__ = ["GeminiProvider"]


#: the sums' pass's own project index (``GeminiProvider.sums_row``), in ``ctx.memo``
_SUMS_PROJECTS = "gemini-sums-projects"
#: ``ctx.memo``: the sessions whose chats the sums' pass read whole, to their main file's stamp
#: then (``may_cut_usage``: a scanner lives on, and the file may be rewritten since)
_READ_WHOLE = "gemini-read-whole"


