"""``show``: a subagent's own prompts and replies, kept apart, bounded, and shown
with ``--full`` indented under the call that started it, for every provider."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.bounds import Bounds
from agentscan.cli import app, term
from agentscan.cli.term import width_of
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user

runner = CliRunner()
SESSION = "5a5a5a5a-0000-4000-8000-000000000001"

#: per demo session: the call that starts its subagent, the subagent's task, and (a piece of) its answer
DEMO = {
    "claude:7f3c9a12": ("Task", "Where is the upstream forecast client?", "It is app/clients/forecast.py (ForecastClient)."),
    "codex:019ac2d4": ("spawn_agent", "Audit app/refunds.py for race conditions",
                       "refund() reads then writes the balance without a lock."),
    "gemini:5e1f0c2a": ("codebase_investigator", "Your task is to investigate: Find why ingredient matching ignores plurals",
                        "Plural forms are never normalised"),
    "cursor:7c0a1e55": ("Task", "List every caller of fetch_forecast and say which ones run per request.",
                        "Callers: routes.forecast (per request)"),
}


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output + result.stderr
    return result.stdout


@pytest.mark.parametrize("session_id", DEMO)
def test_the_detail_carries_each_subagents_task_and_answer(session_id: str) -> None:
    _, task, answer = DEMO[session_id]
    session = orjson.loads(run("--demo", "show", session_id, "--json"))["session"]
    [sub] = session["subagents"]
    assert [p["text"] for p in sub["prompts"]] == [task]
    assert any(answer in r["text"] for r in sub["responses"]) or answer in str(session["tools"])
    # Not the session's own conversation, which stays as it was.
    assert task not in [p["text"] for p in session["prompts"]]
    assert session["truncated"]["subagent_prompts"] == 0 and session["truncated"]["subagent_responses"] == 0


@pytest.mark.parametrize("width", (80, 200))
@pytest.mark.parametrize("session_id", DEMO)
def test_full_shows_the_subagent_under_the_call_that_started_it(monkeypatch: pytest.MonkeyPatch, session_id: str,
                                                                width: int) -> None:
    monkeypatch.setattr(term, "stdout_is_tty", lambda: True)
    monkeypatch.setenv("COLUMNS", str(width))
    call, task, answer = DEMO[session_id]
    lines = run("--demo", "show", session_id, "--full", "--no-pager").splitlines()
    # Wrapped to the terminal; only the card's path stays whole (to be copied), however long.
    # (on a line of its own under its label when too wide for the label's: pass 47)
    wide = [line for at, line in enumerate(lines) if width_of(line) > width
            and not line.startswith("  path ") and lines[at - 1] != "  path"]
    assert not wide, wide
    start = next(i for i, line in enumerate(lines) if line.startswith("    ↳ subagent "))
    # The line above the block is the starting call's text; above that its head line.
    head = next(line for line in reversed(lines[:start]) if not line.startswith("    "))
    assert re.match(rf"^(\S+ \S+|- {{15}})  {call}  ", head), (head, lines[start - 3:start + 1])
    block = []
    for line in lines[start + 1:]:
        if not line.startswith("    "):
            break
        block.append(line)
    text = " ".join(line.strip() for line in block)
    assert task in text and answer in text
    assert any(line.startswith("    ") and line.strip().endswith("prompt") for line in block)
    # Its prompt comes first, wrapped under it at 8 columns.
    first_prompt = next(i for i, line in enumerate(block) if line.strip().endswith("prompt"))
    assert block[first_prompt + 1].startswith("        ") and block[first_prompt + 1].strip() in task


def test_cursor_items_without_times_keep_their_reading_order() -> None:
    lines = run("--demo", "show", "cursor:7c0a1e55", "--full", "--no-pager").splitlines()
    # An item with no time says "-" in a time column as wide as 2026-07-01 09:00.
    heads = [line[18:].split("  ")[0].strip() for line in lines if re.match(r"^(- {15}|\d{4}-\S+ \S+)  \S", line)]
    # The first turn as the transcript has it: prompt, reply, Grep, Read, Task, reply, ...
    assert heads[:6] == ["prompt", "response (claude-4.5-sonnet)", "Grep", "Read", "Task", "response (claude-4.5-sonnet)"]
    assert heads.index("prompt", 1) > heads.index("Shell")  # the second prompt after the first turn's calls


def two_parallel_tasks(home: Path) -> None:
    """One message starts two subagents at the same instant; each result names its agent."""
    ts = "2026-06-01T10:00:00.000Z"
    tasks = [{"type": "tool_use", "id": f"toolu_{n}", "name": "Task",
              "input": {"description": f"Look at part {n}", "prompt": f"Survey area {n} of the code", "subagent_type": "Explore"}}
             for n in (1, 2)]
    claude_session_file(home, SESSION, [
        claude_user(SESSION, ts, "Survey the code base"),
        claude_assistant(SESSION, ts, msg_id="m1", request_id="r1", usage=claude_usage(5, 5), blocks=tasks),
        *[claude_user(SESSION, f"2026-06-01T10:00:0{n + 4}.000Z",
                      [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": "done"}],
                      toolUseResult={"agentId": f"agent{n}", "status": "completed"}) for n in (1, 2)],
        claude_assistant(SESSION, "2026-06-01T10:00:09.000Z", msg_id="m2", request_id="r2", usage=claude_usage(5, 5),
                         blocks=[{"type": "text", "text": "Both surveyed."}]),
    ])
    for n in (1, 2):
        sub_ts = f"2026-06-01T10:00:0{n}.000Z"
        claude_subagent_file(home, SESSION, f"agent{n}", [
            claude_user(SESSION, sub_ts, f"Survey area {n} of the code", sidechain=True, agentId=f"agent{n}"),
            claude_assistant(SESSION, sub_ts, msg_id=f"s{n}", request_id=f"rs{n}", usage=claude_usage(1, 1),
                             blocks=[{"type": "text", "text": f"Area {n} is fine."}], sidechain=True, agentId=f"agent{n}"),
        ])


def test_parallel_subagents_each_go_under_their_own_call(isolated_home: Path) -> None:
    two_parallel_tasks(isolated_home)
    session = orjson.loads(run("show", SESSION, "--json"))["session"]
    assert {sub["id"]: sub["call_id"] for sub in session["subagents"]} == {"agent1": "toolu_1", "agent2": "toolu_2"}
    lines = run("show", SESSION, "--full", "--no-pager").splitlines()
    for n in (1, 2):
        call = lines.index(f"    Look at part {n}")  # the Task call's text
        assert lines[call + 1] == f"    ↳ subagent agent{n} (Explore)"
        assert lines[call + 3] == f"        Survey area {n} of the code" and lines[call + 5] == f"        Area {n} is fine."


def test_subagent_talk_is_bounded_and_counted(isolated_home: Path) -> None:
    two_parallel_tasks(isolated_home)
    with Scanner(home=isolated_home) as scanner:
        detail = scanner.show(SESSION, bounds=Bounds(prompts=1, responses=1))
    kept = {sub.id: ([p.text for p in sub.prompts], [r.text for r in sub.responses]) for sub in detail.subagents}
    # One pool for all subagents, filled newest first (the last read): agent2's.
    assert kept == {"agent1": ([], []), "agent2": (["Survey area 2 of the code"], ["Area 2 is fine."])}
    assert detail.truncated["subagent_prompts"] == 1 and detail.truncated["subagent_responses"] == 1
    assert [p.text for p in detail.prompts] == ["Survey the code base"]  # the session's own are not squeezed
    with Scanner(home=isolated_home) as scanner:
        detail = scanner.show(SESSION, bounds=Bounds(prompt_bytes=len("Survey area 2 of the code")))
    assert [len(sub.prompts) for sub in detail.subagents] == [0, 1]
    assert detail.truncated["subagent_prompts"] == 1


def test_redact_hides_subagent_text(isolated_home: Path) -> None:
    two_parallel_tasks(isolated_home)
    out = run("show", SESSION, "--json", "--redact")
    assert "Survey area 1 of the code" not in out and "Area 2 is fine." not in out
    subs = orjson.loads(out)["session"]["subagents"]
    assert all(p["text"].startswith("[redacted: ") for sub in subs for p in sub["prompts"] + sub["responses"])
