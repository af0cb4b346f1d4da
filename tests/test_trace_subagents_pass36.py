"""`agentscan trace` and Claude subagents, after the pass-36 review.

* Claude's ``PostToolUse`` of a ``Task``/``Agent`` call names the agent it ran
  (``tool_response.agentId`` = the subagent's ``agent_id``): parallel subagents of one
  type, which their type cannot place, go under their calls by that id (``native``);
  so does a background Task's, whose result comes before its ``SubagentStart``.
* A ``SubagentStop`` with ``agent_type`` "" and no start is one of Claude Code's internal
  agents (prompt suggestions, ``/btw``): an event, neither a subagent nor an orphan.

Payloads as the reviewer's gen_parallel_explore.py sends them (three Explore agents in one
batch), in the shape of the real Task result (fixture ``spotter-agent-progress-v2.1.38``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from hooks_builders import Replay, only, trace_doc

SESSION = "9e9e9e9e-0000-4000-8000-9e0000000009"
AREAS = ("backend", "frontend", "tests")
AGENT_IDS = ("a3f9c1e07b2d4a51c", "b81d2e4f6a0c9e7d1", "c05e7a9b3d1f2c8e4")
runner = CliRunner()


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def claude(event: str, agent: str | None = None, **fields: Any) -> dict:
    payload: dict = {"session_id": SESSION, "prompt_id": "px-1", "cwd": "/tmp/proj", "permission_mode": "default",
                     "hook_event_name": event, **fields}
    if agent:
        payload.update(agent_id=agent, agent_type="Explore")
    return payload


def task_input(index: int) -> dict:
    area = AREAS[index]
    return {"description": f"Explore {area}", "prompt": f"Find the auth code in the {area}", "subagent_type": "Explore"}


def task_result(index: int, **extra: Any) -> dict:
    return {"status": "completed", "prompt": task_input(index)["prompt"], "agentId": AGENT_IDS[index],
            "content": [{"type": "text", "text": f"{AREAS[index]} done"}], "totalDurationMs": 900, **extra}


def three_explore_agents(replay: Replay) -> None:
    """Three Task calls asking for Explore at once; their agents stop, then each call's result names its agent."""
    replay.send(claude("UserPromptSubmit", prompt="How does auth work?"), at_ms=0)
    for i in range(3):
        replay.send(claude("PreToolUse", tool_name="Task", tool_input=task_input(i), tool_use_id=f"toolu_T{i}"), at_ms=10 + i)
    for i in range(3):
        replay.send(claude("SubagentStart", agent_id=AGENT_IDS[i], agent_type="Explore"), at_ms=200 + i)
    at = 300
    for i in range(3):
        grep = {"pattern": "auth", "path": f"/tmp/proj/{AREAS[i]}"}
        replay.send(claude("PreToolUse", AGENT_IDS[i], tool_name="Grep", tool_input=grep, tool_use_id=f"toolu_G{i}"), at_ms=at)
        replay.send(claude("PostToolUse", AGENT_IDS[i], tool_name="Grep", tool_input=grep, tool_use_id=f"toolu_G{i}",
                           tool_response={"numFiles": 2}), at_ms=at + 40)
        at += 100
    # they end in another order than they started: the ids, not the order, pair them
    for i in (2, 0, 1):
        replay.send(claude("SubagentStop", agent_id=AGENT_IDS[i], agent_type="Explore", stop_hook_active=False,
                           last_assistant_message=f"{AREAS[i]} done"), at_ms=at)
        replay.send(claude("PostToolUse", tool_name="Task", tool_input=task_input(i), tool_use_id=f"toolu_T{i}",
                           tool_response=task_result(i)), at_ms=at + 20)
        at += 100
    replay.send(claude("Stop", stop_hook_active=False, last_assistant_message="Auth is in 3 places."), at_ms=at)


def test_parallel_subagents_of_one_type_go_under_the_call_whose_result_names_them(data_dir: Path) -> None:
    three_explore_agents(Replay(data_dir, agent="claude"))

    doc = trace_doc(f"claude:{SESSION}")
    nodes = doc["turns"][0]["nodes"]
    for i in range(3):
        call = only(nodes, kind="tool", id=f"toolu_T{i}")
        [subagent] = call["children"]
        assert (subagent["kind"], subagent["id"], subagent["provenance"]) == ("subagent", AGENT_IDS[i], "native")
        # its own calls stay under it
        assert [c["id"] for c in subagent["children"]] == [f"toolu_G{i}"]
    assert (doc["summary"]["subagents"], doc["summary"]["orphans"]) == (3, 0)
    assert not [n for n in nodes if n["kind"] == "subagent"]  # none left under the turn


def test_a_background_task_whose_result_comes_before_its_start(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="run two explorers in the background"), at_ms=0)
    for i in range(2):
        replay.send(claude("PreToolUse", tool_name="Task", tool_use_id=f"toolu_T{i}",
                           tool_input={**task_input(i), "run_in_background": True}), at_ms=10 + i)
    for i in range(2):  # launched: the result names the agent before it has started
        replay.send(claude("PostToolUse", tool_name="Task", tool_use_id=f"toolu_T{i}",
                           tool_input={**task_input(i), "run_in_background": True},
                           tool_response={"isAsync": True, "status": "async_launched", "agentId": AGENT_IDS[i]}),
                    at_ms=30 + i)
    for i in (1, 0):
        replay.send(claude("SubagentStart", agent_id=AGENT_IDS[i], agent_type="Explore"), at_ms=100 + i)
    for i in (0, 1):
        replay.send(claude("SubagentStop", agent_id=AGENT_IDS[i], agent_type="Explore", last_assistant_message="ok"),
                    at_ms=900 + i)

    doc = trace_doc(f"claude:{SESSION}")
    nodes = doc["turns"][0]["nodes"]
    for i in range(2):
        [subagent] = only(nodes, kind="tool", id=f"toolu_T{i}")["children"]
        assert (subagent["id"], subagent["provenance"], subagent["status"]) == (AGENT_IDS[i], "native", "ok")
    assert doc["summary"]["orphans"] == 0


def test_a_stop_whose_start_was_not_captured_still_goes_under_its_call(data_dir: Path) -> None:
    """Hooks installed while the agent ran: the stop and the result are all there is."""
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="explore"), at_ms=0)
    for i in range(2):
        replay.send(claude("PreToolUse", tool_name="Task", tool_input=task_input(i), tool_use_id=f"toolu_T{i}"), at_ms=10 + i)
    for i in range(2):
        replay.send(claude("SubagentStop", agent_id=AGENT_IDS[i], agent_type="Explore", last_assistant_message="ok"),
                    at_ms=500 + 10 * i)
        replay.send(claude("PostToolUse", tool_name="Task", tool_input=task_input(i), tool_use_id=f"toolu_T{i}",
                           tool_response=task_result(i)), at_ms=505 + 10 * i)

    nodes = trace_doc(f"claude:{SESSION}")["turns"][0]["nodes"]
    for i in range(2):
        [subagent] = only(nodes, kind="tool", id=f"toolu_T{i}")["children"]
        assert (subagent["id"], subagent["provenance"]) == (AGENT_IDS[i], "native")


def test_the_text_draws_each_subagent_under_its_call(data_dir: Path) -> None:
    three_explore_agents(Replay(data_dir, agent="claude"))
    result = runner.invoke(app, ["trace", SESSION])
    assert result.exit_code == 0, result.output
    assert "orphan" not in result.stdout
    assert "|  |- tool Task  Explore backend  ok" in result.stdout
    assert "|  |  `- subagent Explore  ok" in result.stdout


def internal_agent_stop(replay: Replay) -> None:
    """The reviewer's ``is/`` payloads: a turn, then Claude Code's prompt-suggestion agent stopping."""
    replay.send(claude("UserPromptSubmit", prompt="hi", prompt_id="ip-1"), at_ms=0)
    replay.send(claude("Stop", prompt_id="ip-1", stop_hook_active=False, last_assistant_message="Hello"), at_ms=100)
    replay.send(claude("SubagentStop", prompt_id="ip-1", agent_id="a9d8e7f6", agent_type="", stop_hook_active=False,
                       last_assistant_message="run the tests", agent_transcript_path=None), at_ms=200)


def test_an_internal_agents_stop_is_an_event_not_an_orphan_subagent(data_dir: Path) -> None:
    internal_agent_stop(Replay(data_dir, agent="claude"))

    doc = trace_doc(f"claude:{SESSION}")
    [turn] = doc["turns"]
    event = only(turn["nodes"], name="SubagentStop")
    assert (event["kind"], event["provenance"], event["status"]) == ("event", "native", None)
    assert event["detail"] == {"internal_agent": True}
    assert event["input"]["last_assistant_message"] == "run the tests"
    for summary in (turn["summary"], doc["summary"]):
        assert (summary["subagents"], summary["orphans"]) == (0, 0)
    text = runner.invoke(app, ["trace", SESSION]).stdout
    assert "`- event SubagentStop (internal agent)" in text
    assert "subagent" not in text and "orphan" not in text


def test_a_subagent_stop_of_a_named_type_without_start_is_still_an_orphan_subagent(data_dir: Path) -> None:
    """Only an empty ``agent_type`` marks an internal agent: an Explore whose start was lost stays what it was."""
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="hi"), at_ms=0)
    replay.send(claude("SubagentStop", agent_id="lost1", agent_type="Explore", last_assistant_message="x"), at_ms=50)
    node = only(trace_doc(f"claude:{SESSION}")["turns"][0]["nodes"], id="lost1")
    assert (node["kind"], node["provenance"]) == ("subagent", "orphan")
