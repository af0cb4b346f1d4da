"""`agentscan hook` and the store, after the pass-36 review.

* An empty payload (stdin closed with nothing on it) is logged, as docs/hooks.md says; the
  hook still exits 0 with the agent's reply.
* A lone surrogate (a ``\\ud83d`` escape with no partner) is shown as one U+FFFD, not three.
* A relative ``AGENTSCAN_DATA_DIR`` is ignored (each hook runs in the agent's directory: the
  events would be scattered): the hook stores in the default store and logs why; ``trace``
  and ``doctor`` read that store and say so.
* A payload dropped unread (over 8 MiB) is logged with its session, and ``trace`` of that
  session warns that it lost one.
* Claude's summaries count its Bash/Read/Edit calls as shell commands, file reads and edits.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.hooks import capture, envelopes
from hooks_builders import Replay, trace_doc

SESSION = "edede000-0000-4000-8000-ed0000000001"
runner = CliRunner()


def run_hook(env_extra: dict[str, str], agent: str, stdin: bytes, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, **env_extra}
    return subprocess.run([sys.executable, "-m", "agentscan", "hook", "--agent", agent], input=stdin,
                          capture_output=True, env=env, timeout=30, cwd=cwd)


def claude(event: str, **fields: Any) -> dict:
    return {"session_id": SESSION, "prompt_id": "edge-p1", "cwd": "/tmp/proj", "permission_mode": "default",
            "hook_event_name": event, **fields}


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def test_an_empty_payload_is_logged_and_still_answered(tmp_path: Path) -> None:
    root = tmp_path / "store"
    for agent, reply in (("cursor", b"{}\n"), ("claude", b"")):
        result = run_hook({"AGENTSCAN_DATA_DIR": str(root)}, agent, b"")
        assert (result.returncode, result.stdout, result.stderr) == (0, reply, b"")
    log = (root / "hook-errors.log").read_text()
    assert log.count("empty payload (stdin held nothing); nothing stored") == 2
    assert "agent=cursor" in log and "agent=claude" in log
    assert not (root / "events").exists()


def test_a_lone_surrogate_is_one_replacement_character(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send(b'{"hook_event_name":"UserPromptSubmit","session_id":"' + SESSION.encode()
                + b'","prompt_id":"p1","prompt":"cut emoji \\ud83d here"}')
    replay.send(b'{"hook_event_name":"Stop","session_id":"lone\\udc00id"}')  # a hashed file name: its id read back
    [turn] = trace_doc(f"claude:{SESSION}")["turns"]
    assert turn["prompt"] == "cut emoji \ufffd here"
    assert "cut emoji \ufffd here" in runner.invoke(app, ["trace", SESSION]).stdout
    listed = orjson.loads(runner.invoke(app, ["trace", "--list", "--json"]).stdout)["sessions"]
    assert {s["session_id"] for s in listed} == {SESSION, "lone\ufffdid"}


def test_legible_keeps_valid_text_and_replaces_each_lone_surrogate_once() -> None:
    assert envelopes.legible("plain") == "plain"
    assert envelopes.legible("caf\u00e9 \U0001f600") == "caf\u00e9 \U0001f600"
    assert envelopes.legible("a\ud83db\udc80c") == "a\ufffdb\ufffdc"


def test_a_relative_data_dir_is_ignored_by_the_hook_trace_and_doctor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    default = tmp_path / "xdg-data"
    project = tmp_path / "project"
    project.mkdir()
    env = {"AGENTSCAN_DATA_DIR": "relative-store", "XDG_DATA_HOME": str(default)}
    payload = orjson.dumps(claude("UserPromptSubmit", prompt="hi"))
    result = run_hook(env, "claude", payload, cwd=project)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert not (project / "relative-store").exists()  # not under the agent's directory
    root = default / "agentscan"
    assert (root / "events" / "claude" / f"{SESSION}.jsonl").exists()
    assert "AGENTSCAN_DATA_DIR is a relative path (relative-store), ignored: stored in" in (root / "hook-errors.log").read_text()
    # Said once, not on every event: the log is bounded, and the real problems must stay in it.
    assert run_hook(env, "claude", payload, cwd=project).returncode == 0
    assert (root / "hook-errors.log").read_text().count("is a relative path") == 1

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(project)
    traced = runner.invoke(app, ["trace", SESSION])
    assert traced.exit_code == 0, traced.output
    assert "turn 1  edge-p1" in traced.stdout
    assert f"AGENTSCAN_DATA_DIR is a relative path (relative-store), so it was ignored: trace reads {root}" in traced.stderr
    report = orjson.loads(runner.invoke(app, ["doctor", "--json"]).stdout)["hooks"]["store"]
    assert (report["path"], report["source"], report["ignored"]) == (str(root), "default", "relative-store")
    assert "AGENTSCAN_DATA_DIR is a relative path (relative-store), so it was ignored" in " ".join(
        runner.invoke(app, ["doctor"]).stdout.split())


def test_a_payload_too_large_is_logged_with_its_session_and_trace_says_so(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    inp = {"file_path": "/var/log/big.log"}
    replay.send(claude("UserPromptSubmit", prompt="read the big log"), at_ms=0)
    replay.send(claude("PreToolUse", tool_name="Read", tool_input=inp, tool_use_id="toolu_big"), at_ms=10)
    big = orjson.dumps(claude("PostToolUse", tool_name="Read", tool_input=inp, tool_use_id="toolu_big",
                              tool_response={"content": "z" * 4096}))
    # the ids come first, as the agents send them; 9 MiB in all (blanks JSON allows after the object)
    result = run_hook({"AGENTSCAN_DATA_DIR": str(data_dir)}, "claude", big + b" " * (9 * 1024 * 1024))
    assert result.returncode == 0
    log = (data_dir / "hook-errors.log").read_text()
    assert f"payload larger than 8388608 bytes, dropped (session {SESSION}, event PostToolUse)" in log
    doc = trace_doc(f"claude:{SESSION}")
    assert [w["message"] for w in doc["warnings"]] == [
        "1 hook payload of this session was dropped unread (larger than 8 MiB, or too slow to arrive): "
        "a call whose completion it was shows no status"]
    assert doc["warnings"][0]["path"] == str(data_dir / "hook-errors.log")
    # another session's trace says nothing of it
    replay.send({**claude("Stop"), "session_id": "another-session-1"}, at_ms=20)
    assert trace_doc("claude:another-session-1")["warnings"] == []


def test_whose_names_the_first_session_and_event_of_a_payload_start() -> None:
    head = b'{"session_id":"s-1","hook_event_name":"PostToolUse","tool_response":{"session_id":"other"'
    assert capture._whose(head) == " (session s-1, event PostToolUse)"
    assert capture._whose(b'{"conversation_id":"c-1","generation_id":"g"') == " (session c-1, event ?)"
    assert capture._whose(b'{"tool_response": "zzzz') == ""
    assert capture._whose(b"") == ""


def test_claude_summaries_count_its_shell_read_and_edit_calls(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="fix"), at_ms=0)
    calls = [("Bash", {"command": "pytest"}, "PostToolUse"), ("Bash", {"command": "make"}, "PostToolUseFailure"),
             ("Read", {"file_path": "/a.py"}, "PostToolUse"), ("Edit", {"file_path": "/a.py"}, "PostToolUse"),
             ("Edit", {"file_path": "/b.py"}, "PostToolUseFailure"),  # changed nothing
             ("Write", {"file_path": "/c.md"}, "PermissionDenied"),  # never ran
             ("Grep", {"pattern": "x"}, "PostToolUse")]
    at = 10
    for index, (tool, tool_input, end) in enumerate(calls):
        replay.send(claude("PreToolUse", tool_name=tool, tool_input=tool_input, tool_use_id=f"t{index}"), at_ms=at)
        replay.send(claude(end, tool_name=tool, tool_input=tool_input, tool_use_id=f"t{index}", error="no"), at_ms=at + 5)
        at += 100
    doc = trace_doc(f"claude:{SESSION}")
    for summary in (doc["summary"], doc["turns"][0]["summary"]):
        assert (summary["shell_commands"], summary["file_reads"], summary["file_edits"]) == (2, 1, 1)
