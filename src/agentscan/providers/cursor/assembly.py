"""A Cursor session's row, and what was read to build it (``show`` and ``tokens`` reuse it).

Imported only when a row is built: a warm ``list`` takes its rows from the cache and
never needs it.  Sessions are a parent transcript, an IDE-only composer of
``state.vscdb``, or a standalone one (a CLI store, a workspace-only composer:
``standalone.py``); see ``provider.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from datetime import datetime

    from agentscan.context import ScanContext
    from agentscan.model import SessionRef, SessionRow
    from agentscan.providers.cursor.discovery import TranscriptSet
    from agentscan.providers.cursor.row import StoreFacts
    from agentscan.providers.cursor.transcript import TranscriptSummary
    from agentscan.providers.cursor.usage import SessionUsage


class Assembled(NamedTuple):
    """A row and what was read to build it (a NamedTuple: a dataclass costs ten times as
    much to create, and each run that builds a row creates this class)."""

    row: SessionRow
    facts: StoreFacts
    children: tuple[str, ...]
    usage: SessionUsage


def assemble(ref: SessionRef, ctx: ScanContext) -> Assembled:
    """The session's row, with every folder of the multi-root workspace it ran in
    (``row.workspace_folders``: ``--cwd`` matches any of them)."""
    from agentscan.providers.cursor.row import workspace_folders

    found = _assemble(ref, ctx)
    row = found.row
    roots = workspace_folders(ref.native_id, found.facts, row.cwd, ctx) if row.cwd else ()
    return found._replace(row=row.with_changes(workspace_folders=roots)) if roots else found


def _assemble(ref: SessionRef, ctx: ScanContext) -> Assembled:
    from agentscan.providers.cursor.agentkv import conversation_counts
    from agentscan.providers.cursor.children import family
    from agentscan.providers.cursor.row import (
        display_path, header_folder, mtime_time, store_facts, top_model, workspace_folder,
    )
    from agentscan.providers.cursor.statedb import state_db
    from agentscan.providers.cursor.usage import session_usage
    from agentscan.model import Counts, SessionRow
    from agentscan.timeutil import newest

    from agentscan.providers.cursor.ide import first_prompt
    from agentscan.providers.cursor.cwd import slug_names
    from agentscan.providers.cursor.transcript import summarize

    files: TranscriptSet | None = ref.hint.transcripts
    db = state_db(ctx)
    if ref.hint.store is not None or ref.hint.workspace is not None:
        return _assemble_standalone(ref, ctx)
    facts = store_facts(ref.native_id, ctx)
    children = family(ctx).children(ref.native_id)
    usage = session_usage(ref.native_id, children, db)
    common: dict[str, Any] = dict(
        provider=ref.provider,
        native_id=ref.native_id,
        path=display_path(files, db),
        model=facts.model() or top_model(usage.own),
        tokens=usage.tokens(),
        subagents=len(children),
        archived=facts.archived(),  # (marked as a Codex thread archived is: ``(archived)``)
    )
    if files is None:
        stats, info = usage.own, facts.composer
        started = facts.started() or stats.first_ts
        counts, title = Counts(stats.prompts, stats.responses, stats.tool_calls), None
        if stats.textless:
            # Newer builds keep the turns' text in agentKv rows, by request id.
            prompts, responses, tools, title = conversation_counts(stats.requests, db)
            counts = Counts(prompts, responses, max(tools, stats.tool_calls))
        row = SessionRow(
            **common,
            # (with the DB unread, its name as the links kept with its stamp hold it: ``children``)
            title=facts.title() or title or (first_prompt(info, db) if info else None)
            or family(ctx).kept_names.get(ref.native_id),
            cwd=(info.fs_path if info else None) or workspace_folder(ref.native_id, ctx) or header_folder(facts, ctx),
            started_at=started,
            # The bubbles' times too: ``lastUpdatedAt`` may stay at the composer's creation.  With
            # the DB unread, the composer's own time as the links kept with its stamp hold it.
            updated_at=newest(facts.updated(), stats.last_ts, started, _kept_time(ref.native_id, ctx)),
            counts=counts,
            # Its turns are the DB's bubbles: with the DB unread (a chat listed as its last read
            # found it: ``children``), 0 prompts would be a count nobody made.
            counts_partial=db.unread() is not None,
        )
        return Assembled(row, facts, children, usage)
    # The project folder is named after the workspace (a slug): a folder the tools
    # searched is not taken for it when one above it has that name (``cwd.CwdGuess``).
    summary = summarize(files.main, ctx, None if files.in_empty_window else slug_names(files.project))
    row = SessionRow(
        **common,
        title=facts.title() or summary.first_prompt,
        cwd=_cwd(facts, summary, files, ctx),
        started_at=facts.started() or summary.first_ts,
        # The transcript's mtime only when nothing recorded a time (a copied
        # home has every mtime at the copy time: docs/cli.md, "UPDATED").
        updated_at=newest(facts.updated(), summary.last_ts, usage.own.last_ts, facts.started()) or mtime_time(files),
        counts=Counts(summary.prompts, summary.responses, summary.tool_calls),
    )
    return Assembled(row, facts, children, usage)


def _kept_time(native_id: str, ctx: ScanContext) -> datetime | None:
    from agentscan.providers.cursor.children import family
    from agentscan.timeutil import from_epoch

    kept = family(ctx).kept_times.get(native_id)
    return None if kept is None else from_epoch(kept)


def _assemble_standalone(ref: SessionRef, ctx: ScanContext) -> Assembled:
    """A CLI store or a workspace-only composer (``standalone.py``)."""
    from agentscan.providers.cursor.chats import chat_meta
    from agentscan.providers.cursor.children import family
    from agentscan.providers.cursor.row import StoreFacts
    from agentscan.providers.cursor.standalone import store_row, workspace_row
    from agentscan.providers.cursor.statedb import state_db
    from agentscan.providers.cursor.usage import SessionUsage, session_usage

    hint = ref.hint
    facts = StoreFacts(None, None, chat_meta(ref.native_id, ctx))
    if hint.workspace is not None:  # a workspace-only composer has no delegated runs
        # Listed from its workspace DB alone while the global DB could not be read (corrupt,
        # locked: ``provider.discover``), its row reads nothing of that DB, so its capture never
        # heard that it could not be read, and the row was kept (docs/providers/cursor.md:
        # nothing read meanwhile is kept).  Asked here, the DB's failure is said again to it.
        state_db(ctx).composers()
        return Assembled(workspace_row(ref.native_id, hint.workspace), facts, (), SessionUsage(hint.workspace.stats, {}))
    # A CLI subagent's chat records no tokens: its part is empty, but it is counted.
    children = family(ctx).children(ref.native_id)
    usage = session_usage(ref.native_id, children, state_db(ctx))
    row = store_row(ref.native_id, hint.store, ctx, subagents=len(children), tokens=usage.tokens())
    return Assembled(row, facts, children, usage)


def _cwd(facts: StoreFacts, summary: TranscriptSummary, files: TranscriptSet, ctx: ScanContext) -> str | None:
    """Workspace ``fsPath``, the CLI's ``meta.json`` cwd, the workspace DB
    that lists the composer, then tool evidence."""
    from agentscan.providers.cursor.row import header_folder, workspace_folder
    from agentscan.providers.cursor.transcript import add_tool_evidence

    if facts.composer is not None and facts.composer.fs_path:
        return facts.composer.fs_path
    if facts.chat is not None and facts.chat.cwd:
        return facts.chat.cwd
    folder = workspace_folder(files.native_id, ctx) or header_folder(facts, ctx)
    if folder:
        return folder
    guess = summary.cwd
    if guess.working_directory is None:
        for sub in files.subagents:  # children only when the parent named no working_directory
            add_tool_evidence(sub.path, ctx, guess)
    return guess.best()


__all__ = ["Assembled", "assemble"]
