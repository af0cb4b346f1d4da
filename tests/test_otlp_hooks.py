"""Hook trees as traces: real times, waves, subagents, the transcript's LLM calls merged in."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from hooks_builders import (
    BASE_NS, CONVERSATION, MS, Replay, after_mcp, after_shell, before_mcp, before_shell, post, pre, prompt,
    shell_input, stop,
)
from otlp_builders import AGENT, SESSION, by_name, claude_delegating_session, one, otlp, read_otlp_file, ts
from agentscan.timeutil import parse_iso


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def claude(event: str, session: str = "s1", prompt_id: str | None = "p-1", **fields: Any) -> dict:
    payload: dict = {"hook_event_name": event, "session_id": session, "cwd": "/repo", **fields}
    if prompt_id:
        payload["prompt_id"] = prompt_id
    return payload


def claude_turn_with_waves(replay: Replay) -> None:
    """An Agent call whose Explore subagent runs Grep and Read in parallel, then two Bash calls in parallel."""
    agent_input = {"description": "explore", "prompt": "find", "subagent_type": "Explore"}
    sub = {"agent_id": "a1", "agent_type": "Explore"}
    grep, read = {"pattern": "x"}, {"file_path": "/a"}
    replay.send(claude("UserPromptSubmit", prompt="go"), at_ms=0)
    replay.send(claude("PreToolUse", tool_name="Agent", tool_input=agent_input, tool_use_id="toolu_agent"), at_ms=100)
    replay.send(claude("SubagentStart", **sub), at_ms=120)
    replay.send(claude("PreToolUse", tool_name="Grep", tool_input=grep, tool_use_id="g1", **sub), at_ms=200)
    replay.send(claude("PreToolUse", tool_name="Read", tool_input=read, tool_use_id="r1", **sub), at_ms=210)
    replay.send(claude("PostToolUse", tool_name="Read", tool_input=read, tool_response={}, tool_use_id="r1", **sub), at_ms=400)
    replay.send(claude("PostToolUse", tool_name="Grep", tool_input=grep, tool_response={}, tool_use_id="g1", **sub), at_ms=500)
    replay.send(claude("SubagentStop", **sub), at_ms=900)
    replay.send(claude("PostToolUse", tool_name="Agent", tool_input=agent_input, tool_response={}, tool_use_id="toolu_agent"), at_ms=1000)
    replay.send(claude("PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="b1"), at_ms=1100)
    replay.send(claude("PreToolUse", tool_name="Bash", tool_input={"command": "pwd"}, tool_use_id="b2"), at_ms=1110)
    replay.send(claude("PostToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_response={}, tool_use_id="b1"), at_ms=1500)
    replay.send(claude("PostToolUseFailure", tool_name="Bash", tool_input={"command": "pwd"}, error="boom", tool_use_id="b2"), at_ms=1600)
    replay.send(claude("Stop"), at_ms=2000)


def export(tmp_path: Path, *args: str) -> list:
    out = tmp_path / "hooks.jsonl"
    result = otlp(*args, "-o", str(out))
    assert result.exit_code == 0, result.output
    return read_otlp_file(out)


def test_a_hook_tree_keeps_real_times_waves_overlap_and_a_subagent_nests_under_its_call(data_dir: Path, tmp_path: Path) -> None:
    claude_turn_with_waves(Replay(data_dir, agent="claude"))
    [spans] = export(tmp_path, "claude:s1")
    root = [s for s in spans if not s.parent][0]
    assert (root.name, root.start, root.end) == ("invoke_agent claude-code", BASE_NS, BASE_NS + 2000 * MS)
    assert root.attrs["agentscan.source"] == "hooks" and root.attrs["agentscan.timing"] == "observed"
    assert root.attrs["agentscan.turn.id"] == "p-1" and root.attrs["gen_ai.conversation.id"] == "s1"

    agent_call = one(spans, "execute_tool Agent")
    explore = one(spans, "invoke_agent Explore")
    assert explore.parent == agent_call.span_id and explore.within(agent_call)
    assert (explore.start, explore.end) == (BASE_NS + 120 * MS, BASE_NS + 900 * MS)
    grep, read = one(spans, "execute_tool Grep"), one(spans, "execute_tool Read")
    assert grep.parent == read.parent == explore.span_id
    assert grep.overlaps(read) and grep.attrs["agentscan.parallel_group"] == read.attrs["agentscan.parallel_group"]

    ls, pwd = by_name(spans, "execute_tool Bash")
    assert ls.overlaps(pwd) and ls.parent == pwd.parent == root.span_id
    assert (ls.start, ls.end) == (BASE_NS + 1100 * MS, BASE_NS + 1500 * MS)  # the real pre .. post times
    assert (pwd.status, pwd.attrs["error.type"], ls.status) == (2, "error", 0)
    assert not agent_call.overlaps(ls)  # sequential calls stay apart


def test_hook_turns_take_the_transcripts_llm_calls_and_the_rest_stays_from_the_transcript(
    isolated_home: Path, data_dir: Path, tmp_path: Path,
) -> None:
    """Hooks saw turn 1 of the Claude session (at the transcript's own times); turn 2 comes from the transcript."""
    claude_delegating_session(isolated_home)
    replay = Replay(data_dir, agent="claude")
    at = lambda seconds: (_ns(ts(seconds)) - BASE_NS) / MS  # noqa: E731 - the transcript's clock, in Replay's ms
    sub = {"agent_id": AGENT, "agent_type": "Explore"}
    task = {"subagent_type": "Explore", "description": "find callers", "prompt": "find callers of expire"}
    for seconds, payload in [
        (0.1, claude("UserPromptSubmit", session=SESSION, prompt="Find the cache bug")),
        (2.5, claude("PreToolUse", session=SESSION, tool_name="Read", tool_input={"file_path": "/src/cache.py"}, tool_use_id="toolu_read")),
        (4.0, claude("PostToolUse", session=SESSION, tool_name="Read", tool_input={"file_path": "/src/cache.py"}, tool_response={}, tool_use_id="toolu_read")),
        (8.0, claude("PreToolUse", session=SESSION, tool_name="Task", tool_input=task, tool_use_id="toolu_task")),
        (8.5, claude("SubagentStart", session=SESSION, **sub)),
        (12.0, claude("PreToolUse", session=SESSION, tool_name="Grep", tool_input={"pattern": "expire("}, tool_use_id="toolu_sub_grep", **sub)),
        (13.0, claude("PostToolUse", session=SESSION, tool_name="Grep", tool_input={"pattern": "expire("}, tool_response={}, tool_use_id="toolu_sub_grep", **sub)),
        (15.5, claude("SubagentStop", session=SESSION, **sub)),
        (16.0, claude("PostToolUse", session=SESSION, tool_name="Task", tool_input=task, tool_response={}, tool_use_id="toolu_task")),
        (20.5, claude("Stop", session=SESSION)),
    ]:
        replay.send(payload, at_ms=at(seconds))

    first, second = export(tmp_path)
    # The hooks missed the parallel Grep (toolu_grep): it still has a span, the transcript's.
    missed = [s for s in first if s.attrs["agentscan.source"] != "hooks" and not s.name.startswith("chat")]
    assert [(s.name, s.attrs["agentscan.source"], s.attrs["gen_ai.tool.call.id"]) for s in missed] == [
        ("execute_tool Grep", "transcript", "toolu_grep")]
    assert {s.attrs["agentscan.source"] for s in second} == {"transcript"}
    chats = [s for s in first if s.name.startswith("chat")]
    assert len(chats) == 5
    # No hook reports an LLM call: each one is the transcript's, labelled so, its end a transcript instant.
    assert {(s.attrs["agentscan.source"], s.attrs["agentscan.timing"]) for s in chats} == {("transcript", "inferred")}
    explore = one(first, "invoke_agent Explore")
    assert sorted(s.name for s in first if s.parent == explore.span_id) == [
        "chat claude-haiku-4-5-20251001", "chat claude-haiku-4-5-20251001", "execute_tool Grep"]
    # the LLM call after the Task starts when the Task call ended (a real hook time)
    after_task = max(chats, key=lambda s: s.end)
    assert (after_task.start, after_task.end) == (_ns(ts(16)), _ns(ts(20)))
    root = [s for s in first if not s.parent][0]
    assert root.attrs["agentscan.usage.total"] == sum(c.attrs["agentscan.usage.total"] for c in chats)


def test_a_cursor_hook_session_without_transcript_exports_shell_and_mcp_work(data_dir: Path, tmp_path: Path) -> None:
    replay = Replay(data_dir)
    query = {"q": "cache"}
    replay.send_all([
        prompt("fix it"),
        pre("Shell", shell_input("pytest -q"), "t-shell"),
        before_shell("pytest -q"),
        after_shell("pytest -q"),
        post("Shell", shell_input("pytest -q"), "t-shell"),
        pre("MCP:search", query, "t-mcp"),
        before_mcp("search", query, "docs"),
        after_mcp("search", query, "docs"),
        post("MCP:search", query, "t-mcp"),
        stop(input_tokens=1000, output_tokens=50, cache_read_tokens=400, cache_write_tokens=0),
    ], step_ms=100)
    [spans] = export(tmp_path, f"cursor:{CONVERSATION}")
    shell_call, shell = one(spans, "execute_tool Shell"), one(spans, "shell")
    assert shell.parent == shell_call.span_id and shell.within(shell_call)
    mcp_call, mcp = one(spans, "execute_tool search"), one(spans, "tools/call search")
    assert mcp_call.attrs["gen_ai.tool.name"] == "search" and mcp_call.attrs["gen_ai.tool.type"] == "extension"
    assert mcp.parent == mcp_call.span_id and mcp.kind == 3
    assert (mcp.attrs["mcp.method.name"], mcp.attrs["agentscan.mcp.server"]) == ("tools/call", "docs")
    root = [s for s in spans if not s.parent][0]
    assert root.service == "cursor"
    # Cursor's stop snapshot is the turn's usage when there are no per-call entries (its input_tokens
    # already counts the cached input)
    assert (root.attrs["gen_ai.usage.input_tokens"], root.attrs["gen_ai.usage.output_tokens"]) == (1000, 50)
    assert "agentscan.shell.command" not in shell.attrs  # content stays out by default


def _ns(iso: str) -> int:
    moment = parse_iso(iso)
    assert moment is not None
    return int(round(moment.timestamp() * 1_000_000)) * 1000
