"""`agentscan hooks install|uninstall`: merged into the agent's config, never clobbering it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.hooks.install import CLAUDE_EVENTS, CURSOR_EVENTS, is_ours
from hooks_builders import HARNESSSPY

runner = CliRunner()
CURSOR_FIXTURE = HARNESSSPY / "cursor-hooks.example.json"
CLAUDE_FIXTURE = HARNESSSPY / "claude-settings.example.json"


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def ours_in_cursor(config: dict) -> dict[str, list[str]]:
    return {event: [e["command"] for e in entries if is_ours(e)] for event, entries in config["hooks"].items()}


def test_cursor_install_registers_every_event_in_a_fresh_home(isolated_home: Path) -> None:
    out = invoke("hooks", "install", "--agent", "cursor")
    path = isolated_home / ".cursor" / "hooks.json"
    config = json.loads(path.read_text())
    assert config["version"] == 1
    # Every Cursor event but the two Tab ones (pass 49: nothing reads them, and they ran on every Tab completion).
    assert tuple(config["hooks"]) == CURSOR_EVENTS and len(CURSOR_EVENTS) == 19
    assert "beforeTabFileRead" not in config["hooks"] and "afterTabFileEdit" not in config["hooks"]
    for entries in config["hooks"].values():
        [entry] = entries
        assert entry["command"].endswith("agentscan hook --agent cursor")
        assert entry["timeout"] == 5
    assert "19 cursor events" in out
    assert path.read_text().startswith('{\n  "version": 1,\n  "hooks": {\n    "sessionStart": [')


def test_cursor_install_merges_with_existing_hooks_and_is_idempotent(isolated_home: Path) -> None:
    path = isolated_home / ".cursor" / "hooks.json"
    path.parent.mkdir()
    path.write_bytes(CURSOR_FIXTURE.read_bytes())  # someone else's observer on all 21 events
    invoke("hooks", "install", "--agent", "cursor")
    once = path.read_text()
    config = json.loads(once)
    for event, entries in config["hooks"].items():
        assert entries[0]["command"].endswith("CursorSpy.Hook.exe"), event  # theirs kept, first
        if event in CURSOR_EVENTS:
            assert len(entries) == 2 and is_ours(entries[1])
        else:  # a Tab event: theirs alone
            assert len(entries) == 1

    assert "nothing to change" in invoke("hooks", "install", "--agent", "cursor")
    assert path.read_text() == once


def test_reinstall_updates_a_stale_command_in_place(isolated_home: Path) -> None:
    path = isolated_home / ".cursor" / "hooks.json"
    path.parent.mkdir()
    stale = {"command": "/old/venv/bin/agentscan hook --agent cursor", "timeout": 9}
    path.write_text(json.dumps({"version": 1, "hooks": {"stop": [stale, dict(stale)], "custom": [{"command": "x"}]}}))
    invoke("hooks", "install", "--agent", "cursor")
    hooks = json.loads(path.read_text())["hooks"]
    [entry] = hooks["stop"]  # the duplicate is gone, the user's timeout kept
    assert entry["timeout"] == 9 and not entry["command"].startswith("/old/")
    assert hooks["custom"] == [{"command": "x"}]


def test_uninstall_removes_only_ours(isolated_home: Path) -> None:
    path = isolated_home / ".cursor" / "hooks.json"
    path.parent.mkdir()
    path.write_bytes(CURSOR_FIXTURE.read_bytes())
    invoke("hooks", "install", "--agent", "cursor")
    out = invoke("hooks", "uninstall", "--agent", "cursor")
    assert "removed from 19 cursor events" in out
    assert json.loads(path.read_text()) == json.loads(CURSOR_FIXTURE.read_text())
    assert "nothing to change" in invoke("hooks", "uninstall", "--agent", "cursor")


def test_dry_run_prints_a_diff_and_writes_nothing(isolated_home: Path) -> None:
    path = isolated_home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"model": "opus"}\n')
    out = invoke("hooks", "install", "--agent", "claude", "--dry-run")
    assert out.startswith(f"--- {path}\n+++ {path}\n")
    assert '+  "hooks": {' in out and '-{"model": "opus"}' in out
    assert path.read_text() == '{"model": "opus"}\n'
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]  # no temp file left either


def test_claude_install_uses_matcher_groups_and_keeps_other_settings(isolated_home: Path) -> None:
    path = isolated_home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(CLAUDE_FIXTURE.read_bytes())
    invoke("hooks", "install", "--agent", "claude")
    config = json.loads(path.read_text())
    original = json.loads(CLAUDE_FIXTURE.read_text())
    assert config["env"] == original["env"] and config["$schema"] == original["$schema"]
    assert set(config["hooks"]) == set(original["hooks"]) | set(CLAUDE_EVENTS)
    assert "WorktreeCreate" not in config["hooks"]  # its hook must answer with a path: not ours to observe
    for event in CLAUDE_EVENTS:
        groups = config["hooks"][event]
        assert groups[: len(original["hooks"].get(event, []))] == original["hooks"].get(event, [])
        assert groups[-1]["hooks"][0]["type"] == "command"
        assert groups[-1]["hooks"][0]["command"].endswith("agentscan hook --agent claude")
        assert "matcher" not in groups[-1]  # every tool

    invoke("hooks", "uninstall", "--agent", "claude")
    assert json.loads(path.read_text()) == original


def test_claude_uninstall_drops_the_hooks_key_it_emptied(isolated_home: Path) -> None:
    settings = isolated_home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus"}')
    invoke("hooks", "install", "--agent", "claude")
    invoke("hooks", "uninstall", "--agent", "claude")
    assert json.loads(settings.read_text()) == {"model": "opus"}


@pytest.mark.parametrize("agent", ["cursor", "claude"])
def test_install_then_uninstall_on_a_home_without_config_leaves_no_file(isolated_home: Path, agent: str) -> None:
    path = isolated_home / (".cursor/hooks.json" if agent == "cursor" else ".claude/settings.json")
    invoke("hooks", "install", "--agent", agent)
    assert path.is_file()
    out = invoke("hooks", "uninstall", "--agent", agent)
    assert not path.exists() and f"removed {path}" in out
    # The directory the install had to create goes too: no empty ~/.claude/ is left behind
    # (and so no backup of a file that held only ours either).
    assert not path.parent.exists() and f"removed {path.parent}" in out
    assert sorted(p.name for p in isolated_home.iterdir()) == []


@pytest.mark.parametrize("agent", ["cursor", "claude"])
def test_uninstall_keeps_a_directory_it_did_not_create_or_that_is_in_use(isolated_home: Path, agent: str) -> None:
    path = isolated_home / (".cursor/hooks.json" if agent == "cursor" else ".claude/settings.json")
    path.parent.mkdir()  # the agent's own directory, there before agentscan
    invoke("hooks", "install", "--agent", agent)
    invoke("hooks", "uninstall", "--agent", agent)
    assert path.parent.is_dir() and not path.exists()
    # Created by the install, but the agent wrote into it since: it stays.
    path.parent.rmdir()
    invoke("hooks", "install", "--agent", agent)
    (path.parent / "projects").mkdir()
    invoke("hooks", "uninstall", "--agent", agent)
    assert (path.parent / "projects").is_dir()
    (path.parent / "projects").rmdir()
    # In use once, forgotten: a later install/uninstall of a pre-existing directory keeps it.
    invoke("hooks", "install", "--agent", agent)
    invoke("hooks", "uninstall", "--agent", agent)
    assert path.parent.is_dir()


def test_project_scope_leaves_no_empty_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    invoke("hooks", "install", "--agent", "claude", "--scope", "project")
    assert (project / ".claude" / "settings.local.json").is_file()
    invoke("hooks", "uninstall", "--agent", "claude", "--scope", "project")
    assert list(project.iterdir()) == []


@pytest.mark.skipif(os.name != "posix", reason="file modes")
def test_new_files_and_backups_are_private_and_an_edited_file_keeps_its_mode(isolated_home: Path) -> None:
    old_umask = os.umask(0o022)
    try:
        invoke("hooks", "install", "--agent", "cursor")
        created = isolated_home / ".cursor" / "hooks.json"
        assert created.stat().st_mode & 0o777 == 0o600
        assert created.parent.stat().st_mode & 0o777 == 0o700
        settings = isolated_home / ".claude" / "settings.json"
        settings.parent.mkdir()
        settings.write_text('{"model": "opus"}\n')
        settings.chmod(0o644)
        invoke("hooks", "install", "--agent", "claude")
        assert settings.stat().st_mode & 0o777 == 0o644  # the agent's file keeps its own mode
        [backup] = settings.parent.glob("settings.json.agentscan-*.bak")
        assert backup.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old_umask)


def test_install_keeps_a_timestamped_backup_and_names_the_agent_to_restart(isolated_home: Path) -> None:
    settings = isolated_home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus"}\n')
    settings.chmod(0o640)
    out = invoke("hooks", "install", "--agent", "claude")
    [backup] = [p for p in settings.parent.iterdir() if p != settings]
    assert backup.name.startswith("settings.json.agentscan-") and backup.name.endswith(".bak")
    assert backup.read_text() == '{"model": "opus"}\n'
    if os.name == "posix":
        assert backup.stat().st_mode & 0o777 == 0o600  # a file agentscan creates
    assert str(backup) in out and "Restart Claude Code" in out
    assert "Restart Cursor" in invoke("hooks", "install", "--agent", "cursor")


def test_project_scope_writes_in_the_current_directory(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    invoke("hooks", "install", "--agent", "claude", "--scope", "project")
    invoke("hooks", "install", "--agent", "cursor", "--scope", "project")
    # Claude's project settings.json is committed and shared: ours go in the local one.
    assert (project / ".claude" / "settings.local.json").is_file()
    assert not (project / ".claude" / "settings.json").exists()
    assert (project / ".cursor" / "hooks.json").is_file()
    assert not (isolated_home / ".claude").exists() and not (isolated_home / ".cursor").exists()
    invoke("hooks", "uninstall", "--agent", "claude", "--scope", "project")
    assert not (project / ".claude" / "settings.local.json").exists()


def test_project_uninstall_also_cleans_the_shared_settings_an_older_version_wrote(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentscan.hooks import install as installer

    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    monkeypatch.chdir(project)
    shared = project / ".claude" / "settings.json"
    shared.write_text('{"permissions": {"allow": []}}')
    installer.write(installer.plan("claude", shared, install=True, command="agentscan hook --agent claude"))
    assert "hooks" in json.loads(shared.read_text())
    invoke("hooks", "uninstall", "--agent", "claude", "--scope", "project")
    assert json.loads(shared.read_text()) == {"permissions": {"allow": []}}


def test_home_option_chooses_where_user_scope_writes(tmp_path: Path) -> None:
    other = tmp_path / "other-home"
    other.mkdir()
    invoke("--home", str(other), "hooks", "install", "--agent", "cursor")
    assert (other / ".cursor" / "hooks.json").is_file()


def test_a_home_that_does_not_exist_is_an_error_not_created(tmp_path: Path) -> None:
    typo = tmp_path / "no-such-home"
    for command in ("install", "uninstall"):
        result = runner.invoke(app, ["--home", str(typo), "hooks", command, "--agent", "claude"])
        assert result.exit_code == 1 and f"--home {typo}: no such directory" in result.stderr
    assert not typo.exists()


@pytest.mark.parametrize("text", ["{\"hooks\": {", "[1, 2]", "{\"hooks\": []}", "{\"hooks\": {\"stop\": {}}}"])
def test_a_config_it_cannot_merge_is_refused_untouched(isolated_home: Path, text: str) -> None:
    path = isolated_home / ".cursor" / "hooks.json"
    path.parent.mkdir()
    path.write_text(text)
    result = runner.invoke(app, ["hooks", "install", "--agent", "cursor"])
    assert result.exit_code == 1
    assert str(path) in result.stderr and "will not" in result.stderr
    assert path.read_text() == text


@pytest.mark.skipif(os.name != "posix", reason="symlinks and modes")
def test_a_symlinked_config_stays_a_symlink_and_keeps_its_mode(isolated_home: Path, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text("{}")
    real.chmod(0o640)
    link = isolated_home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    invoke("hooks", "install", "--agent", "claude")
    assert link.is_symlink() and "hooks" in json.loads(real.read_text())
    assert real.stat().st_mode & 0o777 == 0o640


def test_demo_mode_refuses_to_install(isolated_home: Path) -> None:
    result = runner.invoke(app, ["--demo", "hooks", "install", "--agent", "cursor"])
    assert result.exit_code == 2
    assert not (isolated_home / ".cursor").exists()


def test_a_project_config_s_backup_is_kept_out_of_the_project(isolated_home: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # Beside settings.local.json, in the project, nothing kept the backup out of git, and the
    # file holds what is private to the machine (an env var's key, say).
    project = tmp_path / "my-app"
    local = project / ".claude" / "settings.local.json"
    local.parent.mkdir(parents=True)
    original = b'{\n  "env": {"API_KEY": "secret"}\n}\n'
    local.write_bytes(original)
    monkeypatch.chdir(project)
    out = invoke("hooks", "install", "--agent", "claude", "--scope", "project")
    assert sorted(path.name for path in local.parent.iterdir()) == ["settings.local.json"]
    backups = list((Path(os.environ["AGENTSCAN_DATA_DIR"]) / "config-backups").iterdir())
    assert len(backups) == 1 and backups[0].read_bytes() == original
    assert backups[0].name.startswith("my-app-") and backups[0].name.endswith(".bak")
    assert f"the previous version is kept in {backups[0]}" in out
    assert oct(backups[0].stat().st_mode & 0o777) == "0o600"
    # The user scope keeps its backup beside the config, as before.
    invoke("hooks", "install", "--agent", "claude")
    user = isolated_home / ".claude" / "settings.json"
    assert user.is_file() and not list(user.parent.glob("settings.json.agentscan-*.bak"))  # it was created: none
    user.write_text('{"model": "opus"}\n')
    invoke("hooks", "install", "--agent", "claude")
    assert len(list(user.parent.glob("settings.json.agentscan-*.bak"))) == 1


@pytest.mark.parametrize("command, ours", [
    ("/usr/bin/agentscan hook --agent claude", True),
    ('"/opt/My Tools/agentscan" hook --agent cursor', True),
    ("python -m agentscan hook --agent claude", True),
    ("C:\\bin\\agentscan.exe hook --agent claude", True),
    ("fooagentscan hook --agent claude", False),  # another program whose name ends so
    ("/opt/my-agentscan hook --agent claude", False),
])
def test_only_agentscan_itself_is_ours(command: str, ours: bool) -> None:
    assert is_ours({"command": command}) is ours


def test_a_config_the_agent_wrote_meanwhile_is_left_as_the_agent_wrote_it(isolated_home: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # Between reading the config and renaming the new one over it, the agent wrote its own
    # change (a setting from its UI): the rename would have lost it.
    from agentscan.hooks import install as installer

    path = isolated_home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"model": "opus"}\n')
    original_backup = installer.backup

    def backup_then_the_agent_writes(plan, **kwargs):  # noqa: ANN001, ANN003, ANN202
        saved = original_backup(plan, **kwargs)
        path.write_text('{"model": "sonnet"}\n')
        return saved

    monkeypatch.setattr(installer, "backup", backup_then_the_agent_writes)
    result = runner.invoke(app, ["hooks", "install", "--agent", "claude"])
    assert result.exit_code == 1
    assert "changed while agentscan was changing it" in result.stderr
    assert path.read_text() == '{"model": "sonnet"}\n'
    assert sorted(p.name for p in path.parent.iterdir() if not p.name.endswith(".bak")) == ["settings.json"]  # no temp file left


def test_a_project_backup_that_cannot_be_kept_is_one_error_line(isolated_home: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    local = project / ".claude" / "settings.local.json"
    local.parent.mkdir(parents=True)
    local.write_text('{"model": "opus"}\n')
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("AGENTSCAN_DATA_DIR", str(blocker / "sub"))  # under a file: no directory there
    # (``install`` says so first, tests/test_ids_pass48.py: here the backup's own failure is tested)
    monkeypatch.setattr("agentscan.datadir.check", lambda *args, **kwargs: None)
    monkeypatch.setattr("agentscan.hooks.status.store_problem", lambda *args, **kwargs: None)  # (pass 55: that too)
    monkeypatch.chdir(project)
    result = runner.invoke(app, ["hooks", "install", "--agent", "claude", "--scope", "project"])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.stderr.startswith("error: cannot keep a backup in ") and len(result.stderr.splitlines()) == 1
    assert local.read_text() == '{"model": "opus"}\n'


def test_a_config_laid_out_by_hand_is_said_to_be_relaid(isolated_home: Path) -> None:
    import json

    path = isolated_home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    by_hand = '{\n  "permissions": {\n    "allow": ["Bash(ls)", "Read"]\n  },\n  "model":"opus"\n}\n'
    path.write_text(by_hand)
    out = invoke("hooks", "install", "--agent", "claude")
    assert "was laid out by hand" in out
    assert json.loads(path.read_text())["permissions"] == {"allow": ["Bash(ls)", "Read"]}
    [backup] = path.parent.glob("settings.json.agentscan-*.bak")
    assert backup.read_text() == by_hand
    # As the agents write it (plain JSON, one value a line): nothing to say, and it comes back.
    invoke("hooks", "uninstall", "--agent", "claude")
    plain = path.read_text()
    doc = json.loads(runner.invoke(app, ["hooks", "install", "--agent", "claude", "--json"]).stdout)
    assert [change["relaid"] for change in doc["changes"]] == [False]
    invoke("hooks", "uninstall", "--agent", "claude")
    assert path.read_text() == plain
