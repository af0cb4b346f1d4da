"""`agentscan otlp` after the review: a tool's error text under the content rules (batch and
live), unfinished calls marked as such, a typo'd id, `-q`, and subagent placement that says
how it was found in both sources.

Payload sequences follow the ones the reviewer fed through `agentscan hook`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.otlp import live
from hooks_builders import BASE_NS, MS, Replay
from otlp_builders import SESSION, claude_delegating_session, one, otlp, read_otlp_file, runner

HOOK_SESSION = "11111111-2222-3333-4444-555555555555"
ERROR_TEXT = "AssertionError: expected sk-live-0123456789 in /home/dev/.netrc"


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def claude(event: str, prompt_id: str | None = "p-1", **fields: Any) -> dict:
    payload: dict = {"hook_event_name": event, "session_id": HOOK_SESSION, "cwd": "/tmp/proj",
                     "transcript_path": f"/nowhere/{HOOK_SESSION}.jsonl", "permission_mode": "default", **fields}
    if prompt_id:
        payload["prompt_id"] = prompt_id
    return payload


def failing_turn(replay: Replay) -> int:
    """A Bash call that fails with ``ERROR_TEXT``, then the stop; returns the failure's capture time."""
    bash = {"command": "pytest -q"}
    replay.send(claude("UserPromptSubmit", prompt="Fix the failing tests"), at_ms=0)
    replay.send(claude("PreToolUse", tool_name="Bash", tool_input=bash, tool_use_id="toolu_D"), at_ms=100)
    failed_at = replay.send(claude("PostToolUseFailure", tool_name="Bash", tool_input=bash, tool_use_id="toolu_D",
                                   error=ERROR_TEXT, is_interrupt=False), at_ms=400)
    replay.send(claude("Stop", stop_hook_active=False), at_ms=500)
    return failed_at


def raw_spans(path: Path) -> list[dict]:
    return [span for line in path.read_bytes().splitlines()
            for rs in orjson.loads(line)["resourceSpans"] for ss in rs["scopeSpans"] for span in ss["spans"]]


# --- 1. the tool's error text is content --------------------------------------------------


@pytest.mark.parametrize(("flags", "message"), [
    ((), "error"),
    (("--redact",), "error"),
    (("--include-content",), ERROR_TEXT),
    (("--include-content", "--redact"), f"[redacted: {len(ERROR_TEXT)} chars, #"),
])
def test_a_failed_call_s_error_text_leaves_only_as_content(data_dir: Path, tmp_path: Path, flags: tuple, message: str) -> None:
    failing_turn(Replay(data_dir, agent="claude"))
    out = tmp_path / "t.jsonl"
    result = otlp(f"claude:{HOOK_SESSION}", *flags, "-o", str(out))
    assert result.exit_code == 0, result.output

    [bash] = [s for s in raw_spans(out) if s["name"] == "execute_tool Bash"]
    assert bash["status"]["code"] == 2
    assert bash["status"]["message"].startswith(message)
    if "--include-content" not in flags or "--redact" in flags:
        assert b"sk-live" not in out.read_bytes() and b"AssertionError" not in out.read_bytes()
    error_type = next(a["value"]["stringValue"] for a in bash["attributes"] if a["key"] == "error.type")
    assert error_type == "error"


def test_the_live_sender_sends_no_error_text(data_dir: Path) -> None:
    failed_at = failing_turn(Replay(data_dir, agent="claude"))

    closed = live.closed_spans(str(data_dir), "claude", HOOK_SESSION, failed_at, "PostToolUseFailure", "p-1")
    [span] = closed.spans
    assert (span.name, span.status_code, span.status_message) == ("execute_tool Bash", 2, "error")
    assert "sk-live" not in repr(span)


# --- 15. unfinished calls -------------------------------------------------------------------


def unfinished_turn(replay: Replay) -> int:
    """A Bash call and an Explore subagent that never complete while a Read does; returns the Read's end."""
    agent_input = {"subagent_type": "Explore", "prompt": "look", "description": "explore"}
    replay.send(claude("UserPromptSubmit", prompt="Now commit"), at_ms=0)
    replay.send(claude("PreToolUse", tool_name="Bash", tool_input={"command": "git commit -am x"}, tool_use_id="toolu_E"), at_ms=100)
    replay.send(claude("PreToolUse", tool_name="Agent", tool_input=agent_input, tool_use_id="toolu_F"), at_ms=150)
    replay.send(claude("SubagentStart", agent_id="ag1", agent_type="Explore"), at_ms=160)
    replay.send(claude("PreToolUse", tool_name="Read", tool_input={"file_path": "/a"}, tool_use_id="toolu_R"), at_ms=200)
    return replay.send(claude("PostToolUse", tool_name="Read", tool_input={"file_path": "/a"}, tool_use_id="toolu_R",
                              tool_response={}), at_ms=900)


def test_an_unfinished_call_is_marked_and_runs_until_its_turn_was_last_seen(data_dir: Path, tmp_path: Path) -> None:
    unfinished_turn(Replay(data_dir, agent="claude"))
    out = tmp_path / "t.jsonl"
    assert otlp(f"claude:{HOOK_SESSION}", "-o", str(out)).exit_code == 0
    [spans] = read_otlp_file(out)

    bash, read = one(spans, "execute_tool Bash"), one(spans, "execute_tool Read")
    assert bash.attrs["agentscan.tool.status"] == "unfinished"
    assert bash.status == 0 and "error.type" not in bash.attrs  # not a failure either
    assert (bash.start, bash.end) == (BASE_NS + 100 * MS, BASE_NS + 900 * MS)  # not a 0 ms call
    assert read.attrs["agentscan.tool.status"] == "ok"
    explore = one(spans, "invoke_agent Explore")
    assert explore.attrs["agentscan.subagent.status"] == "unfinished"
    assert (explore.start, explore.end) == (BASE_NS + 160 * MS, BASE_NS + 900 * MS)


def test_the_live_sender_leaves_unfinished_calls_out(data_dir: Path) -> None:
    # The Read's completion is the turn's latest event, where the unfinished calls now end:
    # they must not go out as if that event had closed them.
    read_end = unfinished_turn(Replay(data_dir, agent="claude"))
    closed = live.closed_spans(str(data_dir), "claude", HOOK_SESSION, read_end, "PostToolUse", "p-1")
    assert [span.name for span in closed.spans] == ["execute_tool Read"]


def test_a_session_delivered_twice_exports_as_if_once(data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    once, twice = tmp_path / "once", tmp_path / "twice"
    failing_turn(Replay(once, agent="claude"))
    replay = Replay(twice, agent="claude")
    for at, payload in ((0, claude("UserPromptSubmit", prompt="Fix the failing tests")),
                        (100, claude("PreToolUse", tool_name="Bash", tool_input={"command": "pytest -q"}, tool_use_id="toolu_D")),
                        (400, claude("PostToolUseFailure", tool_name="Bash", tool_input={"command": "pytest -q"},
                                     tool_use_id="toolu_D", error=ERROR_TEXT, is_interrupt=False)),
                        (500, claude("Stop", stop_hook_active=False))):
        replay.send(payload, at_ms=at)
        replay.send(payload, at_ms=at + 30)

    def export(root: Path) -> tuple[bytes, Any]:
        monkeypatch.setenv("AGENTSCAN_DATA_DIR", str(root))
        out = root / "t.jsonl"
        result = runner.invoke(_app(), ["otlp", f"claude:{HOOK_SESSION}", "-o", str(out), "--json"])
        assert result.exit_code == 0, result.output
        return out.read_bytes(), orjson.loads(result.stdout)["warnings"]

    single, no_warnings = export(once)
    doubled, warnings = export(twice)
    assert doubled == single and no_warnings == []
    assert ["4 hook events were delivered twice" in w["message"] for w in warnings] == [True]


def test_a_second_delivery_of_a_closing_event_sends_nothing_again(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="go"), at_ms=0)
    stop = claude("Stop", stop_hook_active=False)
    first = replay.send(stop, at_ms=100)
    second = replay.send(stop, at_ms=140)  # agentscan registered twice

    assert [s.name for s in live.closed_spans(str(data_dir), "claude", HOOK_SESSION, first, "Stop", "p-1").spans] == [
        "invoke_agent claude-code"]
    assert live.closed_spans(str(data_dir), "claude", HOOK_SESSION, second, "Stop", "p-1") is None


# --- 9. an id that matches nothing --------------------------------------------------------


def test_a_typo_d_id_says_no_session_matches_it(data_dir: Path, tmp_path: Path) -> None:
    failing_turn(Replay(data_dir, agent="claude"))  # the store holds a hook session: hooks are installed

    result = otlp("claude:deadbeef-0000", "-o", str(tmp_path / "t.jsonl"))
    assert result.exit_code != 0
    assert "no session matches 'claude:deadbeef-0000'" in result.output
    assert "hooks install" not in result.output
    assert not (tmp_path / "t.jsonl").exists()


# --- -q prints nothing on success ---------------------------------------------------------


@pytest.mark.parametrize("extra", [(), ("--json",)])
def test_quiet_prints_nothing_on_success(data_dir: Path, tmp_path: Path, extra: tuple) -> None:
    failing_turn(Replay(data_dir, agent="claude"))
    out = tmp_path / "t.jsonl"

    loud = runner.invoke(_app(), ["otlp", f"claude:{HOOK_SESSION}", "-o", str(out), *extra])
    assert loud.exit_code == 0 and loud.stdout.strip()
    quiet = runner.invoke(_app(), ["-q", "otlp", f"claude:{HOOK_SESSION}", "-o", str(out), *extra])
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stdout == "" and quiet.stderr == ""
    assert out.stat().st_size > 0


def _app() -> Any:
    from agentscan.cli import app

    return app


# --- 18. how a subagent's place was found, in both sources -------------------------------


def test_hook_subagents_no_id_places_stay_under_the_turn_marked_orphan(data_dir: Path, tmp_path: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="Investigate"), at_ms=0)
    for i, kind in (("1", "Explore"), ("2", "Explore"), ("3", "Plan")):
        replay.send(claude("PreToolUse", tool_name="Agent", tool_use_id=f"toolu_T{i}",
                           tool_input={"subagent_type": kind, "prompt": f"task {i}"}), at_ms=10 * int(i))
    for i, kind in (("1", "Explore"), ("2", "Explore"), ("3", "Plan")):
        replay.send(claude("SubagentStart", agent_id=f"ag{i}", agent_type=kind), at_ms=100 + 10 * int(i))
    for i, kind in (("3", "Plan"), ("1", "Explore"), ("2", "Explore")):
        replay.send(claude("SubagentStop", agent_id=f"ag{i}", agent_type=kind), at_ms=500 + 100 * int(i))
        replay.send(claude("PostToolUse", tool_name="Agent", tool_use_id=f"toolu_T{i}", tool_response={},
                           tool_input={"subagent_type": kind, "prompt": f"task {i}"}), at_ms=510 + 100 * int(i))
    out = tmp_path / "t.jsonl"
    assert otlp(f"claude:{HOOK_SESSION}", "-o", str(out)).exit_code == 0
    [spans] = read_otlp_file(out)

    root = one(spans, "invoke_agent claude-code")
    calls = {s.attrs["gen_ai.tool.call.id"]: s for s in spans if s.name == "execute_tool Agent"}
    agents = {s.attrs["gen_ai.agent.id"]: s for s in spans if s.name.startswith("invoke_agent ") and s is not root}
    assert (agents["ag3"].parent, agents["ag3"].attrs["agentscan.provenance"]) == (calls["toolu_T3"].span_id, "correlated")
    for agent_id in ("ag1", "ag2"):
        assert (agents[agent_id].parent, agents[agent_id].attrs["agentscan.provenance"]) == (root.span_id, "orphan")


def test_transcript_subagents_say_they_were_placed_by_time_and_order(isolated_home: Path, tmp_path: Path) -> None:
    claude_delegating_session(isolated_home)
    out = tmp_path / "t.jsonl"
    assert otlp(f"claude:{SESSION}", "-o", str(out)).exit_code == 0
    spans = [span for line in read_otlp_file(out) for span in line]

    explore = one(spans, "invoke_agent Explore")
    assert explore.parent == one(spans, "execute_tool Task").span_id
    assert explore.attrs["agentscan.provenance"] == "inferred"


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again when the block ends: nothing listens there


def test_a_refused_connection_is_said_in_words_not_errno(isolated_home: Path) -> None:
    claude_delegating_session(isolated_home)
    result = otlp("--endpoint", f"http://127.0.0.1:{_closed_port()}", "--retries", "0")
    assert result.exit_code == 1
    assert "connection refused (is the server running" in result.stderr and "[Errno" not in result.stderr


def test_https_to_a_plain_http_port_says_so(isolated_home: Path) -> None:
    import http.server
    import threading

    claude_delegating_session(isolated_home)
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        result = otlp("--endpoint", f"https://127.0.0.1:{server.server_address[1]}", "--retries", "0")
    finally:
        server.shutdown()
        server.server_close()
    assert result.exit_code == 1
    assert "does not speak TLS here" in result.stderr and "_ssl.c" not in result.stderr, result.stderr
