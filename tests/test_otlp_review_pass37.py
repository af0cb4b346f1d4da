"""The OTLP review's last findings: a hook turn keeps the transcript's tool calls its hooks
missed (F5); a hook turn's answer is its output message (F10); `doctor` counts the live
export (F8)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from hooks_builders import BASE_NS, MS, Replay
from otlp_builders import AGENT, SESSION, claude_delegating_session, one, otlp, read_otlp_file, runner, ts
from agentscan.cli import app
from agentscan.timeutil import parse_iso


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def claude(event: str, session: str = SESSION, **fields: Any) -> dict[str, Any]:
    return {"hook_event_name": event, "session_id": session, "cwd": "/repo", "prompt_id": "p-1", **fields}


def _ms(seconds: float) -> float:
    """The transcript's clock (``otlp_builders.ts``) in ``Replay``'s milliseconds."""
    parsed = parse_iso(ts(seconds))
    assert parsed is not None
    return (int(round(parsed.timestamp() * 1_000_000)) * 1000 - BASE_NS) / MS


def _export(tmp_path: Path, *args: str) -> list:
    out = tmp_path / "t.jsonl"
    result = otlp(*args, "-o", str(out))
    assert result.exit_code == 0, result.output
    return read_otlp_file(out)


def test_a_hook_turn_keeps_the_transcripts_tool_calls_its_hooks_missed_under_their_subagent(
        isolated_home: Path, data_dir: Path, tmp_path: Path) -> None:
    """The hooks saw the turn but not the subagent's Grep nor the parent's Read (lost hooks)."""
    claude_delegating_session(isolated_home)
    replay = Replay(data_dir, agent="claude")
    sub = {"agent_id": AGENT, "agent_type": "Explore"}
    task = {"subagent_type": "Explore", "description": "find callers", "prompt": "find callers of expire"}
    grep = {"pattern": "expire sk-ant-abcdefghijklmnopqrstuvwx"}
    for seconds, payload in [
        (0.1, claude("UserPromptSubmit", prompt="Find the cache bug")),
        (2.7, claude("PreToolUse", tool_name="Grep", tool_input=grep, tool_use_id="toolu_grep")),
        (5.0, claude("PostToolUse", tool_name="Grep", tool_input=grep, tool_response={}, tool_use_id="toolu_grep")),
        (8.0, claude("PreToolUse", tool_name="Task", tool_input=task, tool_use_id="toolu_task")),
        (8.5, claude("SubagentStart", **sub)),
        (15.5, claude("SubagentStop", **sub)),
        (16.0, claude("PostToolUse", tool_name="Task", tool_input=task, tool_response={}, tool_use_id="toolu_task")),
        (20.5, claude("Stop")),
    ]:
        replay.send(payload, at_ms=_ms(seconds))
    first, _ = _export(tmp_path)
    by_source = {(s.name, s.attrs["agentscan.source"]) for s in first if s.name.startswith("execute_tool")}
    assert by_source == {("execute_tool Read", "transcript"), ("execute_tool Grep", "hooks"),
                         ("execute_tool Task", "hooks"), ("execute_tool Grep", "transcript")}
    read = one(first, "execute_tool Read")
    assert read.attrs["agentscan.timing"] == "inferred" and read.attrs["gen_ai.tool.call.id"] == "toolu_read"
    root = [s for s in first if not s.parent][0]
    assert read.parent == root.span_id and read.within(root)
    explore = one(first, "invoke_agent Explore")
    [sub_grep] = [s for s in first if s.attrs.get("gen_ai.tool.call.id") == "toolu_sub_grep"]
    assert sub_grep.parent == explore.span_id and sub_grep.attrs["agentscan.source"] == "transcript"
    # Its id is the one a transcript export gives the call: the key is the tool call id.
    assert len({s.span_id for s in first}) == len(first)


def test_a_hook_only_claude_turn_has_its_stops_answer_as_output_message(data_dir: Path, tmp_path: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", session="solo", prompt="hi"), at_ms=0)
    replay.send(claude("Stop", session="solo", last_assistant_message="Hello there."), at_ms=500)
    [spans] = _export(tmp_path, "claude:solo", "--include-content")
    root = spans[0]
    assert json.loads(root.attrs["gen_ai.output.messages"]) == [
        {"role": "assistant", "parts": [{"type": "text", "content": "Hello there."}]}]
    [spans] = _export(tmp_path, "claude:solo")
    assert "gen_ai.output.messages" not in spans[0].attrs  # content stays off by default


def test_doctor_counts_the_live_export(data_dir: Path) -> None:
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 0 and "live OTLP export" not in result.stdout  # no live span yet: no line
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "otlp-live.json").write_bytes(orjson.dumps(
        {"sent": 12, "spans_sent": 30, "failed": 2, "dropped": 1, "last_problem": "1 span of Stop: timed out"}))
    (data_dir / "otlp").mkdir(exist_ok=True)
    (data_dir / "otlp" / "sender-0.slot").write_text("123")  # a sender at work now
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    assert ("  live OTLP export: 12 sent (30 spans), 2 failed, 1 dropped, 1 pending; last problem: 1 span of Stop: "
            "timed out") in result.stdout.splitlines()
    report = orjson.loads(runner.invoke(app, ["doctor", "--json"]).stdout)
    assert report["hooks"]["live_export"] == {"sent": 12, "spans_sent": 30, "failed": 2, "dropped": 1, "skipped": 0,
                                              "pending": 1, "last_problem": "1 span of Stop: timed out"}


def test_doctor_json_has_no_live_export_before_its_first_span(data_dir: Path) -> None:
    report = orjson.loads(runner.invoke(app, ["doctor", "--json"]).stdout)
    assert report["hooks"]["live_export"] is None


@pytest.mark.parametrize(("provider", "call_id", "added"), [
    ("claude", "toolu_read", True),   # a call the hooks did not see, by the id both name it by
    ("claude", None, False),          # told by no id: it may be one the hooks saw
    ("cursor", "call-1\nfc_2", False),  # a Cursor hook's id is not its transcript's: each twice
])
def test_only_a_claude_call_named_by_its_id_is_added_as_missed(provider: str, call_id: str | None,
                                                               added: bool) -> None:
    from agentscan.detailmodel import ToolEvent
    from agentscan.hooks.model import SessionInfo, Trace, Turn
    from agentscan.otlp import semconv as sc
    from agentscan.otlp.builder import SessionFacts
    from agentscan.otlp.from_hooks import hook_traces
    from agentscan.otlp.timeline import Instant

    turn = Turn(id="t1", prompt="go", nodes=(), started_ns=BASE_NS, ended_ns=BASE_NS + 10 * MS)
    info = SessionInfo(agent=provider, native_id="s", workspace=None, status="ended", started_ns=BASE_NS,
                       ended_ns=BASE_NS + 10 * MS, transcript_path=None, transcript_session_id=None)
    trace = Trace(session=info, turns=(turn,), summary=None)
    facts = SessionFacts(provider=provider, native_id="s", source="hooks", content=sc.Content())
    tool = Instant(at_ns=BASE_NS + MS, kind=0, agent=None, item=ToolEvent("Read", "a.py", call_id=call_id),
                   key=call_id or "k", start_ns=BASE_NS + MS, end_ns=BASE_NS + 2 * MS)
    [exported] = hook_traces(trace, facts, tools=[tool])
    assert any(span.name == "execute_tool Read" for span in exported.spans) == added
