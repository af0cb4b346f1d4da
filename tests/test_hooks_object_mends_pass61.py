"""A Gemini CLI event whose hooks are an object, as current Gemini CLI runs it (its schema's
defaults merged first: each event starts as a list, an object in any file is one more matcher
group), in the file judged and in the other files that run agentscan; the commands suggested
for a project keeping ``--home``; a problem row that fits 80 columns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentscan.hooks.geminionce import SCHEMA_EVENTS, listed_before
from agentscan.hooks.install import CLAUDE_EVENTS, GEMINI_EVENTS
from builders import cli_json, invoke


def _program(tmp_path: Path, name: str = "agentscan") -> Path:
    program = tmp_path / "bin" / name
    if not program.exists():
        program.parent.mkdir(parents=True, exist_ok=True)
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)
    return program


def _entry(tmp_path: Path, name: str = "agentscan") -> dict[str, Any]:
    return {"type": "command", "command": f"{_program(tmp_path, name)} hook --agent gemini", "name": "agentscan",
            "timeout": 5000}


def _write(path: Path, config: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2) + "\n")
    return path


def _gemini(scope: str) -> dict[str, Any]:
    return next(c for c in cli_json("hooks", "status")["configs"] if c["agent"] == "gemini" and c["scope"] == scope)


# --- which events start as a list ------------------------------------------------------------


def test_every_event_starts_as_a_list_the_schema_s_defaults() -> None:
    """Failed before: none did (an object with no file's list before it was said to be skipped)."""
    assert listed_before("user", []) == SCHEMA_EVENTS and set(GEMINI_EVENTS) <= SCHEMA_EVENTS


@pytest.mark.parametrize("hooks", [None, [], "x"])
def test_hooks_that_are_no_object_take_the_lists_away(hooks: Any) -> None:
    """Gemini CLI's deep merge puts a ``"hooks"`` that is no object in place of everything before it."""
    assert listed_before("project", [("/d", {"hooks": hooks}, "system-defaults")]) == frozenset()
    # A later file's list gives its event one again; the file judged and later files set nothing.
    later = [("/d", {"hooks": hooks}, "system-defaults"), ("/u", {"hooks": {"BeforeTool": []}}, "user"),
             ("/s", {"hooks": {"AfterTool": []}}, "system")]
    assert listed_before("project", later) == frozenset({"BeforeTool"})


def test_a_project_s_object_runs_after_the_user_s_list(isolated_home: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The system defaults' ``"hooks": null`` clears the lists; the user's list on BeforeTool gives
    it one again, which the project's object joins; on AfterTool, no list: skipped."""
    project = tmp_path / "proj"
    monkeypatch.chdir(project.parent)
    project.mkdir()
    monkeypatch.chdir(project)
    _write(tmp_path / "system-defaults.json", {"hooks": None})
    _write(isolated_home / ".gemini" / "settings.json", {"hooks": {"BeforeTool": [{"hooks": [{"type": "command",
                                                                                            "command": "log"}]}]}})
    hooks: dict[str, Any] = {event: [{"hooks": [_entry(tmp_path)]}] for event in GEMINI_EVENTS}
    hooks["BeforeTool"] = {"hooks": [_entry(tmp_path)]}
    _write(project / ".gemini" / "settings.json", {"hooks": hooks})
    config = _gemini("project")
    assert config["events"] == len(GEMINI_EVENTS) and config["problem"] is None, config
    hooks["AfterTool"] = {"hooks": [_entry(tmp_path)]}
    _write(project / ".gemini" / "settings.json", {"hooks": hooks})
    config = _gemini("project")
    assert config["events"] == len(GEMINI_EVENTS) - 1, config
    assert config["problem"].startswith("hooks.AfterTool is an object, not a list, and Gemini CLI skips it"), config


# --- a file with comments --------------------------------------------------------------------


def test_a_commented_file_s_object_gemini_runs_is_not_said_to_be_skipped(isolated_home: Path) -> None:
    """Failed before: "… and without them: hooks.BeforeTool is an object, not a list, and Gemini
    CLI skips it", though Gemini CLI runs it (the comments' refusal judged it without the lists)."""
    path = isolated_home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    text = '{\n  // the audit hook\n  "hooks": {"BeforeTool": {"hooks": [{"type": "command", "command": "audit"}]}}\n}\n'
    path.write_text(text)
    config = _gemini("user")
    assert config["problem"].startswith("holds comments") and "skips it" not in config["problem"], config
    result = invoke("hooks", "install", "gemini")
    assert result.exit_code == 1 and "holds comments" in result.stderr and "skips it" not in result.stderr
    assert path.read_text() == text


def test_a_commented_file_s_object_gemini_skips_is_said_so(isolated_home: Path, tmp_path: Path) -> None:
    _write(tmp_path / "system-defaults.json", {"hooks": []})
    path = isolated_home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{\n  // x\n  "hooks": {"BeforeTool": {"hooks": [{"type": "command", "command": "audit"}]}}\n}\n')
    assert "and without them: hooks.BeforeTool is an object, not a list, and Gemini CLI skips it" \
        in _gemini("user")["problem"]


# --- the other files that run agentscan ------------------------------------------------------


def test_agentscan_s_entry_in_an_object_of_the_system_settings_is_seen(isolated_home: Path, tmp_path: Path) -> None:
    """Failed before: no note, the system settings' entry (an object on BeforeTool) not read as one."""
    _write(isolated_home / ".gemini" / "settings.json",
           {"hooks": {event: [{"hooks": [_entry(tmp_path)]}] for event in GEMINI_EVENTS}})
    system = _write(tmp_path / "gemini-system-settings.json",
                    {"hooks": {"BeforeTool": {"hooks": [_entry(tmp_path, "other/agentscan")]}}})
    note = _gemini("user")["note"] or ""
    assert f"agentscan's hook is also in {system}" in note, note


def test_an_install_warns_of_the_user_s_entries_in_objects(isolated_home: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: no warning, though Gemini CLI runs the user's entries (objects) beside the project's."""
    _write(isolated_home / ".gemini" / "settings.json",
           {"hooks": {event: {"hooks": [_entry(tmp_path, "old/agentscan")]} for event in GEMINI_EVENTS}})
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    result = invoke("hooks", "install", "gemini", "--scope", "project")
    assert result.exit_code == 0, result.stderr
    assert "also installed" in " ".join(result.stderr.split()), result.stderr


def test_a_user_s_own_hook_running_agentscan_in_an_object_is_warned_of(isolated_home: Path) -> None:
    """Failed before: no warning (only lists were looked in)."""
    own = {"type": "command", "command": "mywrapper agentscan hook --agent gemini"}
    _write(isolated_home / ".gemini" / "settings.json", {"hooks": {"BeforeTool": {"hooks": [own]}}})
    result = invoke("hooks", "install", "gemini")
    assert result.exit_code == 0, result.stderr
    assert "your own hook on 1 event runs agentscan hook too" in " ".join(result.stderr.split()), result.stderr


def test_install_then_uninstall_leaves_the_user_s_group_in_a_list(isolated_home: Path) -> None:
    """As documented: the user's object comes back as the one group of a list, which Gemini CLI
    runs the same way (an uninstall cannot tell it from a list the user wrote)."""
    theirs = {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "audit"}]}
    path = _write(isolated_home / ".gemini" / "settings.json", {"hooks": {"BeforeTool": theirs}})
    assert invoke("hooks", "install", "gemini").exit_code == 0
    assert invoke("hooks", "uninstall", "gemini").exit_code == 0
    assert json.loads(path.read_text()) == {"hooks": {"BeforeTool": [theirs]}}


# --- a project's commands keep --home; a problem row fits 80 columns ------------------------


def test_a_project_s_suggested_install_keeps_home_and_runs_verbatim(isolated_home: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: `agentscan hooks install gemini --scope project`, which judges the project's
    file with the real home's user settings (Gemini CLI merges them)."""
    import shlex

    home = tmp_path / "other"
    home.mkdir()
    project = tmp_path / "proj"
    _write(project / ".gemini" / "settings.json",
           {"hooks": {event: [{"hooks": [_entry(tmp_path, "gone/agentscan")]}] for event in GEMINI_EVENTS}})
    (tmp_path / "bin" / "gone" / "agentscan").unlink()
    monkeypatch.chdir(project)
    found = next(c for c in cli_json("--home", str(home), "hooks", "status")["configs"]
                 if c["agent"] == "gemini" and c["scope"] == "project")
    command = f"agentscan hooks install gemini --scope project --home {home}"
    assert f"`{command}`" in found["problem"], found["problem"]
    result = invoke(*shlex.split(command)[1:])
    assert result.exit_code == 0, result.stderr


def test_a_problem_row_fits_80_columns(tty, isolated_home: Path) -> None:  # noqa: ANN001
    """Failed before: "problem (21/21 events registered), see below" pushed the row past 80 columns."""
    from agentscan.cli.term import width_of

    tty(80)
    entry = {"hooks": [{"type": "command", "command": "/opt/bin/agentscan hook --agent claude"}]}
    path = isolated_home / ".claude" / "settings.json"
    _write(path, {"disableAllHooks": True, "hooks": {event: [entry] for event in CLAUDE_EVENTS}})
    lines = invoke("hooks", "status").stdout.splitlines()
    count = f"{len(CLAUDE_EVENTS)}/{len(CLAUDE_EVENTS)}"
    row = next(line for line in lines if line.split()[:2] == ["claude", "user"])
    assert f"problem, {count} events, see below" in row and width_of(row) <= 80, lines


def test_the_shared_settings_note_names_the_home_and_the_project(isolated_home: Path, tmp_path: Path) -> None:
    # Every suggested command keeps --home, and a project's is run in the project's folder.
    from agentscan.hooks.status import hooks_report

    project = tmp_path / "proj"
    command = "/opt/agentscan hook --agent claude"
    hooks = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}}
    for name in ("settings.json", "settings.local.json"):
        (project / ".claude").mkdir(parents=True, exist_ok=True)
        (project / ".claude" / name).write_text(json.dumps(hooks), encoding="utf-8")
    report = hooks_report(home=isolated_home, cwd=project, env={"HOME": str(isolated_home)},
                          home_flag=f" --home {isolated_home}")
    [shared] = [c for c in report["configs"] if c["path"].endswith("settings.json")]
    assert f"--scope project --home {isolated_home}` in {project}," in shared["note"]
    assert shared["note"].endswith(f"install claude --scope project --home {isolated_home}`")
