"""The show card's subagent lines and its closing hint, as a person at a terminal reads them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agentscan.cli.show_text import card_lines, print_detail
from agentscan.cli.term import Terminal
from agentscan.detailmodel import Prompt, SessionDetail, SubagentInfo
from agentscan.model import SessionRow, TokenUsage

ROW = SessionRow(provider="claude", native_id="28268a1c-5f0e-4e59-9a57-0c1d2e3f4a5b", path=None)


def test_no_type_column_when_no_subagent_has_a_type() -> None:
    subs = (SubagentInfo("aec1623e", None, None, TokenUsage(input=5, output=1), model="claude-sonnet-4-5"),
            SubagentInfo("b2", None, None, None))
    lines = card_lines(SessionDetail(row=ROW, subagents=subs), Terminal(tty=False, width=80, color=False))
    assert lines[-2:] == ["  aec1623e  claude-sonnet-4-5         6 tokens", "  b2        -                  tokens not recorded"]


def _long(prompts: int = 12) -> SessionDetail:
    return SessionDetail(row=ROW, prompts=tuple(Prompt(f"step {n}") for n in range(prompts)))


@pytest.mark.parametrize("width", [60, 80])
def test_the_full_hint_keeps_its_command_on_one_line(width: int, tty, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    tty(width)
    print_detail(_long(), Terminal(tty=True, width=width, color=False))
    hint = capsys.readouterr().err.splitlines()
    command = f"agentscan show {ROW.id} --full"
    assert hint == ["the whole conversation:", f"  {command}"]


def test_a_wide_terminal_gets_the_hint_on_one_line(tty, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    tty(200)
    print_detail(_long(), Terminal(tty=True, width=200, color=False))
    assert capsys.readouterr().err.splitlines() == [f"the whole conversation: agentscan show {ROW.id} --full"]


def test_the_hint_opens_the_same_home(tty, tmp_path, isolated_home) -> None:  # noqa: ANN001
    """Under ``--home DIR`` (or ``--demo``) the command given must read that home again."""
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

    native = "5c4d3e2f-1a0b-4c9d-8e7f-6a5b4c3d2e1f"
    home = tmp_path / "other home"
    turns = []
    for n in range(12):
        at = f"2026-11-01T10:{n:02d}:00Z"
        turns += [claude_user(native, at, f"step {n}"),
                  claude_assistant(native, at, msg_id=f"m{n}", request_id=f"r{n}", usage=claude_usage(1, 1))]
    claude_session_file(home, native, turns)
    tty(200)
    result = invoke("--home", str(home), "show", native[:8])
    assert result.exit_code == 0, result.output
    assert f"agentscan --home '{home}' show claude:{native} --full" in result.stderr


def test_the_tokens_line_says_how_much_of_the_total_subagents_made() -> None:
    subs = (SubagentInfo("a1", "Explore", None, TokenUsage(input=5, output=1)),
            SubagentInfo("a2", None, None, TokenUsage(input=3, output=1)), SubagentInfo("a3", None, None, None))
    row = replace(ROW, tokens=TokenUsage(input=100, output=20))
    (line,) = [line for line in card_lines(SessionDetail(row=row, subagents=subs), Terminal(tty=False, width=80, color=False))
               if line.startswith("  tokens")]
    assert line == "  tokens   120 total (10 by subagents) = 100 input + 0 cache read + 0 cache write + 20 output"
    alone = card_lines(SessionDetail(row=row), Terminal(tty=False, width=80, color=False))
    assert not any("by subagents" in line for line in alone)
