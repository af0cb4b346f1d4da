"""Where Cursor keeps its three stores, and which setting chose each place.

* agent transcripts: ``<home>/.cursor/projects/<slug>/agent-transcripts/``
* Agent CLI store: ``<home>/.cursor/chats/<md5(cwd)>/<id>/`` (and ``acp-sessions``)
* IDE state DB: ``globalStorage/state.vscdb`` under the platform's Cursor user
  dir, or ``CURSOR_STATE_DB`` (contract, "Providers and their roots"): an
  absolute path, or one under the scan's home written ``~/…``.

The state DB candidates of every platform are probed under the home, native
platform first, because a home copied from another machine (or ``--home``
pointed at a backup) keeps its original layout.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agentscan.context import ScanContext
from agentscan.toolkit.roots import Root, platform_dir, setting_paths

PROVIDER = "cursor"
STATE_DB_ENV = "CURSOR_STATE_DB"
_GLOBAL_DB = ("globalStorage", "state.vscdb")


def transcripts_root(ctx: ScanContext) -> Root:
    return Root(PROVIDER, ctx.home / ".cursor" / "projects", ctx.home_source, kind="sessions")


def chat_roots(ctx: ScanContext) -> list[Root]:
    note = "where the Cursor Agent CLI keeps each chat's name, model and working directory (meta.json, store.db)"
    return [
        Root(PROVIDER, ctx.home / ".cursor" / "chats", ctx.home_source, kind="index", note=note),
        Root(PROVIDER, ctx.home / ".cursor" / "acp-sessions", ctx.home_source, kind="index", note=note),
    ]


def _user_dir_candidates(ctx: ScanContext) -> tuple[list[tuple[str, Path, str]], list[str]]:
    """(platform, Cursor ``User`` dir, what chose it) for every platform, and the notes
    on the platform variables ``--home`` moved (``toolkit.roots.platform_dir``)."""
    xdg = platform_dir(ctx, "XDG_CONFIG_HOME")
    appdata = platform_dir(ctx, "APPDATA")
    notes = [found[2] for found in (xdg, appdata) if found is not None and found[2]]
    return [
        ("darwin", ctx.home / "Library" / "Application Support" / "Cursor" / "User", ctx.home_source),
        (
            "linux",
            (xdg[0] if xdg else ctx.home / ".config") / "Cursor" / "User",
            xdg[1] if xdg else ctx.home_source,
        ),
        (
            "win32",
            (appdata[0] if appdata else ctx.home / "AppData" / "Roaming") / "Cursor" / "User",
            appdata[1] if appdata else ctx.home_source,
        ),
    ], notes


def _native(platform: str) -> str:
    if platform.startswith("win") or platform == "cygwin":
        return "win32"
    if platform == "darwin":
        return "darwin"
    return "linux"


def state_db_root(ctx: ScanContext, *, platform: str | None = None) -> Root:
    """The one global ``state.vscdb`` this scan reads (found or not)."""
    # One file, so the whole value (a comma may be part of its name); ``~`` is the
    # scan's home, and a relative value is ignored, as for every setting.
    explicit, note = setting_paths(ctx, STATE_DB_ENV, listed=False)
    if explicit:
        return Root(PROVIDER, explicit[0], STATE_DB_ENV, kind="database", explicit=True)
    native = _native(platform or sys.platform)
    candidates, moved = _user_dir_candidates(ctx)
    if moved:
        note = "; ".join([note, *moved] if note else moved)
    # Native platform first; the others only if they exist (see module doc).
    candidates.sort(key=lambda item: item[0] != native)
    for _, user_dir, source in candidates:
        path = user_dir.joinpath(*_GLOBAL_DB)
        if os.path.isfile(path):
            return Root(PROVIDER, path, source, kind="database", note=note)
    _, user_dir, source = candidates[0]
    return Root(PROVIDER, user_dir.joinpath(*_GLOBAL_DB), source, kind="database", note=note)


def workspace_dir(ctx: ScanContext) -> Path | None:
    """``workspaceStorage`` beside the global DB's ``globalStorage`` dir."""
    global_db = state_db_root(ctx).path
    if global_db.parent.name != "globalStorage":
        return None
    return global_db.parent.parent / "workspaceStorage"


def cursor_roots(ctx: ScanContext) -> list[Root]:
    return [transcripts_root(ctx), *chat_roots(ctx), state_db_root(ctx)]
