"""``show <subagent id>``: the card's prompts and last reply are the focused run's own,
never its parent's; where the provider recorded none of them, the focus line says so
(pass 42)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.show_text import print_detail
from agentscan.cli.term import Terminal
from agentscan.detailmodel import Prompt, Response, SessionDetail, SubagentInfo
from agentscan.model import SessionRow
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user

S = "dddddddd-1111-4222-8333-444444444444"
AGENT = "b7e5c1a9"
PLAIN = Terminal(tty=False, width=100, color=False)


def _text(text: str) -> list[dict]:
    return [{"type": "text", "text": text}]


def _home(home: Path, *, replied: bool = True) -> None:
    """A parent that delegated to ``AGENT`` and answered after it; the run answered too
    unless not ``replied``."""
    claude_session_file(home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "parent prompt: refactor the client"),
        claude_assistant(S, "2026-11-01T10:05:00Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 1),
                         blocks=_text("parent reply: all done")),
    ])
    run = [claude_user(S, "2026-11-01T10:01:00Z", "run task: find the client", isSidechain=True, agentId=AGENT)]
    if replied:
        run.append(claude_assistant(S, "2026-11-01T10:02:00Z", msg_id="m2", request_id="r2", usage=claude_usage(1, 1),
                                    blocks=_text("run reply: it is in app/client.py"), isSidechain=True, agentId=AGENT))
    claude_subagent_file(home, S, AGENT, run)


def _section(out: str, title: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(" ")), len(lines))
    return lines[start:end]


def test_the_card_shows_what_the_run_was_asked_and_its_last_reply(isolated_home: Path) -> None:
    _home(isolated_home)
    out = CliRunner().invoke(app, ["--no-cache", "show", AGENT]).stdout
    assert _section(out, "prompts") == [f"prompts of {AGENT} (1)", "  2026-11-01 10:01  run task: find the client"]
    assert _section(out, "last response") == [f"last response of {AGENT}", "  run reply: it is in app/client.py"]
    # (The card's title stays the session's, its first prompt.)
    assert "10:00  parent prompt" not in out and "parent reply" not in out
    # The focus line has nothing to add: both are shown.
    assert "no reply" not in out and "no prompt" not in out


def test_the_parent_s_own_id_still_shows_the_parent_s_talk(isolated_home: Path) -> None:
    _home(isolated_home)
    out = CliRunner().invoke(app, ["--no-cache", "show", S[:8]]).stdout
    assert _section(out, "prompts") == ["prompts (1)", "  2026-11-01 10:00  parent prompt: refactor the client"]
    assert _section(out, "last response") == ["last response", "  parent reply: all done"]


def test_a_run_with_no_reply_says_so_instead_of_showing_the_parent_s(isolated_home: Path) -> None:
    _home(isolated_home, replied=False)
    out = CliRunner().invoke(app, ["--no-cache", "show", AGENT]).stdout
    [focus] = [line for line in out.splitlines() if line.startswith("  focus")]
    assert focus.endswith("; no response of its recorded")
    assert "last response" not in out and "parent reply" not in out
    assert _section(out, "prompts")[0] == f"prompts of {AGENT} (1)"


ROW = SessionRow(provider="claude", native_id=S, path=None)
FOCUS = {"subagent": "s1", "query": "s1", "opened": "parent"}
PARENT_TALK = {"prompts": (Prompt("parent asked"),), "responses": (Response("parent said"),)}


def _card(detail: SessionDetail, capsys: pytest.CaptureFixture[str]) -> str:
    print_detail(detail, PLAIN)
    return capsys.readouterr().out


def test_a_run_with_no_talk_recorded_shows_none_of_the_parent_s(capsys: pytest.CaptureFixture[str]) -> None:
    detail = SessionDetail(row=ROW, subagents=(SubagentInfo("s1", None, None, None),), extra={"focus": FOCUS},
                           **PARENT_TALK)
    out = _card(detail, capsys)
    assert "no tool call of its recorded; no prompt or response of its recorded" in out
    assert "parent asked" not in out and "parent said" not in out


def test_a_run_whose_talk_the_bounds_dropped_says_kept(capsys: pytest.CaptureFixture[str]) -> None:
    detail = SessionDetail(row=ROW, subagents=(SubagentInfo("s1", None, None, None, prompts=(Prompt("asked"),)),),
                           truncated={"subagent_responses": 3}, extra={"focus": FOCUS}, **PARENT_TALK)
    out = _card(detail, capsys)
    assert out.splitlines()[1].endswith("; no response of its kept")
    assert "prompts of s1 (1)" in out and "parent asked" not in out


def test_with_the_parent_transcript_gone_the_session_s_talk_is_the_run_s(capsys: pytest.CaptureFixture[str]) -> None:
    # The providers give every subagent's talk as the session's then (``parent_missing``).
    detail = SessionDetail(row=ROW, subagents=(SubagentInfo("s1", None, None, None),),
                           extra={"focus": FOCUS, "parent_missing": True},
                           prompts=(Prompt("run asked"),), responses=(Response("run said"),))
    out = _card(detail, capsys)
    assert "; the prompts and response below are its own (the parent's transcript is missing)" in out
    assert _section(out, "prompts") == ["prompts (1)", "  -                 run asked"]
    assert _section(out, "last response") == ["last response", "  run said"]
    two = SessionDetail(row=ROW, subagents=(SubagentInfo("s1", None, None, None), SubagentInfo("s2", None, None, None)),
                        extra={"focus": FOCUS, "parent_missing": True}, prompts=(Prompt("run asked"),))
    assert "its prompts and responses are among its subagents' below" in _card(two, capsys)


def test_demo_subagents_of_every_provider_show_their_own_task(isolated_home: Path) -> None:
    """Claude, Codex, Cursor and Gemini runs of the demo: each card's prompt is the run's."""
    runner = CliRunner()
    for run, task in (("a1b2c3d", "Where is the upstream forecast client?"),
                      ("019ac2d6-0c9e-7f41-a2b7-8d3e5f6a7b90", "Audit app/refunds.py for race conditions"),
                      ("9d2e4f60", "List every caller of fetch_forecast"),
                      ("q7k2mx", "Your task is to investigate: Find why ingredient matching ignores plurals")):
        out = runner.invoke(app, ["--demo", "--no-cache", "show", run]).stdout
        heading, first = _section(out, "prompts")
        assert heading.startswith("prompts of ") and task in first, (run, out)


def test_the_full_hint_is_given_when_the_parent_s_talk_was_left_out(tty, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    tty(200)
    run = SubagentInfo("s1", None, None, None, prompts=(Prompt("asked"),), responses=(Response("said"),))
    focused = SessionDetail(row=ROW, subagents=(run,), extra={"focus": FOCUS}, **PARENT_TALK)
    print_detail(focused, Terminal(tty=True, width=200, color=False))
    assert capsys.readouterr().err.splitlines() == [f"the whole conversation: agentscan show {ROW.id} --full"]
    # Unfocused, everything fitted: no hint.
    print_detail(SessionDetail(row=ROW, subagents=(run,), **PARENT_TALK), Terminal(tty=True, width=200, color=False))
    assert capsys.readouterr().err == ""
