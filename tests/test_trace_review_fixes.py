"""`agentscan trace` after the review: a redacted shell command, events delivered twice, the
session status of the latest turn, the `show` hint only for a transcript that exists, and
parallel subagents of one type that no id places.

Payload sequences follow the ones the reviewer fed through `agentscan hook` (Claude sessions
with a subagent, parallel Agent calls, a resume; a Cursor turn with two shell calls).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from hooks_builders import (
    failed_then_retried_shell,
    CONVERSATION, Replay, after_shell, before_shell, only, post, pre, prompt, shell_input, stop, tool_calls,
    trace_doc, walk,
)

SESSION = "11111111-2222-3333-4444-555555555555"
runner = CliRunner()


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def claude(event: str, prompt_id: str | None = "p-1", transcript: str | None = None, **fields: Any) -> dict:
    """A Claude payload with the fields every event carries (as the reviewer's scripts send them)."""
    payload: dict = {"hook_event_name": event, "session_id": SESSION, "cwd": "/tmp/proj", "permission_mode": "default",
                     "transcript_path": transcript or f"/nowhere/.claude/projects/-tmp-proj/{SESSION}.jsonl", **fields}
    if prompt_id:
        payload["prompt_id"] = prompt_id
    return payload


def trace_text(query: str, *args: str) -> str:
    result = runner.invoke(app, ["trace", query, *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def claude_turn_with_a_subagent() -> list[dict]:
    """Turn 1 of the reviewer's claude_seq.py: parallel Read + Grep, an Explore subagent whose Bash fails."""
    agent_input = {"subagent_type": "Explore", "prompt": "find tests", "description": "explore"}
    sub = {"agent_id": "ag1", "agent_type": "Explore"}
    bash = {"command": "pytest -q"}
    return [
        claude("SessionStart", prompt_id=None, source="startup", model="claude-sonnet-4-5"),
        claude("UserPromptSubmit", prompt="Fix the failing tests"),
        claude("PreToolUse", tool_name="Read", tool_input={"file_path": "/tmp/proj/a.py"}, tool_use_id="toolu_A"),
        claude("PreToolUse", tool_name="Grep", tool_input={"pattern": "def test"}, tool_use_id="toolu_B"),
        claude("PostToolUse", tool_name="Grep", tool_input={"pattern": "def test"}, tool_use_id="toolu_B", tool_response={"ok": 1}),
        claude("PostToolUse", tool_name="Read", tool_input={"file_path": "/tmp/proj/a.py"}, tool_use_id="toolu_A", tool_response={"ok": 1}),
        claude("PreToolUse", tool_name="Agent", tool_input=agent_input, tool_use_id="toolu_C"),
        claude("SubagentStart", **sub),
        claude("PreToolUse", tool_name="Bash", tool_input=bash, tool_use_id="toolu_D", **sub),
        claude("PermissionRequest", tool_name="Bash", tool_input=bash, **sub),
        claude("PostToolUseFailure", tool_name="Bash", tool_input=bash, tool_use_id="toolu_D", error="exit 1", is_interrupt=False, **sub),
        claude("SubagentStop", last_assistant_message="done", **sub),
        claude("PostToolUse", tool_name="Agent", tool_input=agent_input, tool_use_id="toolu_C", tool_response={"ok": 1}),
        claude("Stop", stop_hook_active=False, last_assistant_message="All fixed"),
    ]


# --- 5. trace --redact: a shell node is named by its command -------------------------


def test_redact_hashes_a_cursor_shell_command_in_the_node_name_too(data_dir: Path) -> None:
    replay = Replay(data_dir)
    command = shell_input("cargo nextest --token=hunter2-not-a-real-one")
    replay.send(prompt("run the tests"), at_ms=0)
    replay.send(pre("Shell", command, "call-1"), at_ms=10)
    replay.send(before_shell(command["command"]), at_ms=20)
    replay.send(after_shell(command["command"]), at_ms=300)
    replay.send(post("Shell", command, "call-1"), at_ms=310)

    result = runner.invoke(app, ["trace", CONVERSATION, "--redact", "--json"])
    assert result.exit_code == 0, result.output
    assert b"nextest" not in result.stdout_bytes and b"hunter2" not in result.stdout_bytes
    [shell] = [n for n in walk(orjson.loads(result.stdout)["turns"][0]["nodes"]) if n["kind"] == "shell"]
    # hashed as the command in its input is, so the two still read as the same command
    assert shell["name"] == shell["input"]["command"]
    assert shell["name"].startswith(f"[redacted: {len(command['command'])} chars, #")

    text = trace_text(CONVERSATION, "--redact")
    assert "nextest" not in text and "hunter2" not in text
    assert f"shell {shell['name']}" in text


# --- 6. an event delivered twice counts once ------------------------------------------


def test_events_delivered_twice_count_once_and_say_so(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    at = 0
    for payload in claude_turn_with_a_subagent():  # agentscan registered twice: every event stored twice
        replay.send(payload, at_ms=at)
        replay.send(payload, at_ms=at + 40)
        at += 100

    doc = trace_doc(f"claude:{SESSION}")
    [turn] = doc["turns"]
    summary = turn["summary"]
    assert (summary["tool_calls"], summary["orphans"], summary["failures"], summary["subagents"]) == (4, 0, 1, 1)
    assert [n["name"] for n in doc["session"]["nodes"]] == ["SessionStart"]
    assert [n["name"] for n in turn["nodes"] if n["kind"] == "event"] == ["Stop"]
    bash = only(turn["nodes"], kind="tool", name="Bash")
    assert (bash["status"], bash["provenance"], [c["name"] for c in bash["children"]]) == ("error", "native", ["PermissionRequest"])
    [warning] = doc["warnings"]
    assert "14 hook events were delivered twice and counted once" in warning["message"]


def test_the_same_command_run_again_is_not_a_repeat(data_dir: Path) -> None:
    # A failed call's retry sends a byte-identical beforeShellExecution within the window: it
    # is kept, because its twin no longer waits for an after… (the failure dropped it).
    # …and the retry's own beforeShellExecution is delivered a second time.
    failed_then_retried_shell(Replay(data_dir), delivered_twice_at_ms=240)

    doc = trace_doc()
    nodes = doc["turns"][0]["nodes"]
    assert [len(call["children"]) for call in tool_calls(nodes)] == [1, 1]
    assert not [n for n in walk(nodes) if n["provenance"] == "orphan"]
    assert "1 hook event was delivered twice" in doc["warnings"][0]["message"]


def test_identical_events_further_apart_than_the_window_are_both_kept(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    read = {"file_path": "/a"}
    replay.send(claude("UserPromptSubmit", prompt="go"), at_ms=0)
    replay.send(claude("PreToolUse", tool_name="Read", tool_input=read, tool_use_id="toolu_Y"), at_ms=10)
    replay.send(claude("PostToolUse", tool_name="Read", tool_input=read, tool_use_id="toolu_Y", tool_response={}), at_ms=100)
    replay.send(claude("PostToolUse", tool_name="Read", tool_input=read, tool_use_id="toolu_Y", tool_response={}), at_ms=2200)

    doc = trace_doc(f"claude:{SESSION}")
    assert doc["turns"][0]["summary"]["orphans"] == 1 and doc["warnings"] == []


# --- 7. the session status is that of the latest turn or session event -----------------


@pytest.mark.parametrize(("events", "status"), [
    # turn 1 stopped, turn 2 still running
    ([("UserPromptSubmit", "p-1"), ("Stop", "p-1"), ("UserPromptSubmit", "p-2"), ("PreToolUse", "p-2")], "active"),
    # ended, then resumed with a new prompt
    ([("UserPromptSubmit", "q-1"), ("Stop", "q-1"), ("SessionEnd", None), ("SessionStart", None),
      ("UserPromptSubmit", "q-2")], "active"),
    # ended, then resumed, nothing asked yet
    ([("UserPromptSubmit", "q-1"), ("Stop", "q-1"), ("SessionEnd", None), ("SessionStart", None)], "stopped"),
    ([("UserPromptSubmit", "q-1"), ("Stop", "q-1"), ("SessionEnd", None)], "ended"),
    ([("UserPromptSubmit", "q-1"), ("Stop", "q-1")], "stopped"),
])
def test_the_session_status_follows_the_latest_turn_and_session_event(data_dir: Path, events: list, status: str) -> None:
    replay = Replay(data_dir, agent="claude")
    for index, (event, prompt_id) in enumerate(events):
        fields: dict = {"prompt": f"prompt {index}"} if event == "UserPromptSubmit" else {}
        if event == "PreToolUse":
            fields = {"tool_name": "Bash", "tool_input": {"command": "git commit"}, "tool_use_id": "toolu_E"}
        replay.send(claude(event, prompt_id=prompt_id, **fields), at_ms=index * 100)

    assert trace_doc(f"claude:{SESSION}")["session"]["status"] == status
    assert trace_text(f"claude:{SESSION}").splitlines()[0].endswith(f"({status})")


def test_a_cursor_session_stopped_then_prompted_again_is_active(data_dir: Path) -> None:
    replay = Replay(data_dir)
    replay.send(prompt("first"), at_ms=0)
    replay.send(stop(), at_ms=100)
    replay.send(prompt("second", generation_id="c0ffee00-1c3e-4a5b-8d7f-9e0a1b2c3d4e"), at_ms=200)
    assert trace_doc()["session"]["status"] == "active"


# --- 8. `agentscan show` is suggested only for a transcript that exists -----------------


def test_the_show_hint_needs_the_transcript_file(data_dir: Path, tmp_path: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="hi"), at_ms=0)  # names a transcript that is not there

    text = trace_text(f"claude:{SESSION}")
    assert "agentscan show" not in text
    # The path the agent named, not an id made from its file name.
    assert f"\n  transcript  /nowhere/.claude/projects/-tmp-proj/{SESSION}.jsonl (not found)\n  captured " in text
    assert trace_doc(f"claude:{SESSION}")["session"]["transcript_found"] is False

    # Under a folder `show` reads (pass 53: one under none gets no bare `show`).
    transcript = Path(os.environ["HOME"]) / ".claude" / "projects" / "-tmp-proj" / f"{SESSION}.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text("{}\n", encoding="utf-8")
    replay.send(claude("Stop", transcript=str(transcript)), at_ms=100)  # the latest path wins
    assert f"\n              agentscan show claude:{SESSION}\n" in trace_text(f"claude:{SESSION}")
    assert f"\n              agentscan show claude:{SESSION}\n" in trace_text(f"claude:{SESSION}", "--redact")
    assert trace_doc(f"claude:{SESSION}")["session"]["transcript_found"] is True


def test_a_turn_the_agent_gave_no_id_is_marked_inferred_not_by_a_made_up_id(data_dir: Path) -> None:
    # pass 39: "turn 1  derived-1 (derived)" named agentscan's internal id and term.
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt_id=None, prompt="hi"), at_ms=0)  # an older build: no prompt_id
    replay.send(claude("Stop", prompt_id=None), at_ms=100)
    text = trace_text(f"claude:{SESSION}")
    assert "\nturn 1  [inferred]  0 tool calls" in text and "derived" not in text
    assert [turn["id"] for turn in trace_doc(f"claude:{SESSION}")["turns"]] == ["derived-1"]  # --json: whole


# --- 18. parallel subagents of one type: no id places them -----------------------------


def parallel_subagents(replay: Replay) -> None:
    """The reviewer's claude_par.py: Explore, Explore and Plan started in parallel."""
    replay.send(claude("UserPromptSubmit", prompt="Investigate", prompt_id="r-1"), at_ms=0)
    calls = (("1", "Explore"), ("2", "Explore"), ("3", "Plan"))
    at = 10
    for i, kind in calls:
        replay.send(claude("PreToolUse", prompt_id="r-1", tool_name="Agent", tool_use_id=f"toolu_T{i}",
                           tool_input={"subagent_type": kind, "prompt": f"task {i}", "description": f"d{i}"}), at_ms=at)
        at += 10
    for i, kind in calls:
        replay.send(claude("SubagentStart", prompt_id="r-1", agent_id=f"ag{i}", agent_type=kind), at_ms=at)
        at += 10
    for i, kind in (("3", "Plan"), ("1", "Explore"), ("2", "Explore")):
        replay.send(claude("SubagentStop", prompt_id="r-1", agent_id=f"ag{i}", agent_type=kind, last_assistant_message="ok"), at_ms=at)
        replay.send(claude("PostToolUse", prompt_id="r-1", tool_name="Agent", tool_use_id=f"toolu_T{i}", tool_response={},
                           tool_input={"subagent_type": kind, "prompt": f"task {i}", "description": f"d{i}"}), at_ms=at + 5)
        at += 100
    replay.send(claude("Stop", prompt_id="r-1"), at_ms=at)


def test_parallel_subagents_of_one_type_stay_under_the_turn_marked_orphan(data_dir: Path) -> None:
    parallel_subagents(Replay(data_dir, agent="claude"))

    nodes = trace_doc(f"claude:{SESSION}")["turns"][0]["nodes"]
    plan = only(nodes, kind="subagent", id="ag3")
    assert plan["provenance"] == "correlated"  # the only call asking for a Plan agent
    assert plan in only(nodes, kind="tool", id="toolu_T3")["children"]
    for agent_id in ("ag1", "ag2"):  # two calls asked for Explore: arrival order never decides
        explore = only(nodes, kind="subagent", id=agent_id)
        assert explore in nodes and explore["provenance"] == "orphan"
    assert " subagent Explore  ok" in trace_text(f"claude:{SESSION}")
