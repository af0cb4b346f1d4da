"""A call the user declined never ran: ``trace``'s summary counts it as ``denied``, not as a
failure, as ``show`` says a denied call "is no error"."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from hooks_builders import Replay

runner = CliRunner()
SESSION = "denied-session"


def _turn(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    base = {"session_id": SESSION}
    replay.send({**base, "hook_event_name": "UserPromptSubmit", "prompt": "clean up", "prompt_id": "p1"})
    replay.send({**base, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "t1",
                 "tool_input": {"command": "rm -rf build"}})
    replay.send({**base, "hook_event_name": "PermissionDenied", "tool_name": "Bash", "tool_use_id": "t1",
                 "tool_input": {"command": "rm -rf build"}})
    replay.send({**base, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "t2",
                 "tool_input": {"command": "make"}})
    replay.send({**base, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": "t2",
                 "tool_input": {"command": "make"}, "error": "exit 2"})
    replay.send({**base, "hook_event_name": "Stop", "prompt_id": "p1"})


def test_a_denied_call_is_counted_apart_from_failures(isolated_home: Path) -> None:
    _turn(Path(os.environ["AGENTSCAN_DATA_DIR"]))
    result = runner.invoke(app, ["trace", SESSION, "--json"])
    assert result.exit_code == 0, result.output
    summary = orjson.loads(result.stdout)["summary"]
    assert (summary["tool_calls"], summary["failures"], summary["denied"]) == (2, 1, 1)
    text = runner.invoke(app, ["trace", SESSION])
    assert "2 tool calls, 1 failure, 1 denied" in text.stdout, text.stdout
