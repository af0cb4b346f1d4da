"""``show`` of a session whose main transcript is gone (pass 28): its counts are its
subagents' (docs/providers/claude.md), so the card adds no "(+N by subagents)" on top of
them; a session with its main transcript still does."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from codex_builders import (
    agent_message,
    at,
    function_call,
    function_output,
    meta,
    rollout_path,
    turn_context,
    user_message,
    write_rollout,
)

runner = CliRunner()
S = "dddddddd-1111-4222-8333-444444444444"
AGENT = "a1b2c3"


def _subagent_with_one_call(home: Path) -> None:
    """A subagent that was given a task, made one Bash call (100 + 20 tokens) and replied (50 + 10)."""
    claude_subagent_file(home, S, AGENT, [
        claude_user(S, "2026-11-02T10:00:00.000Z", "look around", sidechain=True),
        claude_assistant(S, "2026-11-02T10:00:10.000Z", msg_id="ms1", request_id="rs1", usage=claude_usage(100, 20),
                         blocks=[{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}],
                         sidechain=True),
        claude_user(S, "2026-11-02T10:00:11.000Z", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"}],
                    sidechain=True),
        claude_assistant(S, "2026-11-02T10:00:20.000Z", msg_id="ms2", request_id="rs2", usage=claude_usage(50, 10),
                         blocks=[{"type": "text", "text": "found a"}], sidechain=True),
    ])


def _counts_line(text: str) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith("  counts")]
    return line


def test_a_claude_session_without_its_main_transcript_counts_the_subagents_call_once(isolated_home: Path) -> None:
    _subagent_with_one_call(isolated_home)
    text = runner.invoke(app, ["show", S])
    assert text.exit_code == 0, text.stderr
    assert "transcript missing" in text.stdout
    assert _counts_line(text.stdout) == "  counts   1 prompt, 1 response, 1 tool call"  # was "1 tool call (+1 by subagents)"
    assert "tool calls (1 by subagents)" in text.stdout  # no "0 own" beside counts that are theirs
    document = orjson.loads(runner.invoke(app, ["show", S, "--json"]).stdout)["session"]
    assert document["counts"]["tool_calls"] == len(document["tools"]) == 1
    assert document["tokens"]["total"] == 180  # tokens were right all along
    listed = orjson.loads(runner.invoke(app, ["list", "--json"]).stdout)
    assert listed["sessions"][0]["counts"] == document["counts"]  # `list` and `show` agree


def test_a_session_with_its_main_transcript_still_adds_its_subagents_calls(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-02T09:59:00.000Z", "delegate a look around"),
        claude_assistant(S, "2026-11-02T09:59:05.000Z", msg_id="m1", request_id="r1", usage=claude_usage(10, 5),
                         blocks=[{"type": "tool_use", "id": "toolu_0", "name": "Read", "input": {"file_path": "x"}}]),
    ])
    _subagent_with_one_call(isolated_home)
    text = runner.invoke(app, ["show", S]).stdout
    assert _counts_line(text) == "  counts   1 prompt, 0 responses, 1 tool call (+1 by subagents)"


def test_a_codex_child_without_its_parent_counts_its_call_once(isolated_home: Path) -> None:
    parent, child = "019d3333-0000-7000-8000-000000000003", "019d4444-0000-7000-8000-000000000004"
    write_rollout(rollout_path(isolated_home / ".codex", child, at(6)), [
        meta(child, at(6), spawn_parent=parent, agent_role="reviewer"),
        turn_context(at(6.1)),
        user_message(at(6.2), "Audit refunds"),
        function_call(at(9), "shell", {"command": ["bash", "-lc", "ls"]}, "c1"),
        function_output(at(10), "c1", "Exit code: 0\nx"),
        agent_message(at(29), "done"),
    ])
    text = runner.invoke(app, ["show", parent]).stdout
    assert _counts_line(text) == "  counts   1 prompt, 1 response, 1 tool call"
