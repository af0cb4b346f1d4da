"""An empty Codex rollout (Codex leaves one after an aborted start) is its own session's
problem: its warning is said by what reads that session (an unfiltered ``list``, its own
``show``), not by ``show`` or ``tokens`` of another session, nor by a list filtered to another
project, whose ``--strict`` cron job must not fail over it (review s35, finding 4; docs/cli.md:
"A filtered list ... reports only the warnings of the sessions it lists")."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from codex_builders import Calls, at, meta, rollout_path, turn_context, user_message, write_rollout

WORK = "019c7777-0000-7000-8000-00000000000a"
EMPTY = "019c7777-0000-7000-8000-00000000000e"


@pytest.fixture
def home(isolated_home: Path) -> Path:
    codex = isolated_home / ".codex"
    calls = Calls()
    write_rollout(rollout_path(codex, WORK, at(0)),
                  [meta(WORK, at(0), cwd="/src/api"), turn_context(at(1), cwd="/src/api"),
                   user_message(at(1), "fix the api"), calls.call(at(5), 100, 0, 10)], mtime=at(5).timestamp())
    write_rollout(rollout_path(codex, EMPTY, at(100)), [], mtime=at(100).timestamp())
    return isolated_home


def run(*argv: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(argv))
    return result.exit_code, result.stdout + result.stderr


@pytest.mark.parametrize("command", [["list", "--cwd", "/src/api"], ["list", "--all", "--cwd", "/src/api"],
                                     ["show", WORK], ["tokens", WORK], ["list", "--grep", "api"]])
def test_another_sessions_answer_says_nothing_of_the_empty_rollout(home: Path, command: list[str]) -> None:
    for _ in range(2):  # cold, then warm
        code, out = run("--strict", *command)
        assert code == 0 and "empty file" not in out, out


def test_an_unfiltered_list_and_its_own_show_still_say_it(home: Path) -> None:
    for _ in range(2):
        code, out = run("--strict", "list")  # counted in one note (pass 44); --verbose names it
        assert code == 1 and "1 empty file" in out and EMPTY not in out, out
        code, out = run("--strict", "--verbose", "list")
        assert code == 1 and "empty file" in out and EMPTY in out, out
    code, out = run("--strict", "show", EMPTY)
    assert "empty file" in out, out
