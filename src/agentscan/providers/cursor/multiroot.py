"""The folder of a multi-root workspace (docs/providers/cursor.md, "Workspace DBs").

A window opened on a workspace file has no one folder: its ``workspace.json`` reads
``{"workspace": "file:///…/mono.code-workspace"}``.  That file (JSON with comments and
trailing commas, as VS Code writes and reads it) lists ``folders``, each a ``path``
(relative to the file's own folder, or absolute) or a ``uri``; the first of them that is a
folder on this machine stands for the workspace: its chats' cwd.  All of them are the
row's ``workspace_folders``, which ``--cwd`` matches too (a chat of the workspace may work
in any of its folders).

It lies in the user's project, outside the provider roots: the one file there agentscan
opens (docs/security.md), only when it is named as a workspace file is (``*.code-workspace``,
or an untitled workspace's ``Workspaces/<id>/workspace.json``), only a regular file, at most
``MAX_BYTES``, read-only, once per scan.  One that is gone (moved or deleted: the
``workspace.json`` outlives it) is said by no warning, as a missing ``workspace.json`` is
not; one that cannot be read or is not JSON is, as a bad ``workspace.json`` is.
"""

from __future__ import annotations

import ntpath
import posixpath
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import orjson

from agentscan.context import ScanContext
from agentscan.toolkit.fsutil import read_capped
from agentscan.toolkit.jsoncomments import without_comments, without_trailing_commas
from agentscan.toolkit.jsonerrors import short_json_error
from agentscan.toolkit.jsonl import BOM

#: the most of a workspace file read (VS Code's own are a few hundred bytes)
MAX_BYTES = 256 * 1024
_MEMO = "cursor.multiroot"


def local_path(uri: str) -> str | None:
    """The local path a ``file:`` URI names; ``None`` for a remote one (ssh, wsl, …), which is
    no path on this machine."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    local = unquote(parsed.path)
    if len(local) >= 3 and local[0] == "/" and local[2] == ":":  # file:///C:/x on Windows
        local = local[1:]
    return local or None


def workspace_file(uri: str) -> Path | None:
    """The workspace file ``uri`` names, when it is one (by its name: anything else a
    ``workspace.json`` could name is not opened)."""
    local = local_path(uri)
    if local is None:
        return None
    path = Path(local)
    if path.suffix == ".code-workspace" or (path.name == "workspace.json" and path.parent.parent.name == "Workspaces"):
        return path
    return None


def first_folder(path: Path, ctx: ScanContext) -> str | None:
    """The first folder of workspace file ``path`` that is on this machine (memoised)."""
    found = folders(path, ctx)
    return found[0] if found else None


def folders(path: Path, ctx: ScanContext) -> tuple[str, ...]:
    """Every folder of workspace file ``path`` that is on this machine, in its order, each
    once (memoised): a chat of the workspace may work in any of them, so ``--cwd`` matches
    each (``SessionRow.workspace_folders``)."""
    found: dict[Path, tuple[str, ...]] = ctx.memo.setdefault(_MEMO, {})
    if path not in found:
        found[path] = _folders(path, ctx)
    return found[path]


def _folders(path: Path, ctx: ScanContext) -> tuple[str, ...]:
    try:
        data = read_capped(path, MAX_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return ()  # moved or deleted since: not known, not wrong
    except OSError as exc:
        ctx.cannot_read(path, exc)
        return ()
    text = data.removeprefix(BOM).decode("utf-8", "replace")
    try:
        document = orjson.loads(without_trailing_commas(without_comments(text)))
    except orjson.JSONDecodeError as exc:
        ctx.warn(path, f"multi-root workspace file is not valid JSON: {short_json_error(exc)}; its chats' cwd is unknown")
        return ()
    listed = document.get("folders") if isinstance(document, dict) else None
    places: list[str] = []
    for folder in listed if isinstance(listed, list) else ():
        place = _place(folder, path.parent)
        if place is not None and place not in places:
            places.append(place)
    return tuple(places)


def _place(folder: Any, base: Path) -> str | None:
    """Where one ``folders`` entry is: its ``path`` (relative to ``base``) or its ``uri``."""
    if not isinstance(folder, dict):
        return None
    given = folder.get("path")
    if isinstance(given, str) and given.strip():
        if posixpath.isabs(given) or ntpath.isabs(given):
            return given
        return posixpath.normpath(posixpath.join(str(base), given.replace("\\", "/")))
    uri = folder.get("uri")
    return local_path(uri) if isinstance(uri, str) else None
