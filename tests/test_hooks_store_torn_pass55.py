"""The events store after a hook stopped mid-line (pass 55): a full disk (RLIMIT_FSIZE stands
in for one) or a killed hook leaves the start of a line with no newline, and the next event
must not be glued to it and lost with it; a store glued so by an older agentscan is read
back, event after the fragment included.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from agentscan.hooks import envelopes, store
from hooks_builders import Replay, trace_doc

SESSION = "70e70e00-0000-4000-8000-70e000000001"


def claude(event: str, **fields: object) -> dict:
    return {"session_id": SESSION, "prompt_id": "torn-p1", "cwd": "/tmp/proj", "permission_mode": "default",
            "hook_event_name": event, **fields}


def bash(tool_use_id: str, command: str) -> dict:
    return {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": tool_use_id}


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def events_file(data_dir: Path) -> Path:
    return Path(store.session_path(str(data_dir), "claude", SESSION))


def test_an_event_after_a_line_cut_short_is_written_on_a_line_of_its_own(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="go"))
    path = events_file(data_dir)
    first = path.read_bytes()
    with path.open("ab") as handle:
        handle.write(first[:70])  # a hook killed halfway through its append
    replay.send(claude("PreToolUse", **bash("toolu_1", "make")))
    replay.send(claude("PostToolUse", **bash("toolu_1", "make"), tool_response={"stdout": ""}))
    lines = path.read_bytes().split(b"\n")
    assert lines[1] == first[:70] and orjson.loads(lines[2])["event"] == "PreToolUse"
    doc = trace_doc(f"claude:{SESSION}")
    [call] = doc["turns"][0]["nodes"]
    assert (call["name"], call["status"]) == ("Bash", "ok")
    assert [(w["line"], w["message"]) for w in doc["warnings"]] == [(2, envelopes.CUT_SHORT)]


def test_an_event_glued_to_a_fragment_by_an_older_hook_is_read(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="go"))
    replay.send(claude("PreToolUse", **bash("toolu_1", "make")))
    path = events_file(data_dir)
    prompt_line, pre_line = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(prompt_line + pre_line[:50] + pre_line)  # as an agentscan before pass 55 left it
    doc = trace_doc(f"claude:{SESSION}")
    [call] = doc["turns"][0]["nodes"]
    assert call["name"] == "Bash"
    [warning] = doc["warnings"]
    assert warning["line"] == 2 and warning["message"].startswith(envelopes.CUT_SHORT)
    assert "the event written after it on the same line was read" in warning["message"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE stands in for a full disk")
def test_a_hook_that_hits_a_full_disk_costs_only_its_own_event(data_dir: Path) -> None:
    def hook(payload: dict, limit: int | None = None) -> subprocess.CompletedProcess[bytes]:
        def cap() -> None:
            import resource

            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

        return subprocess.run([sys.executable, "-m", "agentscan", "hook", "--agent", "claude"],
                              input=orjson.dumps(payload), capture_output=True, timeout=30,
                              preexec_fn=cap if limit is not None else None)

    assert hook(claude("UserPromptSubmit", prompt="go")).returncode == 0
    size = events_file(data_dir).stat().st_size
    # The limit lets the next event in partly, then the write fails (EFBIG): the hook still exits 0, says nothing.
    full = hook(claude("PreToolUse", **bash("toolu_1", "make " + "x" * 400)), limit=size + 100)
    assert (full.returncode, full.stdout, full.stderr) == (0, b"", b"")
    assert not events_file(data_dir).read_bytes().endswith(b"\n")
    assert "File too large" in (data_dir / store.DIAGNOSTICS_LOG).read_text()
    assert hook(claude("PreToolUse", **bash("toolu_2", "ls"))).returncode == 0
    assert hook(claude("PostToolUse", **bash("toolu_2", "ls"), tool_response={"stdout": ""})).returncode == 0
    doc = trace_doc(f"claude:{SESSION}")
    [call] = doc["turns"][0]["nodes"]
    assert (call["input"], call["status"]) == ({"command": "ls"}, "ok")
    assert [w["message"] for w in doc["warnings"]] == [envelopes.CUT_SHORT]


@pytest.mark.skipif(os.name != "posix", reason="flock")
def test_a_lock_held_by_a_stopped_hook_does_not_hold_the_next_one(data_dir: Path) -> None:
    import fcntl
    import threading
    import time

    Replay(data_dir, agent="claude").send(claude("UserPromptSubmit", prompt="go"))
    path = events_file(data_dir)
    with path.open("ab") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)  # a hook stopped (SIGSTOP) while it holds the lock
        started = time.monotonic()
        writer = threading.Thread(target=store.append_line, args=(str(path), b'{"v":1}\n'), daemon=True)
        writer.start()
        writer.join(2)
        took = time.monotonic() - started
        alive = writer.is_alive()
    assert not alive and took < 1, took  # appended unchecked after 50 ms, not held
    assert path.read_bytes().endswith(b'}\n{"v":1}\n')
