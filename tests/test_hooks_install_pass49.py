"""`hooks install|uninstall` (pass 49): an uninstall gives back a config the user had as it
was, byte for byte, and removes only a file the install created; a replaced command's
credentials are masked wherever it is shown; a project install says its settings file is
not in git's ignore list; Cursor's Tab hooks are no longer installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hooks_builders import ok


def config_of(agent: str, scope: str, home: Path, project: Path) -> Path:
    base = home if scope == "user" else project
    if agent == "cursor":
        return base / ".cursor" / "hooks.json"
    return base / ".claude" / ("settings.json" if scope == "user" else "settings.local.json")


@pytest.mark.parametrize(("agent", "scope", "text"), [
    ("cursor", "project", b'{"version":1,"hooks":{}}\n'),  # committed with the project
    ("cursor", "user", b'{"version": 1, "hooks": {}}'),
    ("cursor", "user", b'{"hooks": {}}\n'),  # no version: the install adds one, the uninstall gives it back without
    ("claude", "project", b"{}"),
    ("claude", "user", b"{}\n"),
    ("claude", "user", b'{"hooks":{}}'),
    ("claude", "user", b""),  # an empty file
    ("claude", "user", b'{"hooks":{"Stop":[]}}\r\n'),  # CRLF, an event with no entry
])
def test_an_uninstall_gives_back_a_config_the_user_had_byte_for_byte(
        isolated_home: Path, project: Path, agent: str, scope: str, text: bytes) -> None:
    path = config_of(agent, scope, isolated_home, project)
    path.parent.mkdir(parents=True)
    path.write_bytes(text)
    ok("hooks", "install", agent, "--scope", scope)
    ok("hooks", "install", agent, "--scope", scope)  # a second install does not forget the first one's record
    assert path.read_bytes() != text
    out = ok("hooks", "uninstall", agent, "--scope", scope).stdout
    assert path.read_bytes() == text
    assert "back as it was" in out and "removed" not in out.replace("hook removed from", "")


def test_a_file_the_install_created_is_still_removed_and_the_record_goes(isolated_home: Path) -> None:
    import os

    path = config_of("claude", "user", isolated_home, isolated_home)
    path.parent.mkdir()
    ok("hooks", "install", "claude")
    record = json.loads((Path(os.environ["AGENTSCAN_DATA_DIR"]) / "hook-dirs.json").read_text())
    assert record["files"] == {str(path): None}
    out = ok("hooks", "uninstall", "claude").stdout
    assert not path.exists() and f"removed {path}: the install had created it" in out
    assert not (Path(os.environ["AGENTSCAN_DATA_DIR"]) / "hook-dirs.json").exists()


def test_a_file_with_only_our_hooks_and_no_record_is_kept(isolated_home: Path) -> None:
    # Installed by an agentscan that recorded nothing (or another data directory): whether the
    # file was the user's cannot be known, so it stays, emptied of our hooks.
    ok("hooks", "install", "claude")
    import os

    (Path(os.environ["AGENTSCAN_DATA_DIR"]) / "hook-dirs.json").unlink()
    path = config_of("claude", "user", isolated_home, isolated_home)
    out = ok("hooks", "uninstall", "claude").stdout
    assert json.loads(path.read_text()) == {}
    assert f"kept {path}, though it holds no setting now" in out


def test_a_setting_added_since_the_install_is_kept_not_the_old_text(isolated_home: Path) -> None:
    path = config_of("claude", "user", isolated_home, isolated_home)
    path.parent.mkdir()
    path.write_text("{}")
    ok("hooks", "install", "claude")
    config = json.loads(path.read_text())
    path.write_text(json.dumps({**config, "model": "opus"}, indent=2))
    ok("hooks", "uninstall", "claude")
    assert json.loads(path.read_text()) == {"model": "opus"}
    # The record is done with: the file is the user's now, with or without a later install.
    ok("hooks", "install", "claude")
    ok("hooks", "uninstall", "claude")
    assert json.loads(path.read_text()) == {"model": "opus"}


OLD = ("/old/venv/bin/agentscan hook --agent claude --otlp-endpoint "
       "https://user:pass@collector.example/v1/traces?api_key=TOPSECRET")


def test_a_replaced_command_s_credentials_are_masked_everywhere_it_is_shown(isolated_home: Path) -> None:
    from hooks_builders import write_json

    path = config_of("claude", "user", isolated_home, isolated_home)
    write_json(path, {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": OLD}]}]}})
    status = json.loads(ok("hooks", "status", "--json").stdout)
    [claude] = [config for config in status["configs"] if config["agent"] == "claude" and config["exists"]]
    assert claude["command"] == ("/old/venv/bin/agentscan hook --agent claude --otlp-endpoint "
                                 "https://***@collector.example/v1/traces?***")
    text = ok("hooks", "status").stdout
    assert "TOPSECRET" not in text and "pass@" not in text
    out = ok("hooks", "install", "claude").stdout
    assert "updated agentscan's command in Stop (it was /old/venv/bin/agentscan hook --agent claude " \
           "--otlp-endpoint https://***@collector.example/v1/traces?***)" in out
    assert "user:pass@collector.example/v1/traces?api_key=TOPSECRET" in path.read_text()  # the file keeps it
    write_json(path, {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": OLD}]}]}})
    doc = json.loads(ok("hooks", "install", "claude", "--json").stdout)
    [replaced] = doc["changes"][0]["replaced"]
    assert replaced["command"].endswith("https://***@collector.example/v1/traces?***")


def test_an_older_install_s_tab_hooks_are_noted_and_an_install_removes_them(isolated_home: Path) -> None:
    from agentscan.hooks.events import CURSOR_EVENTS as EVERY_CURSOR_EVENT
    from agentscan.hooks.install import CURSOR_EVENTS, hook_command
    from hooks_builders import write_json

    assert set(EVERY_CURSOR_EVENT) - set(CURSOR_EVENTS) == {"beforeTabFileRead", "afterTabFileEdit"}
    path = config_of("cursor", "user", isolated_home, isolated_home)
    ours = {"command": hook_command("cursor"), "timeout": 5}
    theirs = {"command": "/opt/tabspy"}
    hooks: dict = {event: [dict(ours)] for event in EVERY_CURSOR_EVENT}  # as an older agentscan installed it
    hooks["afterTabFileEdit"].insert(0, theirs)
    write_json(path, {"version": 1, "hooks": hooks})
    status = json.loads(ok("hooks", "status", "--json").stdout)
    [cursor] = [config for config in status["configs"] if config["agent"] == "cursor" and config["exists"]]
    assert (cursor["events"], cursor["of"]) == (19, 19)
    assert "also on beforeTabFileRead and afterTabFileEdit, which Cursor runs on every Tab completion" in cursor["note"]
    assert "`agentscan hooks install cursor` again to remove it" in cursor["note"]
    out = ok("hooks", "install", "cursor").stdout
    assert "removed agentscan's hook from beforeTabFileRead, afterTabFileEdit" in out
    after = json.loads(path.read_text())["hooks"]
    assert "beforeTabFileRead" not in after and after["afterTabFileEdit"] == [theirs]  # theirs stays
    assert all(after[event] == [ours] for event in CURSOR_EVENTS)
    status = json.loads(ok("hooks", "status", "--json").stdout)
    assert not [config for config in status["configs"] if "Tab" in (config["note"] or "")]


@pytest.mark.parametrize("ignored", [False, True, None])  # None: no git work tree
def test_a_project_install_says_when_git_would_commit_its_settings_file(project: Path, ignored: bool | None) -> None:
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if ignored is not None:
        subprocess.run(["git", "init", "-q", str(project)], check=True)
    if ignored:
        (project / ".gitignore").write_text(".claude/settings.local.json\n")
    out = ok("hooks", "install", "claude", "--scope", "project").stdout
    said = f"note: git does not ignore {project / '.claude' / 'settings.local.json'}, which holds this machine's path"
    assert (said in out) is (ignored is False)
    if ignored is False:
        assert "add .claude/settings.local.json to the project's .gitignore" in out
        assert not (project / ".gitignore").exists()  # said, never done
