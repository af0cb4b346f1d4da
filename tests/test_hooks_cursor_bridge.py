"""Cursor's "third-party hooks" run the hooks installed for Claude Code too.

Cursor then feeds ``agentscan hook --agent claude`` its own payloads (``cursor_version``,
``conversation_id``, camelCase event names).  Such a payload is a Cursor event: stored in
the Cursor session (marked ``via: claude``), never as a Claude session of its own; when
Cursor's own hook delivers the same event too, the trace counts it once.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from agentscan.hooks import capture, hook_event_counts, store
from hooks_builders import (
    CONVERSATION, Replay, cursor, ok, post, pre, prompt, shell_input, stop, tool_calls, trace_doc,
)


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def turn() -> list[dict]:
    command = shell_input("git status")
    return [prompt("status?"), pre("Shell", command, "call-1"), post("Shell", command, "call-1"), stop()]


def test_a_cursor_payload_at_the_claude_hook_is_stored_as_cursors(data_dir: Path) -> None:
    Replay(data_dir, agent="claude").send_all(turn())

    assert not (data_dir / "events" / "claude").exists()  # no phantom Claude session
    [line, *_] = Replay(data_dir).lines()
    assert (line["agent"], line["via"], line["session_id"]) == ("cursor", "claude", CONVERSATION)
    listed = orjson.loads(ok("trace", "--list", "--json").stdout)["sessions"]
    assert [s["id"] for s in listed] == [f"cursor:{CONVERSATION}"]
    doc = trace_doc(f"cursor:{CONVERSATION}")
    assert [c["name"] for c in tool_calls(doc["turns"][0]["nodes"])] == ["Shell"]
    assert doc["warnings"] == []


def test_an_event_from_both_hooks_counts_once_with_its_own_note(data_dir: Path) -> None:
    own, bridged = Replay(data_dir), Replay(data_dir, agent="claude")
    for i, payload in enumerate(turn()):  # Cursor runs its own hook and Claude Code's for each event
        own.send(payload, at_ms=i * 100)
        bridged.send(payload, at_ms=i * 100 + 3)

    doc = trace_doc(f"cursor:{CONVERSATION}")
    [call] = tool_calls(doc["turns"][0]["nodes"])
    assert (call["name"], call["status"], call["provenance"]) == ("Shell", "ok", "native")
    assert doc["summary"]["orphans"] == 0
    [warning] = doc["warnings"]
    assert warning["message"].startswith("4 Cursor hook events came twice, through Cursor's own hook")
    assert "registered in more than one settings file" not in warning["message"]
    # show's count of the session's events counts each once, as trace does
    assert hook_event_counts([f"cursor:{CONVERSATION}"]) == {f"cursor:{CONVERSATION}": 4}
    assert store.count_envelopes(store.session_path(str(data_dir), "cursor", CONVERSATION)) == 8


def test_a_cursor_event_name_with_a_conversation_id_is_enough(data_dir: Path) -> None:
    payload = cursor("afterAgentResponse", text="done")
    del payload["cursor_version"]
    assert capture.is_cursor_payload(payload)
    assert capture.capture(str(data_dir), "claude", orjson.dumps(payload), 1) == "cursor"
    # a Claude payload stays Claude's, even one that names a conversation id in its input
    claude = {"hook_event_name": "PreToolUse", "session_id": "s1", "prompt_id": "p1",
              "tool_name": "Bash", "tool_input": {"conversation_id": "x", "cursor_version": "1"}}
    assert not capture.is_cursor_payload(claude)
    assert capture.capture(str(data_dir), "claude", orjson.dumps(claude), 2) == "claude"
    [line] = Replay(data_dir, agent="claude").lines("s1")
    assert "via" not in line


def test_the_hook_still_answers_as_the_claude_hook_it_is(data_dir: Path) -> None:
    env = {**os.environ, "AGENTSCAN_DATA_DIR": str(data_dir)}
    result = subprocess.run([sys.executable, "-m", "agentscan", "hook", "--agent", "claude"],
                            input=orjson.dumps(turn()[1]), capture_output=True, env=env, timeout=20)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")  # Cursor reads a Claude hook's reply
    assert (data_dir / "events" / "cursor" / f"{CONVERSATION}.jsonl").is_file()
