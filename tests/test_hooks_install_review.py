"""`agentscan hooks install|uninstall` on configs as users really keep them: the agent's
file is never lost or altered beyond agentscan's own entries, and what cannot be merged
safely is refused with a message (exit 1) and left byte for byte as it was."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.hooks.install import hook_command

runner = CliRunner()


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def refused(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # a message, not a traceback
    return result.stderr


def settings(home: Path, data: bytes) -> Path:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("data", [
    b'{\n    "model": "opus",\n    "env": {\n        "A": "1"\n    }\n}\n',  # 4 spaces
    b'{\n\t"model": "opus",\n\t"env": {\n\t\t"A": "1"\n\t}\n}\n',  # tabs
    b'{\n  "model": "opus"\n}',  # no final newline
    b'{\r\n  "model": "opus",\r\n  "env": {\r\n    "A": "\xc3\xa9"\r\n  }\r\n}\r\n',  # CRLF, UTF-8
])
def test_install_then_uninstall_gives_the_file_back_byte_for_byte(isolated_home: Path, data: bytes) -> None:
    path = settings(isolated_home, data)
    run("hooks", "install", "--agent", "claude")
    installed = path.read_bytes()
    if b"\r\n" in data:
        assert installed.count(b"\n") == installed.count(b"\r\n")  # no line of LF alone
    [backup] = path.parent.glob("settings.json.agentscan-*.bak")
    assert backup.read_bytes() == data  # "the file as it was", CRLF and all
    run("hooks", "uninstall", "--agent", "claude")
    assert path.read_bytes() == data


def test_dry_run_diff_of_a_file_without_final_newline_is_well_formed(isolated_home: Path) -> None:
    settings(isolated_home, b'{"model": "opus"}')
    out = run("hooks", "install", "--agent", "claude", "--dry-run")
    assert '-{"model": "opus"}\n\\ No newline at end of file\n' in out
    for line in out.splitlines():
        assert line[:1] in {"-", "+", " ", "@", "\\"}, line


@pytest.mark.parametrize("agent", ["claude", "cursor"])
def test_reinstall_keeps_the_arguments_and_wrappers_the_user_added(isolated_home: Path, agent: str) -> None:
    # docs/otel.md: "put it [--otlp-endpoint] in the command `agentscan hooks install` wrote".
    moved = "/old/venv/bin/agentscan hook --agent " + agent + " --otlp-endpoint http://127.0.0.1:4318"
    # A long first word that is not agentscan also checks the match is linear, not a backtracking blow-up.
    wrapped = "/home/someone/.local/share/observers/with-environment-variables.sh /old/venv/bin/agentscan hook --agent " + agent
    if agent == "claude":
        path = settings(isolated_home, json.dumps({"hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": moved}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": wrapped}]}],
        }}).encode())
    else:
        path = isolated_home / ".cursor" / "hooks.json"
        path.parent.mkdir()
        path.write_text(json.dumps({"version": 1, "hooks": {"stop": [{"command": moved}], "sessionEnd": [{"command": wrapped}]}}))
    run("hooks", "install", "--agent", agent)
    hooks = json.loads(path.read_text())["hooks"]

    def commands(event: str) -> list[str]:
        return [str(entry["hooks"][0]["command"] if agent == "claude" else entry["command"]) for entry in hooks[event]]

    assert commands("Stop" if agent == "claude" else "stop") == [hook_command(agent) + " --otlp-endpoint http://127.0.0.1:4318"]
    # The user's own wrapper is theirs (pass 50): left as it is, agentscan's entry beside it.
    assert commands("SessionEnd" if agent == "claude" else "sessionEnd") == [wrapped, hook_command(agent)]
    assert "nothing to change" in run("hooks", "install", "--agent", agent)


@pytest.mark.parametrize("text", [
    '{"//": "first note", "//": "second note", "model": "opus"}',
    '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a", "command": "b"}]}]}}',
    '{"x": 1e400}',  # would be written back as Infinity, which is not JSON
    '{"x": NaN}',
])
def test_a_config_that_would_not_survive_the_round_trip_is_refused_untouched(isolated_home: Path, text: str) -> None:
    path = settings(isolated_home, text.encode())
    for action in ("install", "uninstall"):
        err = refused("hooks", action, "--agent", "claude")
        assert str(path) in err and "will not" in err
    assert path.read_bytes() == text.encode()
    assert list(path.parent.iterdir()) == [path]  # no backup, no temp file


def test_a_lone_surrogate_escape_is_written_back_as_an_escape(isolated_home: Path) -> None:
    path = settings(isolated_home, b'{\n  "title": "cut \\ud83d"\n}\n')
    run("hooks", "install", "--agent", "claude")
    assert '"title": "cut \\ud83d"' in path.read_text(encoding="utf-8")
    run("hooks", "uninstall", "--agent", "claude")
    assert path.read_bytes() == b'{\n  "title": "cut \\ud83d"\n}\n'


@pytest.mark.skipif(os.name != "posix", reason="file modes and symlinks")
@pytest.mark.parametrize("linked", [False, True])
def test_a_read_only_config_is_refused_not_replaced(isolated_home: Path, tmp_path: Path, linked: bool) -> None:
    data = b'{"model": "opus"}\n'
    real = tmp_path / "dotfiles" / "settings.json" if linked else isolated_home / ".claude" / "settings.json"
    real.parent.mkdir(parents=True, exist_ok=True)
    real.write_bytes(data)
    if linked:
        (isolated_home / ".claude").mkdir()
        (isolated_home / ".claude" / "settings.json").symlink_to(real)
    real.chmod(0o444)  # the user's way of saying "leave this file alone"
    try:
        err = refused("hooks", "install", "--agent", "claude")
        assert "read-only" in err and str(isolated_home / ".claude" / "settings.json") in err
        assert real.read_bytes() == data and real.stat().st_mode & 0o777 == 0o444
        assert not list((isolated_home / ".claude").glob("*.bak"))
        assert (isolated_home / ".claude" / "settings.json").is_symlink() == linked
    finally:
        real.chmod(0o644)


def test_a_write_that_fails_is_an_error_and_leaves_the_file(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = settings(isolated_home, b'{"model": "opus"}\n')

    def full(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "mkstemp", full)
    err = refused("hooks", "install", "--agent", "claude")
    assert str(path) in err and "No space left on device" in err
    assert path.read_bytes() == b'{"model": "opus"}\n'


def test_a_backup_that_cannot_be_made_is_an_error_and_nothing_is_written(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = settings(isolated_home, b'{"model": "opus"}\n')
    real_open = os.open

    def no_backup(name: object, *args: object, **kwargs: object) -> int:
        if str(name).endswith(".bak"):
            raise PermissionError(13, "Permission denied", str(name))
        return real_open(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", no_backup)
    err = refused("hooks", "install", "--agent", "claude")
    assert "backup" in err and "Permission denied" in err
    assert path.read_bytes() == b'{"model": "opus"}\n'
