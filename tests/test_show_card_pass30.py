"""The show card's subagent lines and its closing hint, as a person at a terminal reads them."""

from __future__ import annotations

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
