"""`doctor` after an upgrade: a hook whose program is gone (the old venv deleted) is a problem,
with the command that mends it; one running another agentscan than this one is a note; a
project's hook in both its shared settings.json (the first release's) and settings.local.json
is said to be installed twice."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from hooks_builders import ok, write_json
from agentscan.hooks.install import CLAUDE_EVENTS, CURSOR_EVENTS
from agentscan.hooks.status import hooks_report


def claude_config(command: str, **entry: object) -> dict:
    return {"hooks": {event: [{"hooks": [{"type": "command", "command": command, **entry}]}] for event in CLAUDE_EVENTS}}


def cursor_config(command: str) -> dict:
    return {"version": 1, "hooks": {event: [{"command": command}] for event in CURSOR_EVENTS}}


def program(where: Path, *, executable: bool = True) -> Path:
    """An ``agentscan`` console script in a venv's bin folder."""
    path = where / "bin" / "agentscan"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755 if executable else 0o644)
    return path


def configs(home: Path, cwd: Path | None = None, env: dict | None = None) -> list[dict]:
    return hooks_report(home=home, cwd=cwd or home, env={"PATH": "", **(env or {})})["configs"]


def test_a_hook_whose_program_was_deleted_is_a_problem_with_its_fix(isolated_home: Path, tmp_path: Path) -> None:
    gone = tmp_path / "old-venv" / "bin" / "agentscan"
    write_json(isolated_home / ".claude" / "settings.json", claude_config(f"{gone} hook --agent claude"))
    write_json(isolated_home / ".cursor" / "hooks.json", cursor_config(f"{gone} hook --agent cursor"))
    document = orjson.loads(ok("doctor", "--json", "--no-redact").stdout)
    problems = {config["agent"]: config["problem"] for config in document["hooks"]["configs"]}
    assert problems == {
        agent: f"the hook runs {gone}, which does not exist: run `agentscan hooks install {agent}` again"
        for agent in ("claude", "cursor")}
    text = ok("doctor").stdout
    assert f"problem: {isolated_home}/.claude/settings.json: the hook runs {gone}, which does not exist" in text
    # The command it names mends it: the install updates the command in place.
    ok("hooks", "install", "--agent", "claude")
    [claude] = [c for c in orjson.loads(ok("doctor", "--json").stdout)["hooks"]["configs"] if c["agent"] == "claude"]
    assert claude["problem"] is None


def test_a_program_that_cannot_run_and_claude_s_exec_form(isolated_home: Path, tmp_path: Path) -> None:
    plain = program(tmp_path / "venv", executable=False)
    write_json(isolated_home / ".claude" / "settings.json", claude_config(f"'{plain}' hook --agent claude"))
    [config] = configs(isolated_home)
    assert config["problem"] == (f"the hook runs {plain}, which is not an executable file: "
                                 "run `agentscan hooks install claude` again")
    # The exec form: ``command`` is the program alone, its words in ``args``.
    gone = tmp_path / "my venv" / "bin" / "agentscan"
    write_json(isolated_home / ".claude" / "settings.json", claude_config(str(gone), args=["hook", "--agent", "claude"]))
    [config] = configs(isolated_home)
    assert config["problem"] is not None and config["problem"].startswith(f"the hook runs {gone}, which does not exist")


def test_a_hook_that_runs_a_program_that_is_there_has_no_problem(isolated_home: Path, tmp_path: Path) -> None:
    there = program(tmp_path / "venv")
    write_json(isolated_home / ".claude" / "settings.json", claude_config(f"{there} hook --agent claude"))
    write_json(isolated_home / ".cursor" / "hooks.json", cursor_config(f"~/{there.relative_to(tmp_path)} hook --agent cursor"))
    (isolated_home / "venv").symlink_to(tmp_path / "venv")  # ``~`` is the home the agent's shell expands
    assert [(c["agent"], c["problem"]) for c in configs(isolated_home)] == [("cursor", None), ("claude", None)]


def test_a_hook_running_another_agentscan_is_a_note(isolated_home: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = program(tmp_path / "old-venv"), program(tmp_path / "new-venv")
    write_json(isolated_home / ".claude" / "settings.json", claude_config(f"{old} hook --agent claude"))
    monkeypatch.setattr(sys, "argv", [str(new), "doctor"])
    monkeypatch.setenv("PATH", str(new.parent))  # the new venv's agentscan is the one on PATH
    [config] = configs(isolated_home)
    assert config["problem"] is None
    assert config["note"] == (f"the hook runs {old}, not this agentscan ({new}); to capture with this one, "
                              "run `agentscan hooks install claude`")
    monkeypatch.setattr(sys, "argv", [str(old), "doctor"])  # the same one: nothing to say
    assert configs(isolated_home)[0]["note"] is None
    # ``python -m agentscan``: this agentscan is that Python's install (its console script beside it).
    monkeypatch.setattr(sys, "argv", ["/usr/lib/python3/agentscan/__main__.py", "doctor"])
    monkeypatch.setattr(sys, "executable", str(old.parent / "python"))
    assert configs(isolated_home)[0]["note"] is None


def test_a_hook_run_by_a_name_this_path_lacks_is_a_note(isolated_home: Path, tmp_path: Path) -> None:
    write_json(isolated_home / ".claude" / "settings.json", claude_config("agentscan hook --agent claude"))
    [config] = configs(isolated_home)
    assert config["problem"] is None and config["note"].startswith("the hook runs agentscan by name, and this PATH has none")
    there = program(tmp_path / "venv")
    [config] = configs(isolated_home, env={"PATH": str(there.parent)})
    assert config["note"] is None


def test_a_project_hook_in_both_its_settings_files_is_said_twice(isolated_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    there = program(tmp_path / "venv")
    command = f"{there} hook --agent claude"
    shared = write_json(project / ".claude" / "settings.json", claude_config(command))
    [config] = configs(isolated_home, project)
    assert config["legacy"] and config["note"] is None  # alone: a working install
    local = write_json(project / ".claude" / "settings.local.json", claude_config(command))
    found = {c["path"]: c for c in configs(isolated_home, project)}
    assert found[str(local)]["note"] is None
    assert found[str(shared)]["note"] == (
        f"agentscan's hook is also installed in {local}: Claude Code runs the hooks of both files, so each event "
        f"can be captured twice; run `agentscan hooks uninstall claude --scope project` in {project}, which removes "
        "agentscan's entries from both, then `agentscan hooks install claude --scope project`")
