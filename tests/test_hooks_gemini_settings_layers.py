"""Gemini CLI's settings, merged as Gemini CLI merges them (``settings.ts`` ``loadSettings``,
``mergeSettings``: system defaults < user < workspace < system), and where nothing is captured.

Before: a project's settings that turned agentscan off were said to capture nothing at all (it
is that project only); the system settings file (an administrator's, last and over the others)
was not read; and an older ``hooks.enabled`` counted only in the file judged.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from builders import invoke

OURS = "agentscan hook --agent gemini"
ENTRY = {"hooks": [{"type": "command", "command": OURS, "name": "agentscan", "timeout": 5000}]}


def _settings(path: Path, config: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2) + "\n")
    return path


def _users_problem(home: Path, project: Path) -> str | None:
    from agentscan.hooks.status import hooks_report

    (user,) = [config for config in hooks_report(home=home, cwd=project, env=dict(os.environ))["installed"]
               if config["agent"] == "gemini" and config["scope"] == "user"]
    return user["problem"]


def test_a_projects_settings_turn_capture_off_in_that_project_only(isolated_home: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _settings(isolated_home / ".gemini" / "settings.json", {"hooks": {"BeforeAgent": [ENTRY]}})
    project = tmp_path / "project"
    listed = _settings(project / ".gemini" / "settings.json", {"hooksConfig": {"disabled": ["agentscan"]}})
    problem = _users_problem(isolated_home, project)
    assert problem is not None and f"so nothing is captured in {project};" in problem, problem
    _settings(listed, {"hooksConfig": {"enabled": False}})
    problem = _users_problem(isolated_home, project)
    assert problem is not None and f"so nothing is captured in {project};" in problem, problem
    monkeypatch.chdir(project)
    said = " ".join(invoke("hooks", "install", "gemini").stderr.split())
    assert f"nothing is captured in {project} until you" in said, said


def test_the_users_settings_turn_capture_off_everywhere(isolated_home: Path, tmp_path: Path) -> None:
    _settings(isolated_home / ".gemini" / "settings.json",
              {"hooksConfig": {"disabled": ["agentscan"]}, "hooks": {"BeforeAgent": [ENTRY]}})
    problem = _users_problem(isolated_home, tmp_path / "project")
    assert problem is not None and "so nothing is captured;" in problem, problem


@pytest.mark.parametrize(("system", "project", "off"), [
    ({"hooksConfig": {"enabled": False}}, {"hooksConfig": {"enabled": True}}, "system"),  # the system's last
    ({"hooksConfig": {"enabled": True}}, {"hooksConfig": {"enabled": False}}, None),
    ({"hooksConfig": {"disabled": ["agentscan"]}}, {}, "system"),  # joined
    ({"hooks": {"enabled": False}}, {}, "system"),  # the older key, in another file
    ({}, {"hooks": {"enabled": False}}, "project"),
    ({}, {}, None),
])
def test_the_system_settings_come_last(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       system: Any, project: Any, off: str | None) -> None:
    _settings(isolated_home / ".gemini" / "settings.json", {"hooks": {"BeforeAgent": [ENTRY]}})
    folder = tmp_path / "project"
    files = {"project": _settings(folder / ".gemini" / "settings.json", project),
             "system": _settings(tmp_path / "etc" / "gemini-cli" / "settings.json", system)}
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(files["system"]))
    problem = _users_problem(isolated_home, folder)
    if off is None:
        assert problem is None, problem
    else:
        assert problem is not None and f"in {files[off]}" in problem, problem


def test_an_older_enabled_in_the_users_file_gives_way_to_the_projects(isolated_home: Path, tmp_path: Path) -> None:
    _settings(isolated_home / ".gemini" / "settings.json", {"hooks": {"enabled": False, "BeforeAgent": [ENTRY]}})
    folder = tmp_path / "project"
    _settings(folder / ".gemini" / "settings.json", {"hooksConfig": {"enabled": True}})
    assert _users_problem(isolated_home, folder) is None


def test_the_system_path_is_the_variables_else_etc() -> None:
    from agentscan.hooks.geminionce import system_settings_path

    assert system_settings_path({"GEMINI_CLI_SYSTEM_SETTINGS_PATH": "/x/s.json"}) == Path("/x/s.json")
    assert system_settings_path({}) == Path("/etc/gemini-cli/settings.json")


def test_a_fifo_in_a_settings_files_place_is_not_waited_on(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An administrator's settings path that is a FIFO (or a user's settings.json made one)
    hung ``hooks status`` and ``hooks install gemini`` on its open (a review, pass 57): a
    settings file is read only if it is a regular file (``fsutil.read_regular_text``)."""
    import threading

    fifo = isolated_home / "system-settings.json"
    os.mkfifo(fifo)
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(fifo))
    done: list[int] = []
    runner = threading.Thread(target=lambda: done.append(invoke("hooks", "status").exit_code), daemon=True)
    runner.start()
    runner.join(20)
    if runner.is_alive():  # (let the open go, so the thread ends, before failing)
        with open(fifo, "wb"):
            pass
    assert done and done[0] == 0, done
