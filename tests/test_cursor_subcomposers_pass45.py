"""A Cursor sub-composer that only ``state.vscdb`` holds (no ``subagents/*.jsonl``) is shown
from its bubbles (``providers/cursor/subcomposers.py``): its task and replies under it, its
calls marked as its and counted "+N by subagents", as a transcript child's are.  Before,
``show`` listed its tokens and model only: "no tool call of its recorded; no prompt or
reply of its recorded", though its bubbles held them."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import invoke
from cursor_builders import (
    agentkv_rows,
    assistant,
    bubble,
    composer_data,
    make_state_db,
    state_db_path,
    tool,
    user,
    write_transcript,
)

PARENT = "7c0a1e55-0000-4000-8000-000000000045"
CHILD = "9d2e4f60-0000-4000-8000-000000000045"
SLUG = "home-me-app"
T0 = 1_795_946_400_000  # 2026-11-29T10:00:00Z
TASK = "List every caller of fetch_forecast and say which ones run per request."


#: every test of this file reads Cursor alone (``conftest.only_cursor``)
pytestmark = pytest.mark.usefixtures("only_cursor")


def _show(*args: str) -> dict:
    result = invoke("show", *args, "--json")
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)["session"]


def _text(*args: str) -> str:
    result = invoke("show", *args)
    assert result.exit_code == 0, result.output
    return result.stdout


def _grep_call(status: str = "completed") -> dict:
    return {"name": "grep_search", "status": status, "toolCallId": "tc-child-1",
            "rawArgs": orjson.dumps({"query": "fetch_forecast\\(", "path": "/home/me/app"}).decode()}


def _parent_db(home: Path, child_bubbles: list[dict], *, raw_rows: list = ()) -> None:
    parent = composer_data(PARENT, name="Cache the forecast lookups", created=T0, updated=T0 + 360_000,
                           model="claude-4.5-sonnet", fs_path="/home/me/app", bubbles=["u1", "a1"], sub_ids=[CHILD])
    child = composer_data(CHILD, name="Find callers", created=T0 + 40_000, updated=T0 + 70_000,
                          model="claude-4.5-sonnet", fs_path="/home/me/app", bubbles=[b["bubbleId"] for b in child_bubbles])
    make_state_db(state_db_path(home), composers=[parent, child], raw_rows=raw_rows, bubbles={
        PARENT: [bubble("u1", 1, "The forecast endpoint is slow.", created="2026-11-29T10:00:00.000Z"),
                 bubble("a1", 2, "Cached.", created="2026-11-29T10:05:00.000Z", tokens=(4000, 400),
                        model="claude-4.5-sonnet")],
        CHILD: child_bubbles,
    })


def _transcript(home: Path) -> None:
    write_transcript(home, SLUG, PARENT, [
        user("The forecast endpoint is slow. Cache the upstream lookups."),
        assistant("Let me look.", tool("Read", path="/home/me/app/forecast.py")),
        assistant(None, tool("Task", description="Find callers", prompt=TASK, subagent_type="explore")),
        assistant("Adding a TTL cache.", tool("StrReplace", path="/home/me/app/forecast.py", old_string="a", new_string="b")),
    ])


CHILD_BUBBLES = [
    bubble("c-u1", 1, TASK, created="2026-11-29T10:00:40.000Z"),
    bubble("c-a1", 2, "", created="2026-11-29T10:00:50.000Z", tokens=(1000, 100), model="claude-4.5-sonnet",
           toolFormerData=_grep_call()),
    bubble("c-a2", 2, "Callers: routes.forecast, routes.summary, jobs.warm_cache.",
           created="2026-11-29T10:01:00.000Z", tokens=(1210, 140), model="claude-4.5-sonnet"),
]


def test_a_db_only_child_s_prompt_reply_and_call_are_shown_under_it(isolated_home: Path) -> None:
    _transcript(isolated_home)
    _parent_db(isolated_home, CHILD_BUBBLES)
    session = _show(PARENT)
    (sub,) = session["subagents"]
    assert sub["id"] == CHILD
    assert [p["text"] for p in sub["prompts"]] == [TASK]
    assert [r["text"] for r in sub["responses"]] == ["Callers: routes.forecast, routes.summary, jobs.warm_cache."]
    assert sub["prompts"][0]["timestamp"].startswith("2026-11-29T10:00:40")
    # Its call right after the Task that spawned it (claimed by its task text), marked as its.
    assert [(t["name"], t["subagent"]) for t in session["tools"]] == [
        ("Read", None), ("Task", None), ("grep_search", CHILD), ("StrReplace", None)]
    child_call = session["tools"][2]
    assert child_call["status"] == "ok" and child_call["paths"] == ["/home/me/app"]
    assert session["delegations"] == [{"subagent": CHILD, "prompt": 1, "agent_type": "explore",
                                       "description": "Find callers"}]
    assert sub["agent_type"] == "explore"
    # The tokens were right before and stay so: parent 4000 + 400, child 2210 + 240.
    assert session["tokens"]["total"] == 4400 + 2450
    assert sub["tokens"]["total"] == 2450


def test_the_card_counts_its_calls_and_the_focus_says_what_was_recorded(isolated_home: Path) -> None:
    _transcript(isolated_home)
    _parent_db(isolated_home, CHILD_BUBBLES)
    card = _text(CHILD[:8])
    assert "3 tool calls (+1 by subagents)" in card
    focus = next(line for line in card.splitlines() if line.lstrip().startswith("focus"))
    assert "its tool calls marked" in focus and "no tool call of its recorded" not in focus
    assert "no prompt or response of its recorded" not in focus
    assert "grep_search" in card


def test_a_child_with_only_a_reply_shows_the_reply(isolated_home: Path) -> None:
    """The demo's shape with its subagent transcript gone: one assistant bubble."""
    _transcript(isolated_home)
    _parent_db(isolated_home, [bubble("ch-a1", 2, "Callers: routes.forecast, routes.summary, jobs.warm_cache.",
                                      created="2026-11-29T10:01:00Z", tokens=(2210, 240), model="claude-4.5-sonnet")])
    session = _show(PARENT)
    (sub,) = session["subagents"]
    assert [r["text"] for r in sub["responses"]] == ["Callers: routes.forecast, routes.summary, jobs.warm_cache."]
    assert sub["responses"][0]["model"] == "claude-4.5-sonnet"
    # No task text to claim a Task by: it goes to the last prompt, as a transcript child would.
    assert session["delegations"] == [{"subagent": CHILD, "prompt": 1, "agent_type": None, "description": None}]
    full = invoke("show", PARENT, "--full", "--no-pager")
    assert full.exit_code == 0 and f"↳ subagent {CHILD}" in full.stdout
    assert "Callers: routes.forecast" in full.stdout
    # The totals are unchanged by showing it.
    tokens = invoke("tokens", "--json")
    assert orjson.loads(tokens.stdout)["total"]["total"] == session["tokens"]["total"] == 4400 + 2450


def test_an_ide_only_parent_shows_its_child_s_calls_where_they_ran(isolated_home: Path) -> None:
    """No transcript at all: the child's bubbles are merged with the parent's by time."""
    parent = composer_data(PARENT, name="IDE chat", created=T0, updated=T0 + 360_000, fs_path="/home/me/app",
                           bubbles=["u1", "a1", "a2"], sub_ids=[CHILD])
    child = composer_data(CHILD, created=T0 + 40_000, fs_path="/home/me/app", bubbles=["c-u1", "c-a1", "c-a2"])
    read = {"name": "read_file", "status": "completed", "params": {"target_file": "/home/me/app/a.py"}}
    edit = {"name": "edit_file", "status": "completed", "params": {"target_file": "/home/me/app/a.py"}}
    make_state_db(state_db_path(isolated_home), composers=[parent, child], bubbles={
        PARENT: [bubble("u1", 1, "speed it up", created="2026-11-29T10:00:00Z"),
                 bubble("a1", 2, "", created="2026-11-29T10:00:10Z", toolFormerData=read, tokens=(10, 1)),
                 bubble("a2", 2, "done", created="2026-11-29T10:02:00Z", toolFormerData=edit, tokens=(20, 2))],
        CHILD: CHILD_BUBBLES,
    })
    session = _show(PARENT)
    assert [(t["name"], t["subagent"]) for t in session["tools"]] == [
        ("read_file", None), ("grep_search", CHILD), ("edit_file", None)]
    assert [p["text"] for p in session["prompts"]] == ["speed it up"]
    (sub,) = session["subagents"]
    assert [p["text"] for p in sub["prompts"]] == [TASK]
    assert session["tokens"]["total"] == 11 + 22 + 2450
    assert "(+1 by subagents)" in _text(PARENT)


def test_a_textless_child_is_read_from_its_agentkv_rows(isolated_home: Path) -> None:
    rows = agentkv_rows([
        {"role": "user", "content": [{"type": "text", "text": f"<user_query>\n{TASK}\n</user_query>"}],
         "providerOptions": {"cursor": {"requestId": "req-child"}}},
        {"role": "assistant", "content": [{"type": "tool-call", "toolName": "Grep", "args": {"pattern": "x", "path": "/srv"}}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Two callers."}]},
    ])
    _transcript(isolated_home)
    _parent_db(isolated_home, [bubble("c-u1", 1, "", requestId="req-child"),
                               bubble("c-a1", 2, "", requestId="req-child", tokens=(5, 5))], raw_rows=rows)
    session = _show(PARENT)
    (sub,) = session["subagents"]
    assert [p["text"] for p in sub["prompts"]] == [TASK]
    assert [r["text"] for r in sub["responses"]] == ["Two callers."]
    assert [(t["name"], t["subagent"]) for t in session["tools"] if t["subagent"]] == [("Grep", CHILD)]
    # Its calls' keys are its own: the parent's three calls are all still there.
    assert [t["name"] for t in session["tools"] if not t["subagent"]] == ["Read", "Task", "StrReplace"]


def test_show_keeps_a_db_only_child_s_calls_within_the_bounds(isolated_home: Path) -> None:
    from agentscan.bounds import Bounds
    from agentscan.scan.scanner import Scanner

    many = [bubble(f"c-{i}", 2, f"step {i}", created=f"2026-11-29T10:01:{i:02d}Z",
                   toolFormerData=_grep_call() | {"toolCallId": f"tc-{i}"}) for i in range(40)]
    _transcript(isolated_home)
    _parent_db(isolated_home, many)
    detail = Scanner().show(PARENT, bounds=Bounds(tools=10, responses=5))
    assert len(detail.tools) == 10 and detail.truncated["tools"] == 43 - 10
    (sub,) = detail.subagents
    assert [r.text for r in sub.responses] == [f"step {i}" for i in range(35, 40)]
    assert detail.truncated["subagent_responses"] == 35


def test_a_textless_parent_and_its_textless_child_keep_their_calls_apart(isolated_home: Path) -> None:
    """Both read from agentKv rows: each one's calls keyed as its own (the child's used to
    take the parent's ``m#1`` key, and replace its first call)."""
    rows = agentkv_rows([
        {"role": "user", "content": "<user_query>\nfix the build\n</user_query>",
         "providerOptions": {"cursor": {"requestId": "req-parent"}}},
        {"role": "assistant", "content": [{"type": "tool-call", "toolName": "Shell", "args": {"command": "make"}}]},
        {"role": "user", "content": f"<user_query>\n{TASK}\n</user_query>",
         "providerOptions": {"cursor": {"requestId": "req-child"}}},
        {"role": "assistant", "content": [{"type": "tool-call", "toolName": "Grep", "args": {"pattern": "x"}}]},
    ])
    parent = composer_data(PARENT, name="textless", created=T0, fs_path="/home/me/app", bubbles=["u1"], sub_ids=[CHILD])
    child = composer_data(CHILD, created=T0, fs_path="/home/me/app", bubbles=["c-u1"])
    make_state_db(state_db_path(isolated_home), composers=[parent, child], raw_rows=rows, bubbles={
        PARENT: [bubble("u1", 1, "", requestId="req-parent", tokens=(3, 3))],
        CHILD: [bubble("c-u1", 1, "", requestId="req-child", tokens=(2, 2))],
    })
    session = _show(PARENT)
    assert [(t["name"], t["subagent"]) for t in session["tools"]] == [("Shell", None), ("Grep", CHILD)]
    assert [p["text"] for p in session["prompts"]] == ["fix the build"]
    assert [p["text"] for p in session["subagents"][0]["prompts"]] == [TASK]
    assert session["tokens"]["total"] == 10


def test_tokens_by_agent_names_its_kind_as_show_does(isolated_home: Path) -> None:
    """The Task that claims it in ``show`` gives its kind to ``tokens --by agent`` too
    (before, a run only state.vscdb held was ``unknown`` there)."""
    _transcript(isolated_home)
    _parent_db(isolated_home, CHILD_BUBBLES)
    result = invoke("tokens", "--by", "agent", "--json")
    assert result.exit_code == 0, result.output
    rows = {row["key"]: row["tokens"]["total"] for row in orjson.loads(result.stdout)["rows"]}
    assert rows == {"main": 4400, "explore": 2450}
