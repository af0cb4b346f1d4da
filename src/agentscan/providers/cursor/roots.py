"""Where Cursor keeps its three stores, and which setting chose each place.

* agent transcripts: ``<config>/projects/<slug>/agent-transcripts/``
* Agent CLI store: ``<config>/chats/<md5(cwd)>/<id>/`` (and ``acp-sessions``)

  where ``<config>`` is each of ``CURSOR_CONFIG_DIR``, ``$XDG_CONFIG_HOME/cursor`` (when it
  exists) and ``<home>/.cursor`` (``config_dirs``);
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


CONFIG_DIR_ENV = "CURSOR_CONFIG_DIR"
_CHATS_NOTE = "where the Cursor Agent CLI keeps each chat's name, model and working directory (meta.json, store.db)"


def config_dirs(ctx: ScanContext) -> list[tuple[Path, str, bool]]:
    """(dir, what chose it, named explicitly) of every Cursor config dir read, the Agent CLI's
    order first: ``CURSOR_CONFIG_DIR`` (each comma-separated entry), ``$XDG_CONFIG_HOME/cursor``
    when that exists, then ``~/.cursor``, which the IDE writes whatever the CLI uses: each is
    read (a session lost is worse than a dir looked at), the first one wins an id found twice."""
    memo = ctx.memo.get("cursor.config_dirs")
    if isinstance(memo, list):
        return memo
    configured, note = setting_paths(ctx, CONFIG_DIR_ENV)
    found: list[tuple[Path, str, bool]] = [(path, CONFIG_DIR_ENV, True) for path in configured]
    ignored: list[str] = []  # a relative XDG_CONFIG_HOME: said with the roots' note
    xdg = platform_dir(ctx, "XDG_CONFIG_HOME", ignored)
    if ignored:
        note = "; ".join(filter(None, (note, *ignored)))
    if xdg is not None and os.path.isdir(xdg[0] / "cursor"):
        found.append((xdg[0] / "cursor", xdg[1], False))
    found.append((ctx.home / ".cursor", ctx.home_source, False))
    unique: list[tuple[Path, str, bool]] = []
    for entry in found:
        if all(os.path.abspath(entry[0]) != os.path.abspath(kept[0]) for kept in unique):
            unique.append(entry)
    ctx.memo["cursor.config_dirs"] = unique
    ctx.memo["cursor.config_dirs.note"] = note
    return unique


def _note(ctx: ScanContext, extra: str | None = None) -> str | None:
    config_dirs(ctx)
    return "; ".join(filter(None, (ctx.memo.get("cursor.config_dirs.note"), extra))) or None


def transcripts_roots(ctx: ScanContext) -> list[Root]:
    """``projects/`` of every config dir (``config_dirs``)."""
    return [Root(PROVIDER, base / "projects", source, kind="sessions", explicit=explicit, note=_note(ctx),
                 entry=base if explicit else None)
            for base, source, explicit in config_dirs(ctx)]


def chat_roots(ctx: ScanContext) -> list[Root]:
    """``chats/`` and ``acp-sessions/`` of every config dir, in its order (``config_dirs``)."""
    # A ``CURSOR_CONFIG_DIR`` none of whose three roots can be read is an error (a mistyped
    # variable), as any root named explicitly; one with only ``chats/`` is not.
    return [Root(PROVIDER, base / name, source, kind="index", explicit=explicit, note=_note(ctx, _CHATS_NOTE),
                 entry=base if explicit else None)
            for base, source, explicit in config_dirs(ctx) for name in ("chats", "acp-sessions")]


def _user_dir_candidates(ctx: ScanContext) -> tuple[list[tuple[str, Path, str]], list[str]]:
    """(platform, Cursor ``User`` dir, what chose it) for every platform, and the notes
    on the platform variables ``--home`` moved or that were ignored, not being absolute
    (``toolkit.roots.platform_dir``)."""
    ignored: list[str] = []  # a relative one, ignored
    xdg = platform_dir(ctx, "XDG_CONFIG_HOME", ignored)
    appdata = platform_dir(ctx, "APPDATA", ignored)
    notes = [found[2] for found in (xdg, appdata) if found is not None and found[2]] + ignored
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
        return Root(PROVIDER, explicit[0], STATE_DB_ENV, kind="database", explicit=True, entry=explicit[0])
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
    """Each config dir's three roots, the dir ``CURSOR_CONFIG_DIR`` names first, then the DB."""
    chats = chat_roots(ctx)
    roots: list[Root] = []
    for index, sessions in enumerate(transcripts_roots(ctx)):
        roots += [sessions, *chats[2 * index: 2 * index + 2]]
    return [*roots, state_db_root(ctx)]
