"""The hooks' leftovers of pass 61: a Gemini CLI event whose hooks are an object (one more matcher
group of the list the event starts as, else, after a "hooks" that is no object, skipped), a
problem file's row never "8/8 events" alone, and every command a note suggests keeping the
``--home`` it was given."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agentscan.hooks.install import CLAUDE_EVENTS, GEMINI_EVENTS
from builders import cli_json, invoke

def _ours(tmp_path: Path) -> dict[str, Any]:
    """A group of agentscan's entry, run by an agentscan that is there (one that is not is a
    problem of its own)."""
    program = tmp_path / "bin" / "agentscan"
    if not program.exists():
        program.parent.mkdir()
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)
    return {"hooks": [{"type": "command", "command": f"{program} hook --agent gemini", "name": "agentscan",
                       "timeout": 5000}]}


def _user_file(home: Path, hooks: dict[str, Any]) -> Path:
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}, indent=2) + "\n")
    return path


def _status(*args: str) -> dict[str, Any]:
    return next(c for c in cli_json(*args, "hooks", "status")["configs"] if c["agent"] == "gemini" and c["scope"] == "user")


def _defaults(tmp_path: Path, hooks: Any) -> None:
    """Gemini CLI's system defaults (beside the system settings conftest names): merged first."""
    (tmp_path / "system-defaults.json").write_text(json.dumps({"hooks": hooks}))


def _every_event_but_one(tmp_path: Path, event: str = "BeforeTool") -> dict[str, Any]:
    return {name: [_ours(tmp_path)] if name != event else _ours(tmp_path) for name in GEMINI_EVENTS}


# --- a Gemini CLI event whose hooks are an object --------------------------------------------


def test_an_object_after_an_earlier_list_runs_and_is_counted(isolated_home: Path, tmp_path: Path) -> None:
    """Failed before: "hooks.BeforeTool is not a list" and 7 of 8 events, though Gemini CLI appends
    the object to the system defaults' list (``CONCAT``) and runs agentscan's entry in it."""
    _user_file(isolated_home, _every_event_but_one(tmp_path))
    _defaults(tmp_path, {"BeforeTool": [{"hooks": [{"type": "command", "command": "audit"}]}]})
    config = _status()
    assert config["problem"] is None and config["events"] == len(GEMINI_EVENTS), config


def test_an_object_with_no_other_file_runs_as_the_event_s_default_list_is_there(isolated_home: Path,
                                                                                tmp_path: Path) -> None:
    """Failed before: 7 of 8 events and "Gemini CLI skips it", though since v0.24.0 Gemini CLI
    merges its schema's defaults first (each event ``[]``, ``CONCAT``) and runs the object."""
    _user_file(isolated_home, _every_event_but_one(tmp_path))
    config = _status()
    assert config["problem"] is None and config["events"] == len(GEMINI_EVENTS), config


def test_an_object_after_hooks_that_are_no_object_is_skipped_and_said_so(isolated_home: Path, tmp_path: Path) -> None:
    """An earlier file's ``"hooks": null`` takes away the lists the events start as: Gemini CLI
    skips an event whose merged hooks are then an object, agentscan's entry there never runs."""
    _user_file(isolated_home, _every_event_but_one(tmp_path))
    _defaults(tmp_path, None)
    config = _status()
    assert config["events"] == len(GEMINI_EVENTS) - 1
    assert config["problem"].startswith("hooks.BeforeTool is an object, not a list, and Gemini CLI skips it"), config


def test_install_writes_a_wrapped_object_as_the_group_gemini_runs(isolated_home: Path, tmp_path: Path) -> None:
    """Failed before: refused ("hooks.BeforeTool is not a list"), though Gemini CLI runs it as a group."""
    theirs = {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "audit"}]}
    path = _user_file(isolated_home, {"BeforeTool": theirs})
    _defaults(tmp_path, {"BeforeTool": [{"hooks": [{"type": "command", "command": "log"}]}]})
    result = invoke("hooks", "install", "gemini")
    assert result.exit_code == 0, result.stderr
    written = json.loads(path.read_text())["hooks"]["BeforeTool"]
    assert isinstance(written, list) and written[0] == theirs and "agent gemini" in written[1]["hooks"][0]["command"]
    assert _status()["events"] == len(GEMINI_EVENTS)


def test_install_refuses_an_object_gemini_skips_and_says_why(isolated_home: Path, tmp_path: Path) -> None:
    _defaults(tmp_path, [])  # (no object: the events' lists are gone)
    text = json.dumps({"hooks": {"BeforeTool": {"hooks": [{"type": "command", "command": "audit"}]}}})
    path = isolated_home / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(text)
    result = invoke("hooks", "install", "gemini")
    assert result.exit_code == 1 and "hooks.BeforeTool is an object, not a list, and Gemini CLI skips it" in result.stderr
    assert path.read_text() == text


def test_uninstall_takes_agentscan_out_of_an_object_and_leaves_the_rest(isolated_home: Path, tmp_path: Path) -> None:
    """Failed before: refused ("hooks.AfterTool is not a list"), agentscan's entry left in the object."""
    theirs = {"type": "command", "command": "audit"}
    hooks = {name: [_ours(tmp_path)] for name in GEMINI_EVENTS}
    hooks["BeforeTool"] = {"hooks": [_ours(tmp_path)["hooks"][0]]}
    hooks["AfterTool"] = {"matcher": "x", "hooks": [theirs, _ours(tmp_path)["hooks"][0]]}
    hooks["Custom"] = {"hooks": [theirs]}  # (none of ours: left as it is)
    path = _user_file(isolated_home, hooks)
    result = invoke("hooks", "uninstall", "gemini")
    assert result.exit_code == 0, result.stderr
    assert json.loads(path.read_text())["hooks"] == {"AfterTool": {"matcher": "x", "hooks": [theirs]},
                                                      "Custom": {"hooks": [theirs]}}


# --- a problem file's row --------------------------------------------------------------------


def test_a_problem_file_s_row_does_not_say_its_events_alone(isolated_home: Path) -> None:
    """Failed before: "claude (user scope): 21/21 events, see below", which reads as installed and well."""
    entry = {"hooks": [{"type": "command", "command": "/opt/bin/agentscan hook --agent claude"}]}
    path = isolated_home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"disableAllHooks": True, "hooks": {event: [entry] for event in CLAUDE_EVENTS}}))
    shown = invoke("hooks", "status").stdout
    count = f"{len(CLAUDE_EVENTS)}/{len(CLAUDE_EVENTS)} events"
    row = next(line for line in shown.splitlines() if line.split()[:2] == ["claude", "user"])
    assert f"problem, {count}, see below" in row, shown


# --- every command a note suggests keeps --home ----------------------------------------------


def test_the_path_note_keeps_the_home_given(isolated_home: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: "(`agentscan hooks install` again …)": run so, it changes the real home's config."""
    home = tmp_path / "other"
    config = home / ".claude" / "settings.json"
    config.parent.mkdir(parents=True)
    entry = {"hooks": [{"type": "command", "command": "agentscan hook --agent claude"}]}
    config.write_text(json.dumps({"hooks": {event: [entry] for event in CLAUDE_EVENTS}}))
    monkeypatch.setenv("PATH", str(tmp_path / "nothing here"))
    found = next(c for c in cli_json("--home", str(home), "hooks", "status")["configs"] if c["agent"] == "claude")
    assert found["note"].startswith("the hook runs agentscan by name, and this PATH has none")
    assert f"run `agentscan hooks install claude --home {home}` again" in found["note"], found["note"]


def test_a_runner_s_cache_note_keeps_the_home_given(isolated_home: Path, tmp_path: Path) -> None:
    """Failed before: "run `agentscan hooks install claude` with it", without the ``--home``."""
    program = tmp_path / "uv" / "archive-v0" / "abc" / "bin" / "agentscan"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    os.chmod(program, 0o755)
    home = tmp_path / "other"
    config = home / ".claude" / "settings.json"
    config.parent.mkdir(parents=True)
    entry = {"hooks": [{"type": "command", "command": f"{program} hook --agent claude"}]}
    config.write_text(json.dumps({"hooks": {event: [entry] for event in CLAUDE_EVENTS}}))
    found = next(c for c in cli_json("--home", str(home), "hooks", "status")["configs"] if c["agent"] == "claude")
    assert found["note"].endswith(f"then run `agentscan hooks install claude --home {home}` with it"), found["note"]


@pytest.mark.parametrize("scope, home_flag, said", [
    ("user", " --home /h", "`agentscan hooks install gemini --home /h` with it"),
    ("project", " --home /h", "`agentscan hooks install gemini --scope project --home /h` with it"),
])
def test_the_install_warning_of_a_runner_s_cache_keeps_the_scope_and_home(isolated_home: Path, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch,
                                                                          scope: str, home_flag: str, said: str) -> None:
    """Failed before: "run `agentscan hooks install gemini` with it", neither scope nor home kept."""
    import sys

    program = tmp_path / "cache" / "uv" / "archive-v0" / "x" / "bin" / "agentscan"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(program)])  # (this install runs from uvx's cache)
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    home = tmp_path / "other"
    home.mkdir()
    args = ("--scope", "project") if scope == "project" else ()
    result = invoke("--home", str(home), "hooks", "install", "gemini", *args)
    assert result.exit_code == 0, result.stderr
    assert said.replace("/h", str(home)) in " ".join(result.stderr.split()), result.stderr
