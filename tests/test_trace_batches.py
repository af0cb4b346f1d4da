"""A Claude ``PostToolBatch`` lists its calls in the model's order; the trace keeps it.

Claude Code runs its hooks asynchronously, so the ``PreToolUse`` of parallel calls are
captured in any order: the batch's children were sorted by those capture times, and two
reads of one batch came out swapped.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hooks_builders import Replay, ok, only, trace_doc


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def claude(event: str, **fields: object) -> dict:
    return {"hook_event_name": event, "session_id": "s-batch", "prompt_id": "p-1", "cwd": "/r", **fields}


def call(replay: Replay, name: str, tool_input: dict, tool_use_id: str, *, pre_ms: int, post_ms: int) -> None:
    replay.send(claude("PreToolUse", tool_name=name, tool_input=tool_input, tool_use_id=tool_use_id), at_ms=pre_ms)
    replay.send(claude("PostToolUse", tool_name=name, tool_input=tool_input, tool_use_id=tool_use_id,
                       tool_response={}), at_ms=post_ms)


def test_a_batch_keeps_the_order_it_lists_its_calls_in(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="read both"), at_ms=0)
    call(replay, "Read", {"file_path": "/r/b.py"}, "t-b", pre_ms=100, post_ms=210)  # b's hook ran first
    call(replay, "Read", {"file_path": "/r/a.py"}, "t-a", pre_ms=105, post_ms=200)
    call(replay, "Grep", {"pattern": "x"}, "t-c", pre_ms=106, post_ms=150)
    replay.send(claude("PostToolBatch", tool_calls=[{"tool_name": "Read", "tool_use_id": "t-a"},
                                                    {"tool_name": "Read", "tool_use_id": "t-b"},
                                                    {"tool_name": "Grep", "tool_use_id": "t-c"}]), at_ms=220)
    replay.send(claude("Stop"), at_ms=300)

    batch = only(trace_doc("claude:s-batch")["turns"][0]["nodes"], kind="event", name="PostToolBatch")
    assert [c["id"] for c in batch["children"]] == ["t-a", "t-b", "t-c"]
    text = ok("trace", "claude:s-batch").stdout
    assert text.index("tool Read  /r/a.py") < text.index("tool Read  /r/b.py") < text.index("tool Grep  x")
