"""Pass 56 review of the Gemini CLI hooks: what gemini-cli itself does with agentscan's entries.

From google-gemini/gemini-cli's ``packages/core/src/hooks``: ``hookPlanner.ts`` keeps one entry
per ``getHookKey`` (``types.ts``: ``${name}:${command}``) of the merged user and project hooks;
``hookRegistry.ts`` turns off an entry whose ``name || command`` is listed in the disabled hooks
(``hooksConfig.disabled``, before it ``hooks.disabled``).  Gemini CLI reads settings.json with
comments (``strip-json-comments``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from builders import cli_json, invoke

OURS = "agentscan hook --agent gemini"


def _settings(folder: Path, config: Any, *, raw: str | None = None) -> Path:
    path = folder / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(raw if raw is not None else json.dumps(config, indent=2) + "\n")
    return path


def _gemini(scope: str) -> dict[str, Any]:
    (config,) = [c for c in cli_json("hooks", "status")["configs"] if c["agent"] == "gemini" and c["scope"] == scope]
    return config


# --- 1. both scopes: Gemini CLI runs equal entries once ------------------------------------------


def test_the_same_entry_in_both_scopes_is_no_warning(isolated_home: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    assert invoke("hooks", "install", "gemini").exit_code == 0
    result = invoke("--strict", "hooks", "install", "gemini", "--scope", "project")
    assert result.exit_code == 0, result.stderr
    assert "also installed" not in result.stderr
    assert _gemini("project")["also_installed"] is None
    doctor = invoke("hooks", "status")
    assert "also installed" not in doctor.stdout + doctor.stderr


def test_an_entry_of_another_name_or_command_in_the_other_scope_is_warned_of(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    # An older install's entry, with no name: its key is ":<command>", not "agentscan:<command>".
    user = _settings(isolated_home, {"hooks": {"AfterTool": [
        {"hooks": [{"type": "command", "command": f"/old/bin/{OURS}"}]}]}})
    result = invoke("--strict", "hooks", "install", "gemini", "--scope", "project")
    assert result.exit_code == 1
    assert "also installed in this file" in result.stderr and "differ in name or command" in result.stderr
    assert _gemini("project")["also_installed"] == str(user)


# --- 5. agentscan's entry listed as disabled -----------------------------------------------------


@pytest.mark.parametrize("config", [{"hooksConfig": {"disabled": ["./other.sh", "agentscan"]}},
                                    {"hooks": {"disabled": ["agentscan"]}}])
def test_agentscan_listed_as_disabled_is_warned_of_and_a_problem_in_status(isolated_home: Path,
                                                                           config: dict[str, Any]) -> None:
    _settings(isolated_home, config)
    result = invoke("hooks", "install", "gemini")
    assert result.exit_code == 0
    assert 'disabled" here lists "agentscan", which turns agentscan\'s hook off in Gemini CLI' in result.stderr
    problem = _gemini("user")["problem"]
    assert problem is not None and "turns agentscan's hook off" in problem and "nothing is captured" in problem
    assert invoke("--strict", "hooks", "install", "gemini").exit_code == 1


def test_an_unnamed_entry_is_disabled_by_its_command(isolated_home: Path) -> None:
    command = f"/old/bin/{OURS}"
    _settings(isolated_home, {"hooksConfig": {"disabled": [command]}, "hooks": {"AfterTool": [
        {"hooks": [{"type": "command", "command": command}]}]}})
    problem = _gemini("user")["problem"]
    assert problem is not None and "turns agentscan's hook off" in problem


def test_another_hook_disabled_is_no_problem(isolated_home: Path) -> None:
    _settings(isolated_home, {"hooksConfig": {"disabled": ["./other.sh", ["agentscan"]]}})
    result = invoke("--strict", "hooks", "install", "gemini")
    assert result.exit_code == 0, result.stderr
    assert _gemini("user")["problem"] is None


# --- 4. a settings.json with comments, which Gemini CLI reads ----------------------------------

COMMENTED = '{\n  // my settings\n  "general": {"vimMode": true}, /* see "http://x" */\n  "url": "http://a//b"\n}\n'


def test_a_commented_settings_file_is_refused_as_holding_comments(isolated_home: Path) -> None:
    path = _settings(isolated_home, None, raw=COMMENTED)
    result = invoke("hooks", "install", "gemini")
    assert result.exit_code == 1
    assert "holds comments, which Gemini CLI allows but agentscan cannot write back" in result.stderr
    assert "add agentscan's entries by hand" in result.stderr and "not valid JSON" not in result.stderr
    assert path.read_text() == COMMENTED
    assert "holds comments" in _gemini("user")["problem"]


def test_uninstalling_from_a_commented_settings_file_says_to_remove_the_entries_by_hand(isolated_home: Path) -> None:
    """An uninstall has entries to take out, not to add: it said the install's "add agentscan's
    entries by hand" (pass 59)."""
    path = _settings(isolated_home, None, raw=COMMENTED)
    result = invoke("hooks", "uninstall", "gemini")
    assert result.exit_code == 1
    assert "holds comments, which Gemini CLI allows but agentscan cannot write back" in result.stderr
    assert "remove agentscan's entries by hand" in result.stderr and "add agentscan's" not in result.stderr
    assert path.read_text() == COMMENTED


def test_a_broken_file_with_comments_is_still_not_valid_json(isolated_home: Path) -> None:
    _settings(isolated_home, None, raw='{\n  // mine\n  "a": [}\n')
    result = invoke("hooks", "install", "gemini")
    assert result.exit_code == 1 and "not valid JSON" in result.stderr and "comments" not in result.stderr
