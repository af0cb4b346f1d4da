"""``show <subagent id>`` shows that subagent's tool calls, marked as its ``focus`` line
promises, not the session's newest 15, which may all be the parent's (pass 41)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.show_text import print_detail
from agentscan.cli.term import Terminal
from agentscan.detailmodel import SessionDetail, SubagentInfo, ToolEvent
from agentscan.model import SessionRow
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user

S = "cccccccc-1111-4222-8333-444444444444"
AGENT = "aec1623e"
PLAIN = Terminal(tty=False, width=80, color=False)


def _call(ts: str, n: int, command: str, *, sidechain: bool = False) -> list[dict]:
    """One Bash call and its result, at ``ts`` (seconds ``ts`` and ``ts`` + 1 are used)."""
    extra = {"isSidechain": True, "agentId": AGENT} if sidechain else {}
    tool_id = f"toolu_{'sub' if sidechain else 'own'}{n}"
    return [
        claude_assistant(S, f"{ts}Z", msg_id=f"m{tool_id}", request_id=f"r{tool_id}", usage=claude_usage(1, 1),
                         blocks=[{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}],
                         **extra),
        claude_user(S, f"{ts}.5Z", [{"type": "tool_result", "tool_use_id": tool_id, "content": "done"}], **extra),
    ]


def _home(home: Path, *, own: int = 20, theirs: int = 3) -> None:
    """A parent whose ``own`` calls all come after its subagent's ``theirs``."""
    records = [claude_user(S, "2026-11-01T10:00:00Z", "delegate, then work")]
    for n in range(own):
        records += _call(f"2026-11-01T11:{n:02d}:00", n, f"parent step {n}")
    claude_session_file(home, S, records)
    sub = [claude_user(S, "2026-11-01T10:00:01Z", "find the client", isSidechain=True, agentId=AGENT)]
    for n in range(theirs):
        sub += _call(f"2026-11-01T10:01:{n:02d}", n, f"subagent step {n}", sidechain=True)
    claude_subagent_file(home, S, AGENT, sub)


def _section(out: str, title: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(" ")), len(lines))
    return lines[start:end]


def test_the_focused_subagent_s_calls_are_shown_marked(isolated_home: Path) -> None:
    _home(isolated_home)
    out = CliRunner().invoke(app, ["--no-cache", "show", AGENT]).stdout
    assert f"its tool calls marked [{AGENT}]" in out
    heading, *calls = _section(out, "tool calls")
    assert heading == f"tool calls (20 own, 3 by subagents; 3 by {AGENT}, all shown)"
    assert calls == [f"  ok     Bash [{AGENT}]: subagent step {n}" for n in range(3)]


def test_the_parent_s_own_id_still_shows_the_session_s_newest(isolated_home: Path) -> None:
    _home(isolated_home)
    out = CliRunner().invoke(app, ["--no-cache", "show", S[:8]]).stdout
    heading, *calls = _section(out, "tool calls")
    assert heading == "tool calls (20 own, 3 by subagents, newest 15 shown)"
    assert calls == [f"  ok     Bash: parent step {n}" for n in range(5, 20)]


def test_a_busy_subagent_shows_its_newest_15(isolated_home: Path) -> None:
    _home(isolated_home, theirs=18)
    out = CliRunner().invoke(app, ["--no-cache", "show", AGENT]).stdout
    heading, *calls = _section(out, "tool calls")
    assert heading == f"tool calls (20 own, 18 by subagents; 18 by {AGENT}, its newest 15 shown)"
    assert calls == [f"  ok     Bash [{AGENT}]: subagent step {n}" for n in range(3, 18)]


def test_a_subagent_with_no_calls_says_so_and_the_session_s_newest_are_shown(isolated_home: Path) -> None:
    _home(isolated_home, theirs=0)
    out = CliRunner().invoke(app, ["--no-cache", "show", AGENT]).stdout
    assert "marked [" not in out and "its part is listed under subagents; no tool call of its recorded" in out
    heading, *calls = _section(out, "tool calls")
    assert heading == f"tool calls (20 own, newest 15 shown; none by {AGENT})"
    assert calls[-1] == "  ok     Bash: parent step 19"


def test_full_says_where_it_puts_the_subagent(isolated_home: Path) -> None:
    # --full marks no call [id]: it indents the subagent's part under "↳ subagent id".
    _home(isolated_home)
    out = CliRunner().invoke(app, ["--no-cache", "show", AGENT, "--full", "--no-pager"]).stdout
    assert f"its conversation under ↳ subagent {AGENT}" in out and "marked [" not in out
    assert f"↳ subagent {AGENT}" in out.split("its conversation under", 1)[1]


def test_a_small_session_keeps_every_call_with_the_focused_ones_marked(isolated_home: Path) -> None:
    _home(isolated_home, own=4, theirs=2)
    out = CliRunner().invoke(app, ["--no-cache", "show", AGENT]).stdout
    heading, *calls = _section(out, "tool calls")
    assert heading == "tool calls (4 own, 2 by subagents)"
    assert sum(f"[{AGENT}]" in call for call in calls) == 2 and len(calls) == 6


ROW = SessionRow(provider="claude", native_id=S, path=None)


def _detail(**extra: object) -> SessionDetail:
    tools = (tuple(ToolEvent("Bash", f"theirs {n}", status="ok", subagent="s1") for n in range(30))
             + tuple(ToolEvent("Bash", f"own {n}", status="ok") for n in range(1970)))
    return SessionDetail(row=ROW, tools=tools, truncated={"tools": 27}, subagents=(SubagentInfo("s1", None, None, None),),
                         extra={"focus": {"subagent": "s1", "query": "s1", "opened": "parent"}, **extra})


def test_calls_beyond_the_bound_are_counted_and_the_focused_run_s_said(capsys: pytest.CaptureFixture[str]) -> None:
    print_detail(_detail(), PLAIN)
    heading, *calls = _section(capsys.readouterr().out, "tool calls")
    # (a pipe's numbers plain, as the card's counts: pass 51)
    assert heading == "tool calls (2027 in all; 30 of the newest 2000 by subagents; 30 of them by s1, its newest 15 shown)"
    assert calls == [f"  ok     Bash [s1]: theirs {n}" for n in range(15, 30)]


def test_a_long_heading_wraps_inside_its_parenthesis_on_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    print_detail(_detail(), Terminal(tty=True, width=60, color=False))
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("tool calls ("))
    heading = lines[start:next(i for i in range(start, len(lines)) if lines[i].startswith("  ok "))]
    assert len(heading) > 1 and all(len(line) <= 60 for line in heading)
    assert all(line.startswith(" " * 12) and not line.startswith(" " * 13) for line in heading[1:])
    assert " ".join(line.strip() for line in heading).endswith("30 of them by s1, its newest 15 shown)")
