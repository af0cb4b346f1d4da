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
from agentscan.providers.claude.roots import COWORK_APPDATA, COWORK_NOTE, COWORK_STORE, claude_roots
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
    _cowork(isolated_home.joinpath(*COWORK_STORE))
    assert _counted() == [(f"claude:{C}", 120)]


def test_doctor_names_the_windows_place_on_windows_only(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = isolated_home.joinpath("AppData", "Roaming", *COWORK_APPDATA)

    def cowork_roots_said() -> list[tuple[str, bool]]:
        (claude,) = [p for p in cli_json("doctor")["providers"] if p["provider"] == "claude"]
        return [(root["path"], root["exists"]) for root in claude["roots"] if "local-agent-mode-sessions" in root["path"]]

    monkeypatch.setattr("sys.platform", "linux")
    assert cowork_roots_said() == []
    monkeypatch.setattr("sys.platform", "win32")
    assert cowork_roots_said() == [(str(base), False)]
