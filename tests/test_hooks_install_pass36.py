"""`hooks install|uninstall` and `doctor`'s hooks, after the pass-36 review.

* ``CLAUDE_CONFIG_DIR``: Claude Code reads its user settings from
  ``$CLAUDE_CONFIG_DIR/settings.json`` when it is set, so the user scope is that file (and
  the output says so); a relative one, or a list, is refused (``doctor`` says why).
* ``doctor`` says when agentscan's hook is installed for the user and in this project too
  (the agent runs both: each event captured twice), as ``hooks install`` warns.
* ``"disableAllHooks": true`` in a Claude settings file turns every hook off: ``doctor``
  says so, and ``hooks install`` warns.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.hooks.install import CLAUDE_EVENTS, is_ours
from hooks_builders import ok, write_json

runner = CliRunner()


def ours(path: Path) -> list[str]:
    config = json.loads(path.read_text())
    return [event for event, groups in config.get("hooks", {}).items()
            if any(is_ours(hook) for group in groups for hook in group.get("hooks", []))]


def doctor_hooks(*args: str) -> dict:
    return orjson.loads(ok(*args, "doctor", "--json").stdout)["hooks"]


@pytest.fixture
def config_dir(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    chosen = tmp_path / "alt-claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(chosen))
    return chosen


def test_install_and_uninstall_use_claude_config_dir(config_dir: Path, isolated_home: Path) -> None:
    result = ok("hooks", "install", "--agent", "claude")
    settings = config_dir / "settings.json"
    assert sorted(ours(settings)) == sorted(CLAUDE_EVENTS)
    assert not (isolated_home / ".claude").exists()  # not the home's, which Claude Code does not read now
    assert f"in {settings}" in result.stdout
    assert f"CLAUDE_CONFIG_DIR is set: Claude Code reads its user settings from {settings}" in result.stderr
    diff = ok("hooks", "uninstall", "--agent", "claude", "--dry-run").stdout
    assert diff.startswith(f"--- {settings}\n")
    ok("hooks", "uninstall", "--agent", "claude")
    assert not settings.exists()  # it held nothing but agentscan's hooks


def test_claude_config_dir_with_a_tilde_is_the_home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "~/claude-work")
    ok("hooks", "install", "--agent", "claude")
    assert ours(isolated_home / "claude-work" / "settings.json")


def test_doctor_reads_the_user_settings_claude_config_dir_names(config_dir: Path) -> None:
    ok("hooks", "install", "--agent", "claude")
    [config] = doctor_hooks()["configs"]
    assert (config["path"], config["events"], config["source"]) == (str(config_dir / "settings.json"),
                                                                     len(CLAUDE_EVENTS), "CLAUDE_CONFIG_DIR")
    assert "Claude Code's user settings, chosen by CLAUDE_CONFIG_DIR" in ok("doctor").stdout


@pytest.mark.parametrize("value", ["relative/claude", "/a/claude,/b/claude"])
def test_a_claude_config_dir_claude_code_would_read_elsewhere_is_refused(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", value)
    for command in ("install", "uninstall"):
        result = runner.invoke(app, ["hooks", command, "--agent", "claude"])
        assert result.exit_code == 1 and "CLAUDE_CONFIG_DIR" in result.stderr, result.output
    assert not list(isolated_home.rglob("settings.json"))  # nothing written anywhere
    [config] = doctor_hooks()["configs"]
    assert config["path"] == "$CLAUDE_CONFIG_DIR" and "CLAUDE_CONFIG_DIR" in config["problem"]
    # the other agent, and the project scope, are not held up by it
    ok("hooks", "install", "--agent", "cursor")


def test_doctor_says_when_the_user_and_the_project_both_run_the_hook(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    ok("hooks", "install", "--agent", "claude")
    ok("hooks", "install", "--agent", "claude", "--scope", "project")
    configs = {c["scope"]: c for c in doctor_hooks()["configs"]}
    user_path = str(isolated_home / ".claude" / "settings.json")
    assert configs["project"]["also_installed"] == user_path and configs["user"]["also_installed"] is None
    text = ok("doctor").stdout
    assert (f"agentscan's hook is also installed in {user_path}: Claude Code runs the hooks of both files, so each "
            "event can be captured twice") in " ".join(text.split())
    assert f"`agentscan hooks uninstall claude --scope project` in {project};" in " ".join(text.split())
    # with --home, the user's command names it
    home = tmp_path / "other-home"
    home.mkdir()
    ok("--home", str(home), "hooks", "install", "--agent", "claude")
    flat = " ".join(ok("--home", str(home), "doctor").stdout.split())
    assert f"to keep only this project's, run `agentscan hooks uninstall claude --home {home}`" in flat


def test_one_scope_alone_is_no_double_registration(isolated_home: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    ok("hooks", "install", "--agent", "cursor", "--scope", "project")
    assert [c["also_installed"] for c in doctor_hooks()["configs"]] == [None]
    assert "also installed" not in ok("doctor").stdout


def test_disable_all_hooks_is_said_by_doctor_and_install(isolated_home: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "dis"
    local = write_json(project / ".claude" / "settings.local.json", {"disableAllHooks": True})
    monkeypatch.chdir(project)
    [config] = doctor_hooks()["configs"]
    assert config["path"] == str(local) and '"disableAllHooks": true' in config["problem"]
    assert "turns off every Claude Code hook" in " ".join(ok("doctor").stdout.split())
    result = ok("hooks", "install", "--agent", "claude")
    assert f"warning: {local}: \"disableAllHooks\": true here turns off every Claude Code hook" in result.stderr
    # false, or another agent's install: nothing said
    write_json(local, {"disableAllHooks": False})
    assert "disableAllHooks" not in ok("hooks", "install", "--agent", "claude", "--scope", "project").stderr
    assert not [c for c in doctor_hooks()["configs"] if c["problem"]]
