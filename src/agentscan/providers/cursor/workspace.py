"""Composers that Cursor's per-workspace DBs know (docs/providers/cursor.md).

::

    <Cursor User dir>/workspaceStorage/<hash>/workspace.json   {"folder": "file:///abs/path"}
    <Cursor User dir>/workspaceStorage/<hash>/state.vscdb      ItemTable 'composer.composerData'

``composer.composerData`` (older builds; newer ones write the same list as
``composer.composerHeaders``) is ``{"allComposers": [{composerId, name,
createdAt, lastUpdatedAt, …}]}``: which composers ran in that folder.  It
gives the cwd of a global composer that names no workspace, and older builds
kept each composer's whole ``conversation`` (its bubbles, ``tokenCount``
included) right there: such a composer, which the global DB does not know,
is a session of its own.

Each workspace DB is opened read-only through ``toolkit.sqlite_ro``, once
per scan, for two exact ``ItemTable`` keys; a DB that cannot be read is a
warning and is skipped.
"""

from __future__ import annotations

import os
import re
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import orjson

from agentscan.toolkit.words import plural
from agentscan.toolkit import laxjson

from agentscan.context import ScanContext, legible
from agentscan.providers.cursor.bubblenotes import ComposerTally
from agentscan.providers.cursor.composer import BubbleStats, archived_flag, user_prompt
from agentscan.providers.cursor.multiroot import first_folder, folders, local_path, workspace_file
from agentscan.providers.cursor.prompt_text import collapse
from agentscan.providers.cursor.records import as_dict, as_epoch_ms, as_list, as_str, valid_composer_id
from agentscan.providers.cursor.roots import workspace_dir
from agentscan.toolkit.jsondoc import load_json_file
from agentscan.toolkit.sqlite_ro import DatabaseUnavailable, has_table, readonly, unavailable_reason
from agentscan.timeutil import from_epoch

if TYPE_CHECKING:
    from agentscan.providers.cursor.records import RawBubble

_MEMO = "cursor.workspaces"
#: (the DBs opened, those of them that could not be read, the workspace dirs) of this scan
_READ = "cursor.workspaces.read"
TITLE_CHARS = 180
_KEYS = ("composer.composerData", "composer.composerHeaders")
#: a home with more workspace dirs than this reads only the newest ones
MAX_WORKSPACES = 2000
#: a ``workspaceStorage`` dir's name (an md5, or a number for an empty window)
_HASH = re.compile(r"[0-9A-Za-z_-]{1,128}")


class WorkspaceComposer(NamedTuple):
    """A composer a workspace DB lists (a named tuple: see ``cli.term.Terminal``)."""

    composer_id: str
    db: Path  # the workspace state.vscdb that lists it
    folder: str | None  # the workspace's folder (its cwd)
    name: str | None
    created: datetime | None
    updated: datetime | None
    stats: BubbleStats  # of its inline conversation, if any
    first_prompt: str | None = None
    archived: bool = False  # the entry's ``isArchived`` (archived in Cursor's chat list)

    @property
    def has_conversation(self) -> bool:
        return self.stats.bubbles > 0


def folder_of(directory: Path, ctx: ScanContext) -> str | None:
    """The folder a workspace dir stands for, from its ``workspace.json`` URI: a folder's
    (``{"folder": …}``), or a multi-root workspace's first folder (``{"workspace": …}``, a
    ``.code-workspace`` file: ``multiroot``)."""
    document = _workspace_document(directory, ctx)
    uri = as_str(document.get("folder"))
    if uri is not None:
        return local_path(uri)
    named = _named_workspace_file(document)
    return first_folder(named, ctx) if named is not None else None


def folders_of(directory: Path, ctx: ScanContext) -> tuple[str, ...]:
    """Every folder of the multi-root workspace a workspace dir stands for, in its order;
    ``()`` for a window on one folder (or on none known)."""
    named = _named_workspace_file(_workspace_document(directory, ctx))
    return folders(named, ctx) if named is not None else ()


def folders_by_id(workspace_id: str | None, ctx: ScanContext) -> tuple[str, ...]:
    """``folders_of`` ``workspaceStorage/<workspace_id>`` (as ``folder_by_id`` finds it)."""
    root = workspace_dir(ctx)
    if root is None or workspace_id is None or not _HASH.fullmatch(workspace_id):
        return ()
    directory = root / workspace_id
    return () if ctx.linked_outside(directory) else folders_of(directory, ctx)


def folder_files(directory: Path, ctx: ScanContext) -> tuple[Path, ...]:
    """What ``folder_of`` reads for a workspace dir: its ``workspace.json``, and the multi-root
    workspace file that names, if any (a row's fingerprint covers them)."""
    named = _named_workspace_file(_workspace_document(directory, ctx))
    return (directory / "workspace.json",) + ((named,) if named is not None else ())


def _workspace_document(directory: Path, ctx: ScanContext) -> dict[str, Any]:
    """A workspace dir's ``workspace.json`` (``{}``: none, or not an object), read once a scan."""
    read: dict[Path, dict[str, Any]] = ctx.memo.setdefault("cursor.workspace_json", {})
    if directory not in read:
        path = directory / "workspace.json"
        read[directory] = as_dict(load_json_file(path, ctx, max_bytes=64 * 1024)) if os.path.isfile(path) else {}
    return read[directory]


def _named_workspace_file(document: dict[str, Any]) -> Path | None:
    """The multi-root workspace file a ``workspace.json`` names (older builds: ``configuration``)."""
    uri = as_str(document.get("workspace")) or as_str(document.get("configuration"))
    return workspace_file(uri) if uri is not None else None


def composer_entries(db_path: Path, ctx: ScanContext, unread: list[Path] | None = None) -> list[dict[str, Any]]:
    """The ``allComposers`` entries of one workspace DB; one that cannot be read is a
    warning, and is added to ``unread`` (``doctor`` counts them)."""
    try:
        with readonly(db_path) as conn:
            if not has_table(conn, "ItemTable"):
                return []
            marks = ", ".join("?" for _ in _KEYS)
            rows = conn.execute(f"SELECT key, value FROM ItemTable WHERE key IN ({marks})", _KEYS).fetchall()
    except (DatabaseUnavailable, sqlite3.DatabaseError) as exc:
        ctx.warn(db_path, f"Cursor workspace DB not read: {unavailable_reason(exc, db_path)}", passing=True)
        if unread is not None:
            unread.append(db_path)
        return []
    entries: list[dict[str, Any]] = []
    for key, value in sorted(rows, key=lambda row: _KEYS.index(row[0])):
        if value is None:
            continue
        try:
            document = laxjson.loads(value)
        except orjson.JSONDecodeError:
            ctx.warn(db_path, f"invalid JSON skipped: {key}")
            continue
        entries.extend(entry for entry in as_list(as_dict(document).get("allComposers")) if isinstance(entry, dict))
    return entries


def _composer(entry: dict[str, Any], db_path: Path, folder: str | None,
              ctx: ScanContext) -> tuple[WorkspaceComposer, ComposerTally] | None:
    """The composer ``entry`` lists, and its bubbles' bad values, unsaid (``bubblenotes``)."""
    composer_id = valid_composer_id(entry.get("composerId"))
    if composer_id is None:
        return None
    stats = BubbleStats()
    first_prompt = None
    with ComposerTally(db_path, ctx, composer_id, tell=False) as tally:
        for index, bubble in enumerate(as_list(entry.get("conversation"))):
            if isinstance(bubble, dict):
                bubble_id = as_str(bubble.get("bubbleId")) or f"#{index}"
                tally.at(bubble_id)
                stats.add(bubble_id, cast("RawBubble", bubble), live=True)
                text = user_prompt(bubble) if first_prompt is None else None
                if text is not None:
                    first_prompt = collapse(text, TITLE_CHARS)
    return WorkspaceComposer(
        composer_id=composer_id,
        db=db_path,
        folder=folder,
        name=as_str(entry.get("name")),
        created=from_epoch(as_epoch_ms(entry.get("createdAt"))),
        updated=from_epoch(as_epoch_ms(entry.get("lastUpdatedAt"))),
        stats=stats,
        first_prompt=first_prompt,
        archived=archived_flag(entry.get("isArchived")),
    ), tally


def workspace_composers(ctx: ScanContext) -> dict[str, WorkspaceComposer]:
    """Every composer the workspace DBs list (memoised per scan)."""
    found = ctx.memo.get(_MEMO)
    if isinstance(found, dict):
        return found
    found = {}
    ctx.memo[_MEMO] = found
    root = workspace_dir(ctx)
    if root is None or not os.path.isdir(root):
        return found
    ctx.confine_to([root])
    try:
        with os.scandir(root) as listing:
            directories = [Path(entry.path) for entry in listing if ctx.admit(entry) and entry.is_dir()]
    except OSError as exc:
        ctx.cannot_list(root, exc)
        return found
    directories.sort(key=_mtime, reverse=True)
    read: list[Path] = []
    unread: list[Path] = []
    ctx.memo[_READ] = (read, unread, len(directories))
    tallies: dict[str, ComposerTally] = {}  # each composer's counted copy's bad values
    for directory in directories[:MAX_WORKSPACES]:
        db_path = directory / "state.vscdb"
        if not os.path.isfile(db_path) or ctx.linked_outside(db_path):
            continue
        read.append(db_path)
        folder = folder_of(directory, ctx)
        for entry in composer_entries(db_path, ctx, unread):
            read_one = _composer(entry, db_path, folder, ctx)
            if read_one is None:
                continue
            composer, tally = read_one
            # A composer listed twice (a folder reopened): the copy that holds more wins.
            if composer.composer_id not in found or composer.stats.bubbles > found[composer.composer_id].stats.bubbles:
                found[composer.composer_id] = composer
                if tally.counts:
                    tallies[composer.composer_id] = tally
                else:
                    tallies.pop(composer.composer_id, None)
    # Its bad values told once, as it is counted once: the copy's that won.
    for tally in tallies.values():
        tally.say()
    return found


def unread_workspace_dbs(ctx: ScanContext) -> list[Path]:
    """The workspace DBs this scan tried and could not read (none tried: none)."""
    found = ctx.memo.get(_READ)
    return list(found[1]) if found is not None else []


def workspace_status(ctx: ScanContext) -> str | None:
    """One line for ``doctor``: the workspace DBs read beside the global one (the cwd of a
    composer that names no workspace comes from them), and how many could not be read."""
    root = workspace_dir(ctx)
    if root is None:
        return None  # ``CURSOR_STATE_DB`` outside a ``globalStorage`` dir: none are read
    composers = workspace_composers(ctx)
    found = ctx.memo.get(_READ)
    if found is None:
        return f"workspace DBs: none ({legible(str(root))} does not exist or cannot be listed)"
    read, unread, directories = found
    opened = len(read) - len(unread)
    listed = f"{plural(len(composers), 'composer')} listed"
    line = f"workspace DBs: {opened} of {len(read)} read in {legible(str(root))} ({listed}"
    if unread:
        line += f"; {len(unread)} could not be read, see the warnings"
    if directories > MAX_WORKSPACES:
        line += f"; only the newest {MAX_WORKSPACES:,} of {directories:,} workspace dirs"
    return line + ")"


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def folder_by_id(workspace_id: str | None, ctx: ScanContext) -> str | None:
    """The folder of ``workspaceStorage/<workspace_id>`` (a ``composerHeaders`` row's
    ``workspaceId``: Cursor 3.0 composers name no ``fsPath``); memoised, read-only."""
    root = workspace_dir(ctx)
    if root is None or workspace_id is None or not _HASH.fullmatch(workspace_id):
        return None  # a dir name of its own only: never a path out of workspaceStorage
    found: dict[str, str | None] = ctx.memo.setdefault("cursor.workspace_folders", {})
    if workspace_id not in found:
        directory = root / workspace_id
        found[workspace_id] = None if ctx.linked_outside(directory) else folder_of(directory, ctx)
    return found[workspace_id]


def workspace_json(workspace_id: str | None, ctx: ScanContext) -> tuple[Path, ...]:
    """The ``workspace.json`` ``folder_by_id`` reads, and the multi-root workspace file it
    names (a row's fingerprint covers them); ``()``: none."""
    root = workspace_dir(ctx)
    if root is None or workspace_id is None or not _HASH.fullmatch(workspace_id):
        return ()
    directory = root / workspace_id
    # (a linked dir is not read here: ``folder_by_id`` says whether it may be)
    return (directory / "workspace.json",) if os.path.islink(directory) else folder_files(directory, ctx)
