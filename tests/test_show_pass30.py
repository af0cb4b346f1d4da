"""``show`` (pass 30): the errors a provider recorded are said in the text, not only in
``--json``; and each subagent's model is named, on its card line and in ``--json``
(``subagents[].model``), for every provider."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.bounds import Bounds
from agentscan.cli import app, term
from agentscan.cli.show_full import full_lines
from agentscan.cli.show_text import card_lines
from agentscan.cli.term import Terminal, width_of
from agentscan.detailmodel import Prompt, Response, SessionDetail, SubagentInfo
from agentscan.model import SessionRow, TokenUsage
from agentscan.scan.scanner import Scanner
from builders import REAL, claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from cursor_builders import (
    assistant,
    bubble,
    composer_data,
    make_state_db,
    state_db_path,
    tool,
    user,
    write_subagent,
    write_transcript,
)

runner = CliRunner()
ERROR_ID = "11111111-0000-4000-8000-000000000003"
SLUG = "home-dev-proj"


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output + result.stderr
    return result.stdout


def _cursor_error_sample(home: Path) -> None:
    """``synthetic-cursor-history-error-line.jsonl``: a prompt, an ``error`` line, a reply."""
    target = home / ".cursor" / "projects" / SLUG / "agent-transcripts" / ERROR_ID / f"{ERROR_ID}.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copyfile(REAL / "cursor" / "synthetic-cursor-history-error-line.jsonl", target)


# -- errors ----------------------------------------------------------------------


def test_the_card_says_the_error_the_provider_recorded(isolated_home: Path) -> None:
    _cursor_error_sample(isolated_home)
    lines = run("show", ERROR_ID).splitlines()
    at = lines.index("errors (1)")  # was only in --json's ``errors``
    assert lines[at + 1] == "  -                 Provider Error: upstream timeout"
    # The sample's only reply is Cursor's ``[REDACTED]`` marker: no reply at all.
    assert "last response" not in lines and not any("[REDACTED]" in line for line in lines)


def test_the_card_says_the_error_before_the_last_reply(isolated_home: Path) -> None:
    _errors_transcript(isolated_home, 1, "Provider Error: upstream timeout")
    lines = run("show", ERROR_ID).splitlines()
    at = lines.index("errors (1)")
    assert lines[at + 1] == "  -                 Provider Error: upstream timeout #1"
    assert lines.index("last response") > at  # before the last reply, after the calls


def test_full_says_an_error_with_no_time_after_everything(isolated_home: Path) -> None:
    _errors_transcript(isolated_home, 1, "Provider Error: upstream timeout")
    lines = run("show", ERROR_ID, "--full", "--no-pager").splitlines()
    at = lines.index("-".ljust(16) + "  error")  # the time column kept, as wide as 2026-07-01 09:00
    assert lines[at + 1] == "    Provider Error: upstream timeout #1"
    assert lines.index("-".ljust(16) + "  response") < at


def _errors_transcript(home: Path, count: int, text: str = "Provider Error: timeout") -> None:
    write_transcript(home, SLUG, ERROR_ID, [
        user("hi"),
        *({"type": "error", "error": f"{text} #{n}"} for n in range(1, count + 1)),
        assistant("hello"),
    ])


def test_the_card_names_the_newest_three_errors_and_how_many_there_were(isolated_home: Path) -> None:
    _errors_transcript(isolated_home, 5)
    lines = run("show", ERROR_ID).splitlines()
    at = lines.index("errors (newest 3 of 5)")
    assert lines[at + 1:at + 4] == [f"  -                 Provider Error: timeout #{n}" for n in (3, 4, 5)]
    assert lines[at + 4] == ""
    # --full prints every one kept, in the order read.
    full = run("show", ERROR_ID, "--full", "--no-pager").splitlines()
    assert [line.strip() for line in full if "Provider Error" in line] == [f"Provider Error: timeout #{n}"
                                                                          for n in range(1, 6)]


def test_an_error_line_is_one_row_cut_to_the_terminal(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _errors_transcript(isolated_home, 1, "Provider Error: " + "upstream said no " * 20)
    monkeypatch.setattr(term, "stdout_is_tty", lambda: True)
    monkeypatch.setenv("COLUMNS", "60")
    lines = run("show", ERROR_ID).splitlines()
    row = lines[lines.index("errors (1)") + 1]
    # Untimed: "-" in a time's width (pass 40), its text where a timed error's starts.
    assert row.startswith("  -                 Provider Error: upstream said no")
    assert row.endswith("…") and width_of(row) == 60
    # In a pipe the text is kept to its line length, plain.
    monkeypatch.setattr(term, "stdout_is_tty", lambda: False)
    piped = run("show", ERROR_ID).splitlines()
    row = piped[piped.index("errors (1)") + 1]
    assert width_of(row) == len("  -" + " " * 17) + 200 and "\x1b" not in row


def _at(minute: int) -> datetime:
    return datetime(2026, 5, 1, 10, minute, tzinfo=timezone.utc)


def test_full_puts_an_error_with_a_time_at_its_place() -> None:
    row = SessionRow(provider="fake", native_id="s1", path=None)
    detail = SessionDetail(
        row=row,
        prompts=(Prompt("first ask", _at(0), seq=1), Prompt("second ask", _at(10), seq=3)),
        responses=(Response("first answer", _at(1), seq=2),),
        extra={"errors": [{"text": "API Error: overloaded", "timestamp": "2026-05-01T10:05:00.000Z"},
                          {"text": "no time for this one", "timestamp": None, "kind": "error", "subagent": None}]},
    )
    plain = Terminal(tty=False, width=80, color=False)
    lines = list(full_lines(detail, plain))
    bodies = [line.strip() for line in lines if line.startswith("    ")]
    assert bodies == ["first ask", "first answer", "API Error: overloaded", "second ask", "no time for this one"]
    assert any(line.endswith("  error") and line.startswith("2026-05-01") for line in lines)


# -- subagent models -------------------------------------------------------------

#: per demo session: its model and its one subagent's
DEMO_MODELS = {
    "claude:7f3c9a12": ("claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"),
    "codex:019ac2d4": ("gpt-5.1-codex", "gpt-5.1-codex-mini"),
    "gemini:5e1f0c2a": ("gemini-3-flash-preview", "gemini-3-flash-preview"),
    "cursor:7c0a1e55": ("claude-4.5-sonnet", "claude-4.5-sonnet"),
}


@pytest.mark.parametrize("session_id", DEMO_MODELS)
def test_each_subagent_carries_its_model_in_json_and_on_its_line(session_id: str) -> None:
    session_model, sub_model = DEMO_MODELS[session_id]
    session = orjson.loads(run("--demo", "show", session_id, "--json"))["session"]
    [sub] = session["subagents"]
    assert session["model"] == session_model and sub["model"] == sub_model
    lines = run("--demo", "show", session_id).splitlines()
    [line] = [line for line in lines if line.startswith(f"  {sub['id']}  ")]
    assert f"  {sub_model}  " in line


def test_a_progress_only_claude_subagent_names_the_model_it_ran(isolated_home: Path) -> None:
    """491e126e…: subagent ``afb92ff`` has no transcript; its calls (Haiku's) are in the
    parent's progress records.  ``show`` said only the session's ``claude-opus-4-6``."""
    project = isolated_home / ".claude" / "projects" / "-home-marco-projects-spotter"
    project.mkdir(parents=True)
    shutil.copyfile(REAL / "claude" / "spotter-agent-progress-v2.1.38.trimmed.jsonl",
                    project / "491e126e-1e71-469c-ade2-fcc8af567c74.jsonl")
    session = orjson.loads(run("show", "491e126e", "--json"))["session"]
    assert session["model"] == "claude-opus-4-6"
    assert [(s["id"], s["model"]) for s in session["subagents"]] == [("afb92ff", "claude-haiku-4-5-20251001")]
    [line] = [line for line in run("show", "491e126e").splitlines() if line.startswith("  afb92ff  ")]
    assert line == ("  afb92ff  Plan  claude-haiku-4-5-20251001    109659 tokens  $0.04"
                    "  (no transcript: from progress records, final response not in them)")


def test_claude_subagents_with_their_own_transcripts(isolated_home: Path) -> None:
    """258c7280…: ``a881341`` ran Sonnet, the compaction worker the session's Opus."""
    shutil.copytree(REAL / "claude" / "projects", isolated_home / ".claude" / "projects")
    session = orjson.loads(run("show", "258c7280", "--json"))["session"]
    assert {s["id"]: s["model"] for s in session["subagents"]} == {
        "a881341": "claude-sonnet-4-5-20250929", "acompact-fffbd0": "claude-opus-4-6"}


def test_a_huge_claude_transcript_shown_from_its_end_names_its_subagents_model(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The read from the end (``hugeshow``) takes the model from the sums its row's pass kept."""
    from agentscan.context import ScanContext
    from agentscan.providers.claude import provider as claude_provider
    from agentscan.providers.claude.provider import ClaudeProvider

    session, ts = "7a7a7a7a-0000-4000-8000-000000000001", "2026-06-01T10:00:0{}.000Z"
    claude_session_file(isolated_home, session, [
        claude_user(session, ts.format(0), "look around"),
        claude_assistant(session, ts.format(1), msg_id="m1", request_id="r1", usage=claude_usage(10, 5),
                         model="claude-opus-4-6", blocks=[{"type": "text", "text": "delegating"}]),
    ])
    claude_subagent_file(isolated_home, session, "agent1", [
        claude_user(session, ts.format(2), "look", sidechain=True, agentId="agent1"),
        claude_assistant(session, ts.format(3), msg_id="s1", request_id="rs1", usage=claude_usage(3, 1),
                         model="claude-haiku-4-5-20251001", sidechain=True, agentId="agent1"),
    ])
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    provider = ClaudeProvider()
    ctx = ScanContext.create(home=isolated_home, env={})
    [ref] = provider.discover(ctx)
    assert provider.shows_from_row(ref, ctx)
    tail = provider.detail_with_row(ref, ctx, Bounds(), provider.row(ref, ctx))
    assert tail is not None and tail.row.model == "claude-opus-4-6"
    assert [(sub.id, sub.model) for sub in tail.subagents] == [("agent1", "claude-haiku-4-5-20251001")]
    assert tail.subagents == provider.detail(ref, ctx, Bounds()).subagents


def test_a_cursor_sub_composer_names_the_model_of_its_own_bubbles(isolated_home: Path) -> None:
    parent, child = "11111111-aaaa-4000-8000-000000000001", "22222222-bbbb-4000-8000-000000000002"
    write_transcript(isolated_home, SLUG, parent, [
        user("refactor the cart"), assistant("Delegating.", tool("Task", description="scan", prompt="List cart modules")),
    ])
    write_subagent(isolated_home, SLUG, parent, child, [user("List cart modules"), assistant("cart.py")])
    make_state_db(state_db_path(isolated_home), composers=[
        composer_data(parent, name="Cart", model="claude-4.5-sonnet", bubbles=["p1"], sub_ids=[child]),
        composer_data(child, bubbles=["c1"]),
    ], bubbles={
        parent: [bubble("p1", 2, "Delegating.", tokens=(100, 40), created="2026-07-25T17:20:05Z")],
        child: [bubble("c1", 2, "cart.py", tokens=(7, 3), created="2026-07-25T17:20:10Z", model="gpt-5")],
    })
    with Scanner(home=isolated_home, provider_names=["cursor"]) as scanner:
        detail = scanner.show(parent)
    assert detail.row.model == "claude-4.5-sonnet"
    assert [(sub.id, sub.model) for sub in detail.subagents] == [(child, "gpt-5")]


def test_no_model_column_when_no_subagent_model_is_known() -> None:
    row = SessionRow(provider="fake", native_id="s1", path=None)
    subs = (SubagentInfo("a1", "Explore", None, TokenUsage(input=5, output=1)),
            SubagentInfo("a22", None, None, None))
    plain = Terminal(tty=False, width=80, color=False)
    lines = card_lines(SessionDetail(row=row, subagents=subs), plain)
    assert lines[-2:] == ["  a1   Explore         6 tokens", "  a22  -        tokens not recorded"]
    known = (subs[0], SubagentInfo("a22", None, None, None, model="gpt-5"))
    lines = card_lines(SessionDetail(row=row, subagents=known), plain)
    assert lines[-2:] == ["  a1   Explore  -             6 tokens", "  a22  -        gpt-5  tokens not recorded"]
    assert SubagentInfo("a1", None, None, None).to_json()["model"] is None
