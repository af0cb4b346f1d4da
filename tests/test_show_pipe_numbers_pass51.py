"""``show``'s headings print their counts as the card's other lines do: grouped on a terminal,
plain in a pipe (docs/cli.md: "token counts as plain integers" there).  Before pass 51 the
card's counts were plain in a pipe but its headings grouped: ``prompts (newest 10 of
112,329)`` over ``112329 prompts``, and ``bounded: 111,627 older prompts dropped``."""

from __future__ import annotations

import pytest

from agentscan.cli.show_full import full_lines
from agentscan.cli.show_lineage import forked_as_text
from agentscan.cli.show_text import print_detail
from agentscan.cli.show_truncated import truncation_note
from agentscan.cli.term import Terminal
from agentscan.detailmodel import Prompt, SessionDetail, SubagentInfo, ToolEvent
from agentscan.model import SessionRow

ROW = SessionRow(provider="claude", native_id="c1c1c1c1-1111-4222-8333-444455556666", path=None)
PIPE = Terminal(tty=False, width=80, color=False)
TTY = Terminal(tty=True, width=200, color=False)


def _detail() -> SessionDetail:
    prompts = tuple(Prompt(f"prompt {n}") for n in range(1000))
    tools = (tuple(ToolEvent("Bash", f"own {n}") for n in range(1500))
             + tuple(ToolEvent("Bash", f"theirs {n}", subagent="s1") for n in range(1200)))
    return SessionDetail(row=ROW, prompts=prompts, tools=tools, subagents=(SubagentInfo("s1", None, None, None),),
                         truncated={"prompts": 111_329, "tools": 4_000},
                         extra={"forked_as": ["codex:a"], "forked_as_total": 1234})


def _headings(term: Terminal, capsys: pytest.CaptureFixture[str]) -> list[str]:
    print_detail(_detail(), term)
    return [line for line in capsys.readouterr().out.splitlines()
            if line.startswith(("prompts (", "tool calls (", "bounded:"))]


def test_a_pipe_gets_plain_counts_in_the_headings(capsys: pytest.CaptureFixture[str]) -> None:
    assert _headings(PIPE, capsys) == [
        "prompts (newest 10 of 112329)",
        "tool calls (newest 15 of 6700; 1200 of the newest 2700 by subagents)",
        "bounded: 111329 older prompts dropped, 4000 older tool calls dropped",
    ]


def test_a_terminal_keeps_them_grouped(capsys: pytest.CaptureFixture[str]) -> None:
    assert _headings(TTY, capsys) == [
        "prompts (newest 10 of 112,329)",
        "tool calls (newest 15 of 6,700; 1,200 of the newest 2,700 by subagents)",
        "bounded: 111,329 older prompts dropped, 4,000 older tool calls dropped",
    ]


def test_the_notes_and_the_forks_line_alike() -> None:
    assert truncation_note({"prompts": 1234}, grouped=False) == "bounded: 1234 older prompts dropped"
    assert truncation_note({"prompts": 1234}) == "bounded: 1,234 older prompts dropped"
    assert forked_as_text(_detail(), grouped=False) == \
        "as codex:a (newest 1 of 1234): their rollouts begin with a copy of this one's history"
    assert "bounded: 111329 older prompts dropped, 4000 older tool calls dropped" in full_lines(_detail(), PIPE)
