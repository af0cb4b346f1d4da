"""A Cursor subagent's calls, reported under the parent conversation, sit under the subagent.

Before, they were siblings of the Task call that ran the subagent, and since they ran while
it did, they were drawn as one "parallel" wave with it.  When the payload says which
subagent a call belongs to (a ``subagent_id``, or a ``transcript_path`` in the parent's
``subagents/`` folder), the call goes under that subagent, inside its Task call.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hooks_builders import (
    CONVERSATION, Replay, ok, only, post, pre, prompt, stop, subagent_start, subagent_stop, trace_doc, walk,
)

TASK = {"description": "find hook files", "prompt": "list them", "subagent_type": "explore"}


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def sub_transcript(child: str) -> str:
    return f"/home/dev/.cursor/projects/work-repo/agent-transcripts/{CONVERSATION}/subagents/{child}.jsonl"


def task_with_calls(replay: Replay, **marks: dict) -> None:
    """A Task call whose subagent runs a Read and a Grep, each marked as ``marks`` says."""
    replay.send(prompt("find the hook files"), at_ms=0)
    replay.send(pre("Task", TASK, "task-1"), at_ms=10)
    replay.send(subagent_start("sub-1", "find hook files", tool_call_id="task-1"), at_ms=20)
    read, grep = {"file_path": "/work/repo/a.py"}, {"pattern": "hook"}
    replay.send(pre("Read", read, "r-1", **marks.get("read", {})), at_ms=30)
    replay.send(post("Read", read, "r-1", **marks.get("read", {})), at_ms=60)
    replay.send(pre("Grep", grep, "g-1", **marks.get("grep", {})), at_ms=70)
    replay.send(post("Grep", grep, "g-1", **marks.get("grep", {})), at_ms=90)
    replay.send(subagent_stop("find hook files"), at_ms=100)
    replay.send(post("Task", TASK, "task-1"), at_ms=110)
    replay.send(stop(), at_ms=120)


def test_calls_named_by_subagent_id_or_transcript_sit_under_the_subagent(data_dir: Path) -> None:
    task_with_calls(Replay(data_dir), read={"transcript_path": sub_transcript("sub-1")}, grep={"subagent_id": "sub-1"})
    [turn] = trace_doc()["turns"]

    assert [n["kind"] for n in turn["nodes"]] == ["tool", "event"]  # the Task call, the stop: no wave
    task = only(turn["nodes"], kind="tool", name="Task")
    [sub] = task["children"]
    assert [(c["name"], c["status"], c["provenance"]) for c in sub["children"]] == [
        ("Read", "ok", "native"), ("Grep", "ok", "native")]
    assert turn["summary"]["waves"] == 0 and turn["summary"]["tool_calls"] == 3
    text = ok("trace", CONVERSATION).stdout
    assert "parallel" not in text
    assert "  |  `- subagent explore  ok" in text and "  |     |- tool Read  /work/repo/a.py  ok" in text


def test_a_subagent_transcript_of_another_name_goes_to_the_one_running_subagent(data_dir: Path) -> None:
    elsewhere = {"transcript_path": sub_transcript("child-composer-7")}
    task_with_calls(Replay(data_dir), read=elsewhere, grep=elsewhere)
    [turn] = trace_doc()["turns"]

    [sub] = only(turn["nodes"], kind="tool", name="Task")["children"]
    assert [(c["name"], c["provenance"]) for c in sub["children"]] == [("Read", "correlated"), ("Grep", "correlated")]


def test_calls_nothing_places_stay_beside_the_task_call(data_dir: Path) -> None:
    task_with_calls(Replay(data_dir))  # the parent's transcript path, no subagent id: nothing tells
    [turn] = trace_doc()["turns"]

    [sub] = only(turn["nodes"], kind="tool", name="Task")["children"]
    assert sub["children"] == []
    assert {n["name"] for n in walk(turn["nodes"]) if n["kind"] == "tool"} == {"Task", "Read", "Grep"}
    assert turn["summary"]["waves"] == 1
