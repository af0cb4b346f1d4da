"""`hooks install|uninstall` leave nothing behind, `--home` says what it does for them, and
`doctor` says where a `--scope project` command is to be run (pass 43).

* An install and an uninstall on a project with no config left an empty
  ``config-backups/`` in agentscan's data directory (made before knowing whether a backup
  would be kept), and on any scope the data directory made only to hold ``hook-dirs.json``.
* ``hooks install --help`` said ``--home`` would "Read agent files under DIR": it changes the
  agent's config there.
* ``doctor`` said to run ``… --scope project` here``: which directory "here" was, a newcomer
  reading the note elsewhere could not tell.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hooks_builders import ok


def tree(*roots: Path) -> list[str]:
    """Every file and directory under ``roots`` (and the roots themselves, when they exist)."""
    return sorted(str(path) for root in roots if root.exists() for path in (root, *root.rglob("*")))


def data_dir() -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


@pytest.mark.parametrize("agent", ["claude", "cursor"])
@pytest.mark.parametrize("scope", ["user", "project"])
def test_an_install_and_an_uninstall_leave_no_folder_behind(isolated_home: Path, project: Path,
                                                            agent: str, scope: str) -> None:
    before = tree(isolated_home, project, data_dir())
    ok("hooks", "install", agent, "--scope", scope)
    assert (data_dir() / "hook-dirs.json").is_file()  # the config's folder was made, and recorded
    assert not (data_dir() / "config-backups").exists()  # no config was there: no backup to keep
    ok("hooks", "uninstall", agent, "--scope", scope)
    assert tree(isolated_home, project, data_dir()) == before
    assert not data_dir().exists()


def test_the_data_directory_s_parents_it_made_go_too(isolated_home: Path, project: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # As ~/.local/share/agentscan on a home with no ~/.local: three folders made for one file.
    monkeypatch.setenv("AGENTSCAN_DATA_DIR", str(tmp_path / "local" / "share" / "agentscan"))
    ok("hooks", "install", "claude", "--scope", "project")
    assert data_dir().is_dir()
    ok("hooks", "uninstall", "claude", "--scope", "project")
    assert not (tmp_path / "local").exists() and not (project / ".claude").exists()


def test_a_data_directory_that_was_there_stays(isolated_home: Path, project: Path) -> None:
    data_dir().mkdir()
    ok("hooks", "install", "claude")
    ok("hooks", "uninstall", "claude")
    assert data_dir().is_dir() and not list(data_dir().iterdir())


def test_a_data_directory_that_holds_anything_else_stays(isolated_home: Path, project: Path) -> None:
    ok("hooks", "install", "claude")
    events = data_dir() / "events" / "claude" / "s1.jsonl"  # a hook ran meanwhile
    events.parent.mkdir(parents=True)
    events.write_text("{}\n")
    ok("hooks", "uninstall", "claude")
    assert not (isolated_home / ".claude").exists()
    # the record is gone, the rest kept
    assert tree(data_dir()) == sorted(str(path) for path in (data_dir(), data_dir() / "events", events.parent, events))


def test_the_data_directory_stays_while_another_install_needs_its_record(isolated_home: Path, project: Path) -> None:
    ok("hooks", "install", "claude")
    ok("hooks", "install", "claude", "--scope", "project")
    ok("hooks", "uninstall", "claude")
    record = json.loads((data_dir() / "hook-dirs.json").read_text())
    assert record["created"] == [str(project / ".claude")]
    ok("hooks", "uninstall", "claude", "--scope", "project")
    assert not data_dir().exists() and not (project / ".claude").exists()


def test_a_project_config_s_backups_are_kept(isolated_home: Path, project: Path) -> None:
    config = project / ".claude" / "settings.local.json"
    config.parent.mkdir()
    config.write_text('{\n  "model": "opus"\n}\n')
    ok("hooks", "install", "claude", "--scope", "project")
    ok("hooks", "uninstall", "claude", "--scope", "project")
    assert config.read_text() == '{\n  "model": "opus"\n}\n'
    backups = sorted((data_dir() / "config-backups").iterdir())
    assert len(backups) == 2 and all(path.name.startswith("project-") for path in backups)
    assert '{\n  "model": "opus"\n}\n' in [path.read_text() for path in backups]  # the install's


def test_the_hooks_commands_say_what_home_is_for_them() -> None:
    flat = {command: " ".join(ok("hooks", command, "--help").stdout.split())
            for command in ("install", "uninstall", "status")}
    for command in ("install", "uninstall"):
        assert "--home DIR Change the agent config under DIR instead of $HOME (with --scope user)." in flat[command]
    assert "--home DIR Check the user-scope agent configs under DIR instead of $HOME." in flat["status"]
    assert not any("Read agent files" in text for text in flat.values())
    # the commands that read sessions keep theirs
    assert "--home DIR Read agent files under DIR instead of $HOME." in " ".join(ok("list", "--help").stdout.split())


def test_doctor_names_the_directory_a_project_command_runs_in(isolated_home: Path, project: Path) -> None:
    ok("hooks", "install", "claude")
    ok("hooks", "install", "claude", "--scope", "project")
    flat = " ".join(ok("doctor").stdout.split())
    assert (f"to keep only the user's, run `agentscan hooks uninstall claude --scope project` in {project}; "
            "to keep only this project's, run `agentscan hooks uninstall claude`") in flat
    assert "` here" not in flat


def test_a_narrowed_project_hook_s_fix_names_its_directory(isolated_home: Path, project: Path) -> None:
    config = project / ".claude" / "settings.local.json"
    config.parent.mkdir()
    hook = {"type": "command", "command": "agentscan hook --agent claude"}
    config.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}))
    flat = " ".join(ok("hooks", "status").stdout.split())
    assert (f"run `agentscan hooks install claude --scope project` in {project} to capture every tool") in flat


def test_a_record_naming_another_folder_removes_nothing_but_its_own(isolated_home: Path, project: Path,
                                                                       tmp_path: Path) -> None:
    # The record is agentscan's own file (0600), but a hand edit must not make uninstall rmdir elsewhere.
    elsewhere = tmp_path / "someone-elses-empty-folder"
    elsewhere.mkdir()
    ok("hooks", "install", "claude", "--scope", "project")
    record = data_dir() / "hook-dirs.json"
    document = json.loads(record.read_text())
    document["data_dirs"] = [str(elsewhere), *document["data_dirs"]]
    record.write_text(json.dumps(document))
    ok("hooks", "uninstall", "claude", "--scope", "project")
    assert elsewhere.is_dir()


def test_a_legacy_project_file_s_fix_names_the_directory_before_both_commands(isolated_home: Path,
                                                                              project: Path) -> None:
    # "run `… uninstall …`, then `… install …`, in DIR," left it unclear whether DIR was both commands'.
    config = project / ".claude" / "settings.json"
    config.parent.mkdir()
    hook = {"type": "command", "command": "agentscan hook --agent claude"}
    config.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}))
    flat = " ".join(ok("hooks", "status").stdout.split())
    assert (f"in {project}, run `agentscan hooks uninstall claude --scope project`, then "
            "`agentscan hooks install claude --scope project`, to capture every tool") in flat
