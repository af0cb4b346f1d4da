"""Cursor sessions that have neither a transcript nor a global composer.

* an Agent CLI chat whose ``store.db`` survives but whose transcript does
  not (or was never written): named by the store, read from its messages
  (``storechat.py``); no tokens are recorded there;
* a composer that only a workspace DB lists, with its conversation inline
  (older IDE builds, ``workspace.py``): its bubbles give counts and tokens.

Both are listed so that no session (and no token) is lost; rows and
``show`` read them like the other sessions (docs/providers/cursor.md).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from agentscan.context import ScanContext
from agentscan.model import Counts, SessionRef, SessionRow, TokenUsage
from agentscan.providers.cursor.chats import chat_meta, meta_json
from agentscan.providers.cursor.composer import ASSISTANT_BUBBLE, user_prompt
from agentscan.providers.cursor.cwd import Naming, md5_names
from agentscan.providers.cursor.ide import tool_event
from agentscan.providers.cursor.records import as_dict, as_epoch_ms, as_list, as_str, bubble_moment, model_name
from agentscan.providers.cursor.row import CursorHint, StoreSession, top_model
from agentscan.providers.cursor.storechat import store_events
from agentscan.providers.cursor.transcript import summarize_events
from agentscan.providers.cursor.workspace import WorkspaceComposer, composer_entries
from agentscan.timeutil import from_epoch, newest

if TYPE_CHECKING:
    from agentscan.providers.cursor.children import Family
    from agentscan.toolkit.detail import DetailCollector

PROVIDER = "cursor"
_MD5 = re.compile(r"[0-9a-fA-F]{32}")


def store_ref(native_id: str, directory: Path, ctx: ScanContext, chats: tuple[str, ...] = ()) -> SessionRef:
    """``chats``: the runs under this chat (its CLI subagent chats: ``children``)."""
    store = directory / "store.db"
    updated = as_epoch_ms(meta_json(directory, ctx).get("updatedAtMs"))
    stamps = [updated / 1000] if updated else []
    try:
        stamps.append(store.stat().st_mtime)
    except OSError:
        pass
    # The CLI holds store.db open while the chat runs: it is the session's file.
    return SessionRef(PROVIDER, native_id, store, max(stamps, default=0.0), (store,),
                      CursorHint(None, store=StoreSession(directory)), children=chats)


def workspace_ref(native_id: str, composer: WorkspaceComposer) -> SessionRef:
    # Its bubbles' newest time too, as its row's ``updated_at`` (``workspace_row``) takes it:
    # an old build's composer may keep ``lastUpdatedAt`` at its creation (``bubbletimes``).
    stamp = newest(composer.updated, composer.stats.last_ts) or composer.created
    recency = stamp.timestamp() if stamp else _mtime(composer.db)
    # The workspace DB is shared by every composer of the folder: no file of its own.
    return SessionRef(PROVIDER, native_id, None, recency, (), CursorHint(None, workspace=composer))


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _named_by(session: StoreSession) -> Callable[[str], Naming] | None:
    """A CLI chat's folder is ``chats/<md5(cwd)>/<id>``: the hash tells its cwd
    among the folders the tools touched (``acp-sessions/<id>`` says nothing)."""
    digest = session.directory.parent.name
    return md5_names(digest) if _MD5.fullmatch(digest) else None


def store_row(native_id: str, session: StoreSession, ctx: ScanContext, *, subagents: int = 0,
              tokens: TokenUsage | None = None) -> SessionRow:
    meta = chat_meta(native_id, ctx)
    unread: list[str] = []
    summary = summarize_events(store_events(session.store, ctx, unread), _named_by(session))
    mtime = _mtime(session.store)
    started = (meta.created if meta else None) or summary.first_ts
    return SessionRow(
        provider=PROVIDER,
        native_id=native_id,
        path=str(session.store),
        title=(meta.name if meta else None) or summary.first_prompt,
        cwd=(meta.cwd if meta else None) or summary.cwd.best(),
        model=meta.model if meta else None,
        started_at=started,
        # The store's mtime only when nothing recorded a time (a copied home has
        # every mtime at the copy time: docs/cli.md, "UPDATED").
        updated_at=newest(meta.updated if meta else None, summary.last_ts, started) or (from_epoch(mtime) if mtime else None),
        counts=Counts(summary.prompts, summary.responses, summary.tool_calls),
        # Its store not read (locked while the Agent CLI writes it): 0 prompts would be a
        # count nobody made (``show`` says "not known", as of a workspace-listed composer).
        counts_partial=bool(unread),
        subagents=subagents,
        tokens=tokens,
    )


def stream_store(session: StoreSession, ctx: ScanContext, collector: DetailCollector) -> None:
    from agentscan.providers.cursor.detail import stream_events  # ``show``'s only: the detail model

    stream_events(store_events(session.store, ctx), collector)


def workspace_row(native_id: str, composer: WorkspaceComposer) -> SessionRow:
    stats = composer.stats
    return SessionRow(
        provider=PROVIDER,
        native_id=native_id,
        path=str(composer.db),
        title=composer.name or composer.first_prompt,
        cwd=composer.folder,
        model=top_model(stats),
        started_at=composer.created or stats.first_ts,
        updated_at=newest(composer.updated, stats.last_ts),
        tokens=stats.tokens(),
        counts=Counts(stats.prompts, stats.responses, stats.tool_calls),
        # Listed with no inline conversation (the global DB unreadable: ``provider.discover``):
        # its turns are in that DB, so 0 prompts would be a count nobody made.
        counts_partial=not composer.has_conversation,
        archived=composer.archived,
    )


def _conversation(composer: WorkspaceComposer, ctx: ScanContext) -> list[dict]:
    """The composer's inline bubbles, read again from its workspace DB (``show``)."""
    for entry in composer_entries(composer.db, ctx):
        if entry.get("composerId") == composer.composer_id:
            return [bubble for bubble in as_list(entry.get("conversation")) if isinstance(bubble, dict)]
    return []


def stream_workspace(composer: WorkspaceComposer, ctx: ScanContext, collector: DetailCollector) -> None:
    for raw in _conversation(composer, ctx):
        when = bubble_moment(raw)
        text = as_str(raw.get("text"))
        prompt = user_prompt(raw)
        if prompt is not None:
            collector.add_prompt(prompt.strip(), when)
        elif raw.get("type") == ASSISTANT_BUBBLE:
            if text:
                collector.add_response(text.strip(), when, model_name(as_dict(raw.get("modelInfo")).get("modelName")))
            tool = as_dict(raw.get("toolFormerData"))
            if tool:
                collector.add_tool(tool_event(tool, when))


def workspace_only(composer: WorkspaceComposer, found: Family, ctx: ScanContext) -> bool:
    """Whether ``composer``, which a workspace DB lists and no transcript, IDE composer or CLI
    store of ``found`` is, is a session of its own (``discover``).  While the global DB cannot
    be read (corrupt, locked) every one is (its name, times and folder; its tokens unknown, and
    the DB's warning says why): a damaged global DB must not hide sessions the workspace DBs
    still name."""
    from agentscan.providers.cursor.statedb import state_db

    if found.forest.owned(composer.composer_id):
        return False
    return composer.has_conversation or state_db(ctx).unread() is not None


__all__ = ["StoreSession", "store_ref", "store_row", "stream_store", "stream_workspace", "workspace_only", "workspace_ref",
           "workspace_row"]
