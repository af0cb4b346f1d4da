"""An id not found in a home that holds no session at all (pass 46).

``list --grep TEXT`` was the hint, which cannot find what is not there; and a newcomer who
copied the README's demo id (``7f3c9a12``) without ``--demo`` was not told why it failed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()
EMPTY = "no sessions were found in this home: `agentscan doctor` shows where agentscan looked"
# (pass 50: the command to copy, naming the command run, as every hint does)
DEMO = "hint: `agentscan --demo {} 7f3c9a12` reads it from the demo home"


@pytest.mark.parametrize("command", ["show", "tokens"])
def test_a_demo_id_in_an_empty_home_says_give_demo(command: str) -> None:
    result = runner.invoke(app, [command, "7f3c9a12"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["error: no session matches '7f3c9a12'", EMPTY, DEMO.format(command)]


def test_another_id_in_an_empty_home_says_where_to_look() -> None:
    result = runner.invoke(app, ["show", "zzzzzzzz"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["error: no session matches 'zzzzzzzz'", EMPTY]


def test_a_home_with_sessions_keeps_the_grep_hint(isolated_home: Path) -> None:
    native = "c0c0c0c0-0000-4000-8000-000000000001"
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", "hello", uuid="u1"),
        claude_assistant(native, "2026-11-02T09:00:01.000Z", msg_id="m", request_id="r", usage=claude_usage(1, 1))])
    result = runner.invoke(app, ["show", "zzzzzzzz"])  # (a demo id gets the demo's hint: tests/test_words_pass48.py)
    assert result.exit_code == 1
    err = result.stderr
    assert "list --grep TEXT" in err and EMPTY not in err and "demo home" not in err


def test_the_demo_itself_keeps_the_grep_hint() -> None:
    result = runner.invoke(app, ["--demo", "show", "zzzzzzzz"])
    assert result.exit_code == 1
    assert "agentscan --demo list --grep TEXT" in result.stderr and EMPTY not in result.stderr


def test_a_demo_id_under_another_provider_is_no_demo_session() -> None:
    # (review of pass 46: ``codex:c2d4e6f8`` was said to be the demo's, which ``--demo`` then
    # did not find: the demo's c2d4e6f8 is Claude's)
    result = runner.invoke(app, ["show", "codex:c2d4e6f8"])
    assert result.stderr.splitlines() == ["error: no session matches 'codex:c2d4e6f8'", EMPTY]
    result = runner.invoke(app, ["show", "claude:c2d4e6f8"])
    assert result.stderr.splitlines()[-1] == "hint: `agentscan --demo show claude:c2d4e6f8` reads it from the demo home"


def test_a_short_id_in_an_empty_home_says_where_to_look_too() -> None:
    result = runner.invoke(app, ["show", "c2d4"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["error: 'c2d4' is too short: give at least 6 characters of the id", EMPTY]


def test_a_demo_id_of_a_command_that_needs_more_names_the_option(tmp_path: Path) -> None:
    # (pass 50) ``otlp`` needs ``-o FILE`` too: its hint names the option, not a command that would fail
    result = runner.invoke(app, ["otlp", "7f3c9a12", "-o", str(tmp_path / "spans.json")])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == "hint: '7f3c9a12' is a session of the demo home: give --demo to read it"


def test_the_demo_hint_goes_by_the_fast_path_too(capsys: pytest.CaptureFixture[str]) -> None:
    # (pass 50) ``show``/``tokens`` run without Typer (``cli.fastpath``): the hint names the command there too
    from agentscan.cli import fastpath

    assert fastpath.parse(["tokens", "7f3c9a12"]) is not None  # (the fast path's to run)
    assert fastpath.run(["tokens", "7f3c9a12"]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == "hint: `agentscan --demo tokens 7f3c9a12` reads it from the demo home"


@pytest.mark.parametrize("query", ["a1b2c3d", "agent-a1b2c3d", "q7k2mx", "019ac2d6"])
def test_a_demo_subagent_s_id_gets_the_demo_hint(query: str) -> None:
    # (pass 50) docs/cli.md's ``show a1b2c3d`` (a subagent's own id, which ``--demo`` opens
    # with its parent) said nothing of the demo; a prefix too short for ``--demo`` still says nothing
    result = runner.invoke(app, ["show", query])
    assert result.stderr.splitlines()[-1] == f"hint: `agentscan --demo show {query}` reads it from the demo home"
    assert runner.invoke(app, ["--demo", "show", query]).exit_code == 0
    assert "demo home" not in runner.invoke(app, ["show", "agent-a1b2"]).stderr
