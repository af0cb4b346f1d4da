"""Turns in ``trace``: an interrupted Claude turn is marked so; ``--last N`` and ``--turn N``.

Claude Code sends no ``Stop`` when the user interrupts a turn (Esc): the next
``UserPromptSubmit`` is the only sign.  Such a turn was shown with no status at all, as
if it were still running; its status is now ``interrupted``.  A long session's tree can be
cut to its last turns, or one turn, still numbered as in the whole session.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from hooks_builders import Replay, ok, prompt, stop, trace_doc


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def claude(event: str, prompt_id: str, **fields: object) -> dict:
    return {"hook_event_name": event, "session_id": "s-esc", "prompt_id": prompt_id, "cwd": "/work/repo",
            "permission_mode": "default", "transcript_path": "/home/dev/.claude/projects/-work-repo/s-esc.jsonl",
            **fields}


def test_a_turn_a_new_prompt_follows_without_stop_is_interrupted(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    command = {"command": "pytest -q"}
    replay.send(claude("UserPromptSubmit", "p-1", prompt="run the tests"), at_ms=0)
    replay.send(claude("PreToolUse", "p-1", tool_name="Bash", tool_input=command, tool_use_id="t-1"), at_ms=10)
    replay.send(claude("PostToolUseFailure", "p-1", tool_name="Bash", tool_input=command, tool_use_id="t-1",
                       error="interrupted", is_interrupt=True), at_ms=900)
    replay.send(claude("UserPromptSubmit", "p-2", prompt="no, only the fast ones"), at_ms=2000)
    replay.send(claude("Stop", "p-2"), at_ms=3000)
    replay.send(claude("UserPromptSubmit", "p-3", prompt="thanks"), at_ms=5000)  # still running

    doc = trace_doc("claude:s-esc")
    assert [t["summary"]["status"] for t in doc["turns"]] == ["interrupted", "completed", None]
    assert doc["session"]["status"] == "active"
    lines = ok("trace", "claude:s-esc").stdout.splitlines()
    assert [line for line in lines if line.startswith("turn ")] == [
        "turn 1  p-1  1 tool call, 1 failure, 900 ms, interrupted",
        "turn 2  p-2  0 tool calls, 1.0 s, completed",
        "turn 3  p-3  0 tool calls, 0 ms",
    ]


def test_a_cursor_turn_without_stop_is_not_said_to_be_interrupted(data_dir: Path) -> None:
    # Cursor sends its stop with "aborted" when interrupted: one missing is a hook lost, no sign
    replay = Replay(data_dir)
    replay.send(prompt("first"), at_ms=0)
    second = "c3d5e7f9-2d4f-4b6c-9e8a-0f1b2c3d4e5f"
    replay.send(prompt("second", generation=second), at_ms=1000)
    replay.send(stop(generation=second), at_ms=1100)

    assert [t["summary"]["status"] for t in trace_doc()["turns"]] == [None, "completed"]


# --- trace --last N / --turn N ---------------------------------------------------------------


def three_turns(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    for number in (1, 2, 3):
        replay.send(claude("UserPromptSubmit", f"p-{number}", prompt=f"step {number}"), at_ms=number * 1000)
        replay.send(claude("Stop", f"p-{number}"), at_ms=number * 1000 + 500)


def turn_lines(text: str) -> list[str]:
    return [line.split("  ")[0] for line in text.splitlines() if line.startswith("turn ")]


def test_turn_and_last_show_those_turns_numbered_as_in_the_whole_session(data_dir: Path) -> None:
    three_turns(data_dir)

    whole = ok("trace", "claude:s-esc").stdout
    assert turn_lines(whole) == ["turn 1", "turn 2", "turn 3"] and "  shown " not in whole
    one = ok("trace", "claude:s-esc", "--turn", "2").stdout
    assert turn_lines(one) == ["turn 2"] and "prompt: step 2" in one
    assert "  shown       turn 2 of 3\n" in one
    assert "  summary     0 tool calls, 2.5 s\n" in one  # the header is still the whole session's
    last = ok("trace", "claude:s-esc", "--last", "2").stdout
    assert turn_lines(last) == ["turn 2", "turn 3"] and "  shown       turns 2-3 of 3\n" in last
    assert turn_lines(ok("trace", "claude:s-esc", "--last", "9").stdout) == ["turn 1", "turn 2", "turn 3"]

    doc = trace_doc("claude:s-esc")
    assert [t["prompt"] for t in doc["turns"]] == ["step 1", "step 2", "step 3"]
    chosen = orjson.loads(ok("trace", "claude:s-esc", "--json", "--last", "1").stdout)
    assert [t["prompt"] for t in chosen["turns"]] == ["step 3"] and chosen["summary"]["turns"] == 3


@pytest.mark.parametrize(("args", "message"), [
    (["--turn", "4"], "--turn 4: this session has 3 turns"),
    (["--last", "0"], "--last 0: N counts turns from 1"),
    (["--turn", "1", "--last", "1"], "give --last or --turn, not both"),
])
def test_a_turn_the_session_lacks_is_a_usage_error(data_dir: Path, args: list[str], message: str) -> None:
    three_turns(data_dir)
    result = CliRunner().invoke(app, ["trace", "claude:s-esc", *args])
    assert result.exit_code == 2 and message in result.stderr
    listed = CliRunner().invoke(app, ["trace", "--list", "--last", "1"])
    assert listed.exit_code == 2 and "not with --list" in listed.stderr
