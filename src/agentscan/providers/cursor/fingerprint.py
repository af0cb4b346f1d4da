"""What a Cursor session's fingerprint and the census stat: its transcripts, and every store a
row also reads (``CursorProvider.fingerprint``, ``census_stat_paths``).

``state.vscdb`` (and its ``-wal``) changes whenever Cursor writes, so a cached Cursor row is
reused only while the IDE is idle: correct first.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from agentscan.providers.cursor.roots import workspace_dir

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef
    from agentscan.providers.cursor.workspace import WorkspaceComposer

#: ``ctx.memo``: the ids ``discover`` lists before the workspace-only composers, with the
#: ``Family`` they are of (``_stored_workspace``)
_LISTED = "cursor.listed_before_workspaces"

#: what discovery reads in each ``workspaceStorage/<hash>/`` (``workspace.py``)
_WORKSPACE_FILES = ("workspace.json", "state.vscdb", "state.vscdb-wal")


def census_stat_paths(ctx: ScanContext) -> list[str] | None:
    """Discovery also opens the workspace DBs beside the global one (IDE-only composers), newest
    workspace first: each workspace dir (its mtime) and the three files read in it, not the rest
    (extension storage can be huge).  ``None``: the folder could not be listed."""
    workspaces = workspace_dir(ctx)
    if workspaces is None:
        return []
    paths = [str(workspaces)]
    try:
        with os.scandir(workspaces) as listing:
            entries = sorted((entry.name, entry.is_dir()) for entry in listing)
    except (FileNotFoundError, NotADirectoryError):
        return paths
    except OSError:
        return None
    for name, is_dir in entries:
        directory = os.path.join(workspaces, name)
        paths.append(directory)
        if is_dir:
            paths += [os.path.join(directory, file) for file in _WORKSPACE_FILES]
    return paths


def session_fingerprint(provider: str, version: str, ref: SessionRef, ctx: ScanContext) -> str | None:
    """The fingerprint of ``ref`` under parser ``version``; ``None``: a transcript vanished."""
    from agentscan.memohint import is_memo_ref
    from agentscan.providers import fileidentity
    from agentscan.providers.cursor.chats import chat_dirs
    from agentscan.providers.cursor.keptheaders import header_workspaces
    from agentscan.providers.cursor.statedb import state_db
    from agentscan.providers.cursor.workspace import folder_files, workspace_composers, workspace_json
    from agentscan.toolkit.sqlite_ro import with_wal

    db_path = state_db(ctx).path
    chat_dir = chat_dirs(ctx).get(ref.native_id)
    parts = [provider, version]
    stores: tuple[Path, ...] = with_wal(db_path)
    if chat_dir is not None:
        stores += (chat_dir / "meta.json", chat_dir / "store.db")
    workspace = _stored_workspace(ref, ctx) if is_memo_ref(ref) else ref.hint.workspace
    if workspace is not None:
        stores += with_wal(workspace.db)
    for child in ref.children:  # the row counts its CLI subagent chats (``subagents``)
        directory = chat_dirs(ctx).get(child)
        stores += (directory / "meta.json", directory / "store.db") if directory is not None else ()
    # Which runs are the session's is decided over every session (``children``).
    parts.append("\0".join(ref.children))
    # A Cursor 3.0 composer's cwd (``workspace.folder_by_id``); with the DB locked, its header
    # as last read at the DB's stamp (``keptheaders``): the same fingerprint, locked or not.
    workspace_id = header_workspaces(ctx).get(ref.native_id)
    if workspace_id is not None:
        stores += workspace_json(workspace_id, ctx)
    listed = workspace_composers(ctx).get(ref.native_id)
    if listed is not None:  # its cwd and folders: a multi-root workspace file it names is read
        stores += folder_files(listed.db.parent, ctx)
    for path in ref.files:
        stat = ctx.stat(path)  # memoised: discovery and other sessions share the stores' stats
        if stat is None:
            return None  # a transcript vanished: rediscover, do not cache
        parts.append(fileidentity.file_identity(path, stat))
    # A store not there yet is part of the key: one written later gives another.
    return fileidentity.files_identity(ctx, stores, parts, absent_ok=True)


def _stored_workspace(ref: SessionRef, ctx: ScanContext) -> WorkspaceComposer | None:
    """A stored session's ``CursorHint.workspace``, which the index does not keep (its hint is
    the provider's own): its fingerprint under an older parser version is taken of a stored ref
    (``scan.upgraded``), and that must name the workspace DB as discovery's ref does.  Only a
    session without files can be one (a transcript's or a CLI store's has them); for those the
    discovery's own reads decide (memoised for the scan: the parse that follows needs them)."""
    if ref.files:
        return None
    from agentscan.providers.cursor.children import family
    from agentscan.providers.cursor.standalone import workspace_only
    from agentscan.providers.cursor.workspace import workspace_composers

    composer = workspace_composers(ctx).get(ref.native_id)
    if composer is None:
        return None
    found = family(ctx)
    kept = ctx.memo.get(_LISTED)
    if kept is None or kept[0] is not found:
        kept = ctx.memo[_LISTED] = (found, {*found.transcripts, *found.ide, *(native_id for native_id, _ in found.stores)})
    if ref.native_id in kept[1]:
        return None
    return composer if workspace_only(composer, found, ctx) else None
