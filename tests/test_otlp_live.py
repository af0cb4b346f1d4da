"""`agentscan hook --otlp-endpoint`: each completed span is sent by a detached sender, and the
hook itself never waits for the collector."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from otlp_builders import Receiver, no_proxy, otlp, read_otlp_file  # noqa: F401 - no_proxy is a fixture
from agentscan.entry import _hook_option
from agentscan.otlp import live

pytestmark = pytest.mark.usefixtures("no_proxy")


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def hook(data_dir: Path, payload: dict[str, Any], endpoint: str) -> tuple[subprocess.CompletedProcess[bytes], float]:
    env = {**os.environ, "AGENTSCAN_DATA_DIR": str(data_dir)}
    args = [sys.executable, "-m", "agentscan", "hook", "--agent", "claude", "--otlp-endpoint", endpoint]
    started = time.monotonic()
    done = subprocess.run(args, input=orjson.dumps(payload), capture_output=True, env=env, timeout=20)
    return done, time.monotonic() - started


def claude(event: str, **fields: Any) -> dict[str, Any]:
    return {"hook_event_name": event, "session_id": "live-1", "prompt_id": "p-1", "cwd": "/repo", **fields}


BASH = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}


def counters(data_dir: Path, key: str, at_least: int = 1, seconds: float = 10.0) -> dict[str, Any]:
    """``otlp-live.json`` once its ``key`` reached ``at_least`` (senders are detached: wait, bounded)."""
    path = data_dir / live.COUNTER_FILE
    deadline = time.monotonic() + seconds
    found: dict[str, Any] = {}
    while time.monotonic() < deadline:
        if path.exists():
            found = orjson.loads(path.read_bytes())
            if found.get(key, 0) >= at_least:
                return found
        time.sleep(0.05)
    raise AssertionError(f"{key!r} below {at_least} in {path} after {seconds} s: {found}")


def test_each_completed_span_is_sent_with_the_ids_a_batch_export_gives(data_dir: Path, tmp_path: Path) -> None:
    with Receiver() as receiver:
        for payload in (claude("UserPromptSubmit", prompt="list files"), claude("PreToolUse", **BASH)):
            done, _ = hook(data_dir, payload, receiver.url)
            assert done.returncode == 0 and done.stdout == b""
        assert not receiver.wait(1, seconds=0.5)  # a prompt or a request closes nothing
        hook(data_dir, claude("PostToolUse", tool_response={}, **BASH), receiver.url)
        assert receiver.wait(1)
        hook(data_dir, claude("Stop"), receiver.url)
        assert receiver.wait(2)
        tool_request, stop_request = receiver.received
    [tool] = tool_request.spans()
    [root] = stop_request.spans()
    assert (tool.name, tool.attrs["gen_ai.tool.call.id"]) == ("execute_tool Bash", "t1")
    assert root.name == "invoke_agent claude-code" and not root.parent
    assert tool.parent == root.span_id and tool.trace_id == root.trace_id and tool.within(root)
    assert counters(data_dir, "sent", at_least=2)["spans_sent"] == 2

    out = tmp_path / "batch.jsonl"
    assert otlp("claude:live-1", "-o", str(out)).exit_code == 0
    [batch] = read_otlp_file(out)
    assert {(s.trace_id, s.span_id, s.parent) for s in batch} == {
        (s.trace_id, s.span_id, s.parent) for s in (tool, root)}  # a backend can deduplicate
    # ... and keeps either copy of the root: the same attributes, the working directory too
    # (the OTLP review s36, F6: the live root had none).
    [batch_root] = [s for s in batch if not s.parent]
    assert root.attrs.get("agentscan.cwd") == batch_root.attrs.get("agentscan.cwd") == "/repo"


def test_a_dead_collector_never_holds_the_hook_and_the_failure_is_counted(data_dir: Path) -> None:
    with socket.socket() as silent:  # accepts connections, never answers: the sender times out
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        endpoint = "http://127.0.0.1:%d" % silent.getsockname()[1]
        hook(data_dir, claude("PreToolUse", **BASH), endpoint)
        done, elapsed = hook(data_dir, claude("PostToolUse", tool_response={}, **BASH), endpoint)
        assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""
        assert elapsed < 1.0 + live.SEND_TIMEOUT_S / 2  # the hook did not wait for the sender's timeout
        found = counters(data_dir, "failed", seconds=live.SEND_TIMEOUT_S + 8)
    assert found["failed"] == 1 and "timed out" in found["last_problem"]
    assert "live export failed" in (data_dir / "hook-errors.log").read_text()


def test_when_every_sender_slot_is_busy_the_span_waits_for_the_next_sender(data_dir: Path) -> None:
    # (Pass 49: it was dropped, and a parallel batch of more than 4 calls lost spans.)
    slots = data_dir / live.SPOOL_DIR
    slots.mkdir(parents=True)
    for index in range(live.SLOTS):
        (slots / f"sender-{index}.slot").write_text("1")
    with Receiver() as receiver:
        hook(data_dir, claude("PreToolUse", **BASH), receiver.url)
        hook(data_dir, claude("PostToolUse", tool_response={}, **BASH), receiver.url)
        deadline = time.monotonic() + 10
        while not list((slots / "pending").glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(list((slots / "pending").glob("*.json"))) == 1 and receiver.received == []
        assert live.read_counts(str(data_dir)) is None  # nothing dropped, nothing sent yet
        for index in range(live.SLOTS):
            (slots / f"sender-{index}.slot").unlink()
        bash2 = {**BASH, "tool_use_id": "t2"}
        hook(data_dir, claude("PreToolUse", **bash2), receiver.url)
        hook(data_dir, claude("PostToolUse", tool_response={}, **bash2), receiver.url)  # its sender takes the queue too
        assert receiver.wait(2)
    assert sorted(span.attrs["gen_ai.tool.call.id"] for span in receiver.spans()) == ["t1", "t2"]
    assert "dropped" not in counters(data_dir, "sent", at_least=2)


def test_a_stale_slot_left_by_a_dead_sender_is_reclaimed(data_dir: Path) -> None:
    slots = data_dir / live.SPOOL_DIR
    slots.mkdir(parents=True)
    for index in range(live.SLOTS):
        path = slots / f"sender-{index}.slot"
        path.write_text("1")
        old = time.time() - live.SLOT_STALE_S - 5
        os.utime(path, (old, old))
    with Receiver() as receiver:
        hook(data_dir, claude("PreToolUse", **BASH), receiver.url)
        hook(data_dir, claude("PostToolUse", tool_response={}, **BASH), receiver.url)
        assert receiver.wait(1)
    assert counters(data_dir, "sent")["sent"] == 1


def test_only_events_that_close_a_span_start_a_sender(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr(live, "_spawn_detached", started.append)
    envelope = {"agent": "claude", "session_id": "s", "received_at_ns": 1, "turn_id": "p"}
    assert not live.dispatch(str(tmp_path), {**envelope, "event": "PreToolUse"}, "http://127.0.0.1:9")
    assert not live.dispatch(str(tmp_path), {**envelope, "event": "PostToolUse", "session_id": None}, "http://127.0.0.1:9")
    assert live.dispatch(str(tmp_path), {**envelope, "event": "PostToolUse"}, "http://127.0.0.1:9")
    [argv] = started
    assert argv[1:3] == ["-m", "agentscan.otlp.live"] and argv[3:] == [str(tmp_path), "claude", "s", "1", "PostToolUse", "p", "http://127.0.0.1:9"]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--agent", "claude", "--otlp-endpoint", "http://c:4318"], "http://c:4318"),
        (["--otlp-endpoint=http://c:4318/v1/traces"], "http://c:4318/v1/traces"),
        (["--agent", "cursor"], None),
        (["--otlp-endpoint"], None),  # a dangling option is ignored, never an error
    ],
)
def test_the_fast_path_reads_the_endpoint_from_argv(argv: list[str], expected: str | None) -> None:
    assert _hook_option(argv, "--otlp-endpoint") == expected
