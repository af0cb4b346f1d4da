"""Claude Desktop's Cowork sessions on Windows: below ``%APPDATA%\\Claude\\local-agent-mode-sessions``
(kenn-io/agentsview issue 686: "stored separately under %APPDATA%\\Roaming\\Claude\\ on
Windows"; anthropics/claude-code issues 75873 and 92885, Cowork on Windows 11), or, for the
Microsoft Store build, ``%LOCALAPPDATA%\\Packages\\Claude_pzs8sxrjxfjjc\\LocalCache\\Roaming\\Claude``
(rajbos/ai-engineering-fluency PR 572).  agentscan looked only below macOS's
``~/Library/Application Support/Claude``: a Windows user's Cowork sessions were not listed,
their tokens not counted (docs/providers/claude.md, "Roots")."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.context import ScanContext
from agentscan.providers.claude.roots import COWORK_APPDATA, COWORK_NOTE, COWORK_SESSIONS, COWORK_STORE, claude_roots
from builders import claude_assistant, claude_usage, claude_user, cli_json, write_jsonl

C = "c0c0c0c0-6161-4222-8333-444444444444"


def _cowork(base: Path, session: str = C) -> Path:
    """A Cowork session below ``base`` (a ``local-agent-mode-sessions`` folder): its
    ``.claude/projects`` dir, holding one prompt and one call of 120 tokens."""
    projects = base / "acct-1" / "ws-1" / "local_0a1b" / ".claude" / "projects"
    write_jsonl(projects / "C--Users-me-Documents" / f"{session}.jsonl", [
        claude_user(session, "2026-11-02T10:00:00Z", "tidy my downloads", cwd="C:\\Users\\me\\Documents"),
        claude_assistant(session, "2026-11-02T10:00:05Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 20),
                         cwd="C:\\Users\\me\\Documents"),
    ])
    return projects


def _counted() -> list[tuple[str, int]]:
    return [(row["key"], row["tokens"]["total"]) for row in cli_json("tokens")["rows"]]


def test_a_cowork_session_in_the_homes_roaming_app_data_is_counted(isolated_home: Path) -> None:
    _cowork(isolated_home.joinpath("AppData", "Roaming", *COWORK_APPDATA))
    assert _counted() == [(f"claude:{C}", 120)]
    (row,) = cli_json("list")["sessions"]
    assert (row["title"], row["cwd"]) == ("tidy my downloads", "C:\\Users\\me\\Documents")


def test_appdata_names_where_it_is(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    roaming = tmp_path / "profile" / "Roaming"
    projects = _cowork(roaming.joinpath(*COWORK_APPDATA))
    monkeypatch.setenv("APPDATA", str(roaming))
    assert _counted() == [(f"claude:{C}", 120)]
    cowork = [root for root in claude_roots(ScanContext.create()) if root.note and COWORK_NOTE in root.note]
    assert [(root.path, root.source) for root in cowork] == [(projects, "APPDATA")]


def test_the_microsoft_store_build_s_sessions_are_counted(isolated_home: Path) -> None:
    _cowork(isolated_home.joinpath("AppData", "Local", "Packages", "Claude_pzs8sxrjxfjjc", *COWORK_STORE))
    assert _counted() == [(f"claude:{C}", 120)]


def test_the_store_build_is_found_under_localappdata_whatever_its_package_s_id(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The package's name ends with its publisher's id: ``Claude_*`` is looked in, not one name.
    local = tmp_path / "elsewhere" / "Local"
    projects = _cowork(local.joinpath("Packages", "Claude_0another1id", *COWORK_STORE))
    (local / "Packages" / "NotClaude_x").mkdir()
    monkeypatch.setenv("LOCALAPPDATA", str(local))
    assert _counted() == [(f"claude:{C}", 120)]
    cowork = [root for root in claude_roots(ScanContext.create()) if root.note and COWORK_NOTE in root.note]
    assert [(root.path, root.source) for root in cowork] == [(projects, "LOCALAPPDATA")]


def _cowork_paths() -> list[Path]:
    return [root.path for root in claude_roots(ScanContext.create()) if root.note and COWORK_NOTE in root.note]


def test_appdata_naming_the_macos_folder_is_one_root(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # ``%APPDATA%/Claude`` and ``~/Library/Application Support/Claude`` the same folder: one root.
    projects = _cowork(isolated_home.joinpath(*COWORK_SESSIONS))
    monkeypatch.setenv("APPDATA", str(isolated_home / "Library" / "Application Support"))
    assert _cowork_paths() == [projects]
    assert _counted() == [(f"claude:{C}", 120)]
    doctor = [root["path"] for p in cli_json("doctor")["providers"] if p["provider"] == "claude" for root in p["roots"]]
    assert doctor.count(str(projects)) == 1


def test_a_link_to_the_same_folder_is_one_root(isolated_home: Path) -> None:
    projects = _cowork(isolated_home.joinpath(*COWORK_SESSIONS))
    roaming = isolated_home / "AppData" / "Roaming"
    roaming.mkdir(parents=True)
    (roaming / "Claude").symlink_to(isolated_home / "Library" / "Application Support" / "Claude")
    assert _cowork_paths() == [projects]
    assert _counted() == [(f"claude:{C}", 120)]


def test_a_relative_appdata_is_ignored_and_said(isolated_home: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # Read from the current directory it named no place Claude Desktop wrote.
    _cowork(tmp_path / "cwd" / "rel" / "Claude" / "local-agent-mode-sessions")
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setenv("APPDATA", "rel")
    monkeypatch.setenv("LOCALAPPDATA", "rel")
    assert _counted() == []
    result = cli_json("tokens")
    assert any("APPDATA is relative, so it was ignored" in w["message"] for w in result["warnings"])
    monkeypatch.setattr("sys.platform", "win32")  # (the place a doctor names: Windows')
    (claude,) = [p for p in cli_json("doctor")["providers"] if p["provider"] == "claude"]
    (cowork,) = [root for root in claude["roots"] if "local-agent-mode-sessions" in root["path"]]
    assert cowork["path"] == str(isolated_home.joinpath("AppData", "Roaming", *COWORK_APPDATA))
    assert "APPDATA 'rel' ignored: not an absolute path" in cowork["note"]


def test_a_windows_drive_appdata_on_another_system_is_noted_not_warned(isolated_home: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # WSL users may copy Windows' variables: a warning on every scan would fail each --strict run.
    monkeypatch.setenv("APPDATA", "C:\\Users\\me\\AppData\\Roaming")
    monkeypatch.setenv("LOCALAPPDATA", "c:/Users/me/AppData/Local")
    result = cli_json("tokens")
    assert not any("APPDATA is relative" in w["message"] for w in result["warnings"])
    monkeypatch.setattr("sys.platform", "win32")  # (the place a doctor names: Windows')
    (claude,) = [p for p in cli_json("doctor")["providers"] if p["provider"] == "claude"]
    (cowork,) = [root for root in claude["roots"] if "local-agent-mode-sessions" in root["path"]]
    assert "APPDATA 'C:\\\\Users" in cowork["note"] and "ignored: not an absolute path here" in cowork["note"]


def test_a_moved_appdata_s_note_is_kept(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Under ``--home``, an APPDATA inside the login's home is read inside the given one: said.
    login, copy = tmp_path / "login", tmp_path / "copy"
    login.mkdir()
    projects = _cowork(copy.joinpath("AppData", "Roaming", *COWORK_APPDATA))
    ctx = ScanContext.create(home=copy, env={"HOME": str(login), "APPDATA": str(login / "AppData" / "Roaming")})
    (cowork,) = [root for root in claude_roots(ctx) if root.note and COWORK_NOTE in root.note]
    assert cowork.path == projects
    assert cowork.note is not None and "is under $HOME, so read under --home" in cowork.note


def test_doctor_names_the_windows_place_on_windows_only(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = isolated_home.joinpath("AppData", "Roaming", *COWORK_APPDATA)

    def cowork_roots_said() -> list[tuple[str, bool]]:
        (claude,) = [p for p in cli_json("doctor")["providers"] if p["provider"] == "claude"]
        return [(root["path"], root["exists"]) for root in claude["roots"] if "local-agent-mode-sessions" in root["path"]]

    monkeypatch.setattr("sys.platform", "linux")
    assert cowork_roots_said() == []
    monkeypatch.setattr("sys.platform", "win32")
    assert cowork_roots_said() == [(str(base), False)]
