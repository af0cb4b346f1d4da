"""Hook configs that ``hooks install`` and ``uninstall`` refuse to write back but the agent
reads all the same, and the files Gemini CLI merges that no install writes (pass 60).

* A Gemini CLI settings file with comments, or any config with a key twice, runs agentscan's
  entries; every fix ``hooks status``, ``doctor`` and ``hooks install`` offer for it is an edit
  by hand of that file, naming it, the entries and why (``by_hand``): the commands they offered
  before (``hooks install`` again, ``hooks uninstall``) refuse that file.
* ``NaN`` / ``Infinity`` in a config: Python's ``json`` reads them, the agents' ``JSON.parse``
  does not, so the agent runs none of its entries: ``hooks status`` counted them all the same.
  Every command now says where the word is, and none changes the file.
* Gemini CLI's system defaults and system settings (an administrator's) merge with the user's
  and the project's: an entry of agentscan's there that differs is a second capture, as one in
  the other scope is.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from builders import cli_json, invoke

OURS = "agentscan hook --agent gemini"


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    return project


def _config(agent: str, scope: str) -> dict[str, Any]:
    (config,) = [c for c in cli_json("hooks", "status")["configs"] if c["agent"] == agent and c["scope"] == scope]
    return config


def _commented_user(home: Path, command: str, events: tuple[str, ...] = ("AfterTool",)) -> Path:
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"hooks": [{"type": "command", "command": command}]}
    path.write_text("// my own settings\n" + json.dumps({"hooks": {event: [entry] for event in events}}, indent=2) + "\n")
    return path


# --- 1. comments in a Gemini CLI file: each fix an edit by hand --------------------------------


def test_a_commented_files_missing_program_is_mended_by_hand(isolated_home: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: "run `agentscan hooks install gemini` again", which refuses the file."""
    _project(tmp_path, monkeypatch)
    user = _commented_user(isolated_home, f"/gone/bin/{OURS}")
    config = _config("gemini", "user")
    assert config["by_hand"] == "it holds comments, which agentscan cannot write back"
    # (the one sentence of an edit by hand: ``mendtext.by_hand``, a review's mend)
    assert config["problem"].startswith(f"the hook runs /gone/bin/agentscan, which does not exist: edit {user} by hand "
                                        "to set the command of agentscan's entries to `")
    assert "hooks install gemini" not in config["problem"]
    assert invoke("hooks", "install", "gemini").exit_code == 1  # (and it is so)


def test_a_commented_files_missing_events_are_added_by_hand(isolated_home: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: "run `agentscan hooks install gemini` again to add them"."""
    from agentscan.hooks.program import hook_command

    _project(tmp_path, monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path))  # (no other agentscan on it to note)
    user = _commented_user(isolated_home, hook_command("gemini"))
    config = _config("gemini", "user")
    assert config["problem"] is None, config
    # (a copy of its entry on an event it is on: the command shown may be masked, a review's mend)
    assert (f"edit {user} by hand to copy agentscan's entry on AfterTool to them "
            "(`agentscan hooks install` and `uninstall` will not change it: it holds comments") in config["note"]
    assert "hooks install gemini`" not in config["note"]


def test_both_scopes_with_a_commented_user_file_say_to_edit_it_by_hand(isolated_home: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: "to keep only this project's, run `agentscan hooks uninstall gemini`"."""
    project = _project(tmp_path, monkeypatch)
    user = _commented_user(isolated_home, f"/old/bin/{OURS}")
    assert invoke("hooks", "install", "gemini", "--scope", "project").exit_code == 0
    before = user.read_bytes()
    text = " ".join(invoke("hooks", "status").stdout.split())
    assert (f"to keep only the user's, run `agentscan hooks uninstall gemini --scope project` in {project}; "
            f"to keep only this project's, edit {user} by hand to remove agentscan's entries "
            f"(`/old/bin/{OURS}`)") in text
    assert "uninstall gemini`" not in text
    assert user.read_bytes() == before


# --- 2. a key twice --------------------------------------------------------------------------


def _key_twice(path: Path, command: str) -> None:
    entry = {"hooks": [{"type": "command", "command": command}]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{\n  "x": 1,\n  "x": 2,\n  "hooks": ' + json.dumps({"AfterTool": [entry]}) + "\n}\n")


def test_the_install_warning_names_the_key_twice(isolated_home: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: "(`agentscan hooks uninstall` will not: agentscan cannot write it back)"."""
    _project(tmp_path, monkeypatch)
    user = isolated_home / ".gemini" / "settings.json"
    _key_twice(user, f"/old/bin/{OURS}")
    result = invoke("hooks", "install", "gemini", "--scope", "project")
    (warning,) = [line for line in result.stderr.splitlines() if "also installed in this file" in line]
    assert (f"edit {user} by hand to remove agentscan's entry (`/old/bin/{OURS}`) (`agentscan hooks install` and "
            '`uninstall` will not change it: it holds the key "x" twice (the agent reads the last one), which '
            "agentscan cannot write back), or run `agentscan hooks uninstall gemini --scope project`") in warning


def test_a_key_twice_in_the_project_adds_no_second_run_of_the_same_entry(isolated_home: Path, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: the project's file, refused by an install, was taken to run twice."""
    project = _project(tmp_path, monkeypatch)
    assert invoke("hooks", "install", "gemini").exit_code == 0
    assert invoke("hooks", "install", "gemini", "--scope", "project").exit_code == 0
    path = project / ".gemini" / "settings.json"
    path.write_text(path.read_text().replace("{", '{\n  "x": 1,\n  "x": 2,', 1))
    config = _config("gemini", "project")
    assert config["problem"] is not None and '"x" twice' in config["problem"]
    assert config["also_installed"] is None


def test_both_scopes_with_a_key_twice_in_the_project_say_to_edit_it_by_hand(isolated_home: Path, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    project = _project(tmp_path, monkeypatch)
    assert invoke("hooks", "install", "gemini").exit_code == 0
    path = project / ".gemini" / "settings.json"
    _key_twice(path, f"/old/bin/{OURS}")
    text = " ".join(invoke("hooks", "status").stdout.split())
    assert (f"to keep only the user's, edit {path} by hand to remove agentscan's entries (`/old/bin/{OURS}`) "
            '(`agentscan hooks install` and `uninstall` will not change it: it holds the key "x" twice') in text
    assert "uninstall gemini --scope project`" not in text


def test_a_claude_file_with_a_key_twice_is_warned_of_as_status_says(isolated_home: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: the install passed over the user's file (Claude Code reads the last key and
    runs its hooks), while ``hooks status`` said both scopes capture."""
    _project(tmp_path, monkeypatch)
    assert invoke("hooks", "install", "claude").exit_code == 0
    user = isolated_home / ".claude" / "settings.json"
    user.write_text(user.read_text().replace("{", '{\n  "x": 1,\n  "x": 2,', 1))
    before = user.read_bytes()
    result = invoke("hooks", "install", "claude", "--scope", "project")
    assert result.exit_code == 0
    assert f'warning: {user}: agentscan\'s hook is also installed in this file' in result.stderr
    assert '"x" twice' in result.stderr and "--scope user`" not in result.stderr
    assert _config("claude", "project")["also_installed"] == str(user)
    assert user.read_bytes() == before


# --- 3. NaN and Infinity ---------------------------------------------------------------------


@pytest.mark.parametrize("agent, relative", [("claude", ".claude/settings.json"), ("cursor", ".cursor/hooks.json"),
                                             ("gemini", ".gemini/settings.json")])
@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
def test_a_word_the_agents_json_refuses_is_said_alike_everywhere(isolated_home: Path, tmp_path: Path, agent: str,
                                                                 relative: str, word: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: ``hooks status`` counted the entries of a file the agent cannot read."""
    _project(tmp_path, monkeypatch)
    assert invoke("hooks", "install", agent).exit_code == 0
    path = isolated_home / relative
    path.write_text(path.read_text().replace("{", '{\n  "limit": [1, ' + word + "],", 1))
    before = path.read_bytes()
    where = f"{word} is not JSON at line 2, column 16"
    config = _config(agent, "user")
    assert (config["events"], config["problem"]) == (0, f"not valid JSON: {where}")
    for command in ("install", "uninstall"):
        result = invoke("hooks", command, agent)
        assert result.exit_code == 1 and f"{path} is not valid JSON ({where})" in result.stderr, result.stderr
    assert invoke("doctor").exit_code in (0, 1)
    assert path.read_bytes() == before


# --- 5. Gemini CLI's system settings ---------------------------------------------------------


@pytest.mark.parametrize("name", ["system-defaults.json", "gemini-system-settings.json"])
def test_another_entry_in_gemini_clis_system_files_is_a_second_run(isolated_home: Path, tmp_path: Path, name: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: neither ``hooks install`` nor ``hooks status`` looked at those files."""
    _project(tmp_path, monkeypatch)
    system = tmp_path / name  # (where the test's isolation puts them: ``conftest``)
    system.write_text(json.dumps({"hooks": {"AfterTool": [{"hooks": [
        {"type": "command", "command": f"/opt/bin/{OURS}"}]}]}}))
    result = invoke("hooks", "install", "gemini")
    assert result.exit_code == 0
    (warning,) = [line for line in result.stderr.splitlines() if "also installed in this file" in line]
    assert warning.startswith(f"warning: {system}: ") and f"edit {system} by hand" in warning
    note = _config("gemini", "user")["note"]
    assert note is not None and f"agentscan's hook is also in {system}" in note
    assert re.search(r"or run `agentscan hooks uninstall gemini`$", note), note


def test_the_same_entry_in_gemini_clis_system_defaults_runs_once(isolated_home: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, monkeypatch)
    assert invoke("hooks", "install", "gemini").exit_code == 0
    (tmp_path / "system-defaults.json").write_bytes((isolated_home / ".gemini" / "settings.json").read_bytes())
    result = invoke("--strict", "hooks", "install", "gemini")
    assert result.exit_code == 0, result.stderr
    assert _config("gemini", "user")["note"] is None


def test_a_projects_shared_settings_with_a_key_twice_is_mended_by_hand(isolated_home: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: "run `agentscan hooks uninstall claude --scope project`", which refuses it."""
    project = _project(tmp_path, monkeypatch)
    assert invoke("hooks", "install", "claude", "--scope", "project").exit_code == 0
    local = project / ".claude" / "settings.local.json"
    shared = project / ".claude" / "settings.json"
    shared.write_text(local.read_text().replace("{", '{\n  "x": 1,\n  "x": 2,', 1))
    (legacy,) = [c for c in cli_json("hooks", "status")["configs"] if c["path"] == str(shared)]
    assert legacy["note"].endswith(f'edit {shared} by hand to remove agentscan\'s entries (`agentscan hooks install` '
                                   'and `uninstall` will not change it: it holds the key "x" twice (the agent reads '
                                   "the last one), which agentscan cannot write back)"), legacy["note"]


def test_a_commented_files_narrowed_and_doubled_entries_are_mended_by_hand(isolated_home: Path, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: "run `agentscan hooks install gemini` to capture every tool" (and "to keep one")."""
    _project(tmp_path, monkeypatch)
    assert invoke("hooks", "install", "gemini").exit_code == 0
    user = isolated_home / ".gemini" / "settings.json"
    config = json.loads(user.read_text())
    config["hooks"]["BeforeTool"][0]["matcher"] = "run_shell_command"
    config["hooks"]["AfterTool"].append(config["hooks"]["AfterTool"][0])
    user.write_text("// mine\n" + json.dumps(config, indent=2) + "\n")
    text = " ".join(invoke("hooks", "status").stdout.split())
    assert f"; edit {user} by hand to remove the matcher of agentscan's entries (`" in text
    assert f"; edit {user} by hand to leave one of agentscan's entries (`" in text
    assert "hooks install gemini`" not in text
