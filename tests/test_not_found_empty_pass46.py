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
DEMO = "hint: '7f3c9a12' is a session of the demo home: give --demo to read it"


@pytest.mark.parametrize("command", ["show", "tokens"])
def test_a_demo_id_in_an_empty_home_says_give_demo(command: str) -> None:
    result = runner.invoke(app, [command, "7f3c9a12"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["error: no session matches '7f3c9a12'", EMPTY, DEMO]


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
    assert result.stderr.splitlines()[-1] == "hint: 'claude:c2d4e6f8' is a session of the demo home: give --demo to read it"


def test_a_short_id_in_an_empty_home_says_where_to_look_too() -> None:
    result = runner.invoke(app, ["show", "c2d4"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["error: 'c2d4' is too short: give at least 6 characters of the id", EMPTY]
