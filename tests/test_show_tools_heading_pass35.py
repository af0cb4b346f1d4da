"""``show``'s tool calls heading gives how many calls were read, the bounds' drops included, as
the prompts heading does (``newest 10 of 4,001``), not how many the bounds kept (pass 35)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.bounds import Bounds
from agentscan.cli.show_text import print_detail
from agentscan.cli.term import Terminal
from agentscan.detailmodel import SessionDetail, SubagentInfo, ToolEvent
from agentscan.model import SessionRow
from agentscan.scan.scanner import Scanner
from gemini_builders import call, gemini, meta, tokens, user, write_chat

ROW = SessionRow(provider="gemini", native_id="a2a2a2a2-1111-4222-8333-444455556666", path=None)
PLAIN = Terminal(tty=False, width=80, color=False)


def _heading(detail: SessionDetail, capsys: pytest.CaptureFixture[str]) -> str:
    print_detail(detail, PLAIN)
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("tool calls")]
    return line


def _tools(own: int, theirs: int = 0) -> tuple[ToolEvent, ...]:
    return (tuple(ToolEvent("shell", f"own {n}") for n in range(own))
            + tuple(ToolEvent("shell", f"theirs {n}", subagent="s1") for n in range(theirs)))


def test_own_calls_beyond_the_bound_are_counted(capsys: pytest.CaptureFixture[str]) -> None:
    detail = SessionDetail(row=ROW, tools=_tools(2000), truncated={"tools": 2000})
    # (was "2,000 own"; "own" of no subagent: pass 47; a pipe's numbers plain: pass 51)
    assert _heading(detail, capsys) == "tool calls (newest 15 of 4000)"


def test_an_orphan_s_subagent_calls_beyond_the_bound_are_counted(capsys: pytest.CaptureFixture[str]) -> None:
    detail = SessionDetail(row=ROW, tools=_tools(0, 20), truncated={"tools": 5}, subagents=(SubagentInfo("s1", None, None, None),),
                           extra={"parent_missing": True})
    assert _heading(detail, capsys) == "tool calls (25 by subagents, newest 15 shown)"


def test_whose_the_dropped_calls_were_is_not_guessed(capsys: pytest.CaptureFixture[str]) -> None:
    detail = SessionDetail(row=ROW, tools=_tools(18, 2), truncated={"tools": 7}, subagents=(SubagentInfo("s1", None, None, None),))
    assert _heading(detail, capsys) == "tool calls (newest 15 of 27; 2 of the newest 20 by subagents)"


def test_nothing_dropped_reads_as_before(capsys: pytest.CaptureFixture[str]) -> None:
    detail = SessionDetail(row=ROW, tools=_tools(18, 2), subagents=(SubagentInfo("s1", None, None, None),))
    assert _heading(detail, capsys) == "tool calls (18 own, 2 by subagents, newest 15 shown)"


def test_a_gemini_session_over_the_bound(isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = [meta(ROW.native_id), user("u1", "2026-05-01T10:00:00.000Z", "run them all")]
    records += [gemini(f"g{n}", f"2026-05-01T10:{n:02d}:00.000Z", usage=tokens(10, 1),
                       calls=[call(f"c{n}", "run_shell_command", {"command": f"pytest -k t{n}"})]) for n in range(30)]
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-a2a2a2a2.jsonl", records)
    detail = Scanner(home=isolated_home, provider_names=["gemini"]).show(ROW.native_id, bounds=Bounds(tools=20))
    assert len(detail.tools) == 20
    assert _heading(detail, capsys) == "tool calls (newest 15 of 30)"  # was "20 own"
