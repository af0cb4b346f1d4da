"""`agentscan hook`, run as the agent runs it: a subprocess fed one payload on stdin.

Whatever happens it must print the agent's reply (`{}` for Cursor, nothing
for Claude) and exit 0, quickly: a broken observer must never block the agent.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from hooks_builders import CONVERSATION, GENERATION, HARNESSSPY, before_read, load_fixture, pre, shell_input


def run_hook(data_dir: Path, agent: str | None, stdin: bytes, *extra: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "AGENTSCAN_DATA_DIR": str(data_dir)}
    args = [sys.executable, "-m", "agentscan", "hook", *(["--agent", agent] if agent else []), *extra]
    return subprocess.run(args, input=stdin, capture_output=True, env=env, timeout=20)


def envelopes(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "store"


def test_a_cursor_payload_becomes_one_private_envelope_line_and_cursor_gets_braces(data_dir: Path) -> None:
    payload = pre("Shell", shell_input("git status"), "call-1\nfc_2")  # an id with a newline, as Cursor sends
    result = run_hook(data_dir, "cursor", orjson.dumps(payload))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"{}\n", b"")

    path = data_dir / "events" / "cursor" / f"{CONVERSATION}.jsonl"
    [envelope] = envelopes(path)
    assert envelope["agent"] == "cursor" and envelope["event"] == "preToolUse"
    assert (envelope["session_id"], envelope["turn_id"]) == (CONVERSATION, GENERATION)
    assert abs(envelope["received_at_ns"] - time.time_ns()) < 60 * 10**9
    assert envelope["payload"]["tool_use_id"] == "call-1\nfc_2"
    assert envelope["payload"]["user_email"] == "[redacted]"  # never kept
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        for folder in (data_dir, data_dir / "events", data_dir / "events" / "cursor"):
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_every_real_claude_payload_is_stored_and_claude_gets_no_output(data_dir: Path) -> None:
    payloads = load_fixture("claude-code-default-events.json")
    for payload in payloads:
        result = run_hook(data_dir, "claude", json.dumps(payload).encode())
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    stored = envelopes(data_dir / "events" / "claude" / "s1.jsonl")
    assert [e["event"] for e in stored] == [p["hook_event_name"] for p in payloads]
    assert [e["payload"] for e in stored] == payloads
    assert [e["turn_id"] for e in stored][:3] == [None, "p1", "p1"]  # prompt_id, absent before the first prompt


def test_concurrent_hooks_append_whole_lines(data_dir: Path) -> None:
    env = {**os.environ, "AGENTSCAN_DATA_DIR": str(data_dir)}
    big = "x" * 200_000  # well past a pipe buffer: a torn write would show
    payloads = [orjson.dumps(pre("Write", {"file_path": f"/f{i}", "content": big}, f"w-{i}")) for i in range(8)]
    procs = [
        subprocess.Popen([sys.executable, "-m", "agentscan", "hook", "--agent", "cursor"], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, env=env)
        for _ in payloads
    ]
    for proc, payload in zip(procs, payloads):
        proc.stdin.write(payload)  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]
    assert [proc.wait(timeout=30) for proc in procs] == [0] * 8
    stored = envelopes(data_dir / "events" / "cursor" / f"{CONVERSATION}.jsonl")
    assert sorted(e["payload"]["tool_use_id"] for e in stored) == [f"w-{i}" for i in range(8)]


@pytest.mark.parametrize("stdin", [b"{not json", b"", b"[1, 2]", b"\xff\xfe garbage"])
def test_bad_input_still_exits_0_with_the_reply_and_is_logged(data_dir: Path, stdin: bytes) -> None:
    result = run_hook(data_dir, "cursor", stdin)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"{}\n", b"")
    assert not (data_dir / "events").exists()
    if stdin:
        assert "agent=cursor" in (data_dir / "hook-errors.log").read_text()


def test_an_unwritable_store_still_exits_0_with_the_reply(tmp_path: Path) -> None:
    # Tests run as root, for whom a chmod-0500 directory is still writable; a
    # store dir *below a regular file* cannot be created by anyone, so both the
    # events and the diagnostics log fail to open.
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    payload = orjson.dumps(pre("Read", {"file_path": "/x"}, "r-1"))
    for agent, reply in (("cursor", b"{}\n"), ("claude", b"")):
        result = run_hook(blocker / "store", agent, payload)
        assert (result.returncode, result.stdout, result.stderr) == (0, reply, b"")
    assert blocker.read_text() == "not a directory"


def test_unknown_arguments_and_a_missing_agent_are_not_usage_errors(data_dir: Path) -> None:
    # exit 2 would mean "deny" to Cursor: the hook must shrug off a misconfigured command
    payload = orjson.dumps(pre("Read", {"file_path": "/x"}, "r-1"))
    result = run_hook(data_dir, None, payload, "--event", "preToolUse", "surplus")
    assert (result.returncode, result.stdout) == (0, b"{}\n")  # detected as Cursor from cursor_version
    assert (data_dir / "events" / "cursor" / f"{CONVERSATION}.jsonl").is_file()


def test_file_contents_from_before_read_file_are_not_kept(data_dir: Path) -> None:
    secret = "API_KEY=hunter2\n" * 10
    run_hook(data_dir, "cursor", orjson.dumps(before_read("/work/repo/.env", content=secret)))
    [envelope] = envelopes(data_dir / "events" / "cursor" / f"{CONVERSATION}.jsonl")
    assert envelope["payload"]["content"] == f"[redacted: {len(secret)} chars]"
    assert "hunter2" not in (data_dir / "events" / "cursor" / f"{CONVERSATION}.jsonl").read_text()


@pytest.mark.skipif(os.name != "posix", reason="select() on pipes")
def test_a_stdin_that_never_closes_does_not_hold_the_agent(data_dir: Path) -> None:
    env = {**os.environ, "AGENTSCAN_DATA_DIR": str(data_dir)}
    proc = subprocess.Popen([sys.executable, "-m", "agentscan", "hook", "--agent", "cursor"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    try:
        proc.stdin.write(b'{"hook_event_name": "stop"')  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        started = time.monotonic()
        assert proc.wait(timeout=10) == 0
        # the agent's budget (0.7 s) bounds the wait, whatever the interpreter's start-up cost
        assert time.monotonic() - started < 5
        assert proc.stdout.read() == b"{}\n"  # type: ignore[union-attr]
        # A detached child read on for the payload's own budget (5 s), then logged the drop.
        log = data_dir / "hook-errors.log"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (log.exists() and "stdin still open" in log.read_text()):
            time.sleep(0.1)
    finally:
        proc.kill()
        proc.stdin.close()  # type: ignore[union-attr]
        proc.stdout.close()  # type: ignore[union-attr]
    assert "stdin still open after 5s; payload of 26 bytes so far dropped" in (data_dir / "hook-errors.log").read_text()


def test_the_fixtures_are_where_the_tests_expect_them() -> None:
    assert (HARNESSSPY / "claude-code-default-events.json").is_file()


@pytest.mark.parametrize("stdin, kind", [(b"[1, 2]", "an array"), (b"null", "null"), (b"7", "a number")])
def test_a_payload_that_is_no_object_is_logged_in_json_s_words(data_dir: Path, stdin: bytes, kind: str) -> None:
    result = run_hook(data_dir, "cursor", stdin)
    assert (result.returncode, result.stdout) == (0, b"{}\n")
    assert f"payload is {kind}, not a JSON object" in (data_dir / "hook-errors.log").read_text()
