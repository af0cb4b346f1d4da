"""Where the Cursor provider looks, per platform and override."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.context import ScanContext
from agentscan.providers.cursor.provider import CursorProvider
from agentscan.providers.cursor.roots import state_db_root

GLOBAL = ("globalStorage", "state.vscdb")


def _ctx(home: Path, **env: str) -> ScanContext:
    return ScanContext.create(home=home, env=env)


@pytest.mark.parametrize(
    ("platform", "relative"),
    [
        ("darwin", "Library/Application Support/Cursor/User"),
        ("linux", ".config/Cursor/User"),
        ("win32", "AppData/Roaming/Cursor/User"),
    ],
)
def test_default_location_per_platform(tmp_path: Path, platform: str, relative: str) -> None:
    root = state_db_root(_ctx(tmp_path), platform=platform)
    assert root.path == tmp_path.joinpath(relative, *GLOBAL)
    assert (root.kind, root.explicit, root.source) == ("database", False, "--home")


def test_xdg_config_home_and_appdata(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path, XDG_CONFIG_HOME="/x/config", APPDATA="/c/Users/me/AppData/Roaming")
    linux = state_db_root(ctx, platform="linux")
    assert (linux.path, linux.source) == (Path("/x/config/Cursor/User").joinpath(*GLOBAL), "XDG_CONFIG_HOME")
    windows = state_db_root(ctx, platform="win32")
    assert (windows.path, windows.source) == (Path("/c/Users/me/AppData/Roaming/Cursor/User").joinpath(*GLOBAL), "APPDATA")


def test_another_platforms_layout_is_found_under_the_home(tmp_path: Path) -> None:
    mac = tmp_path.joinpath("Library/Application Support/Cursor/User", *GLOBAL)
    mac.parent.mkdir(parents=True)
    mac.write_bytes(b"")
    assert state_db_root(_ctx(tmp_path), platform="linux").path == mac


def test_cursor_state_db_wins_and_is_explicit(tmp_path: Path) -> None:
    root = state_db_root(_ctx(tmp_path, CURSOR_STATE_DB="/data/state.vscdb"), platform="darwin")
    assert (root.path, root.source, root.explicit) == (Path("/data/state.vscdb"), "CURSOR_STATE_DB", True)


def test_all_roots(tmp_path: Path) -> None:
    roots = CursorProvider().roots(_ctx(tmp_path))
    assert [(r.path, r.kind) for r in roots[:3]] == [
        (tmp_path / ".cursor" / "projects", "sessions"),
        (tmp_path / ".cursor" / "chats", "index"),
        (tmp_path / ".cursor" / "acp-sessions", "index"),
    ]
    assert roots[3].kind == "database" and roots[3].path.name == "state.vscdb"


def test_a_relative_appdata_or_xdg_config_home_is_ignored_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Read from the current directory, a relative one named no place Cursor wrote (pass 61).
    cwd = tmp_path / "cwd"
    for platform_dir in ("rel/Cursor/User", "cfg/Cursor/User"):
        cwd.joinpath(platform_dir, *GLOBAL).parent.mkdir(parents=True)
        cwd.joinpath(platform_dir, *GLOBAL).write_bytes(b"")
    monkeypatch.chdir(cwd)
    home = tmp_path / "home"
    ctx = _ctx(home, APPDATA="rel", XDG_CONFIG_HOME="cfg")
    windows = state_db_root(ctx, platform="win32")
    assert (windows.path, windows.source) == (home.joinpath("AppData/Roaming/Cursor/User", *GLOBAL), "--home")
    assert windows.note is not None and "APPDATA 'rel' ignored: not an absolute path" in windows.note
    assert "XDG_CONFIG_HOME 'cfg' ignored: not an absolute path" in windows.note
    assert state_db_root(ctx, platform="linux").path == home.joinpath(".config/Cursor/User", *GLOBAL)
    assert "APPDATA is relative, so it was ignored (only absolute paths are used)" in {w.message for w in ctx.warnings.items}
