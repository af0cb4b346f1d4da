"""Hooks and otlp, pass 50.

* The payload bounds walk without recursion and copy only what is out of bounds.
* A user's own hook whose command runs ``agentscan hook`` (a wrapper, a pipeline) is theirs:
  install, uninstall and doctor never take it for agentscan's entry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentscan.hooks.install import CLAUDE_EVENTS, CURSOR_EVENTS, hook_command, is_ours
from agentscan.hooks.sanitize import MAX_DEPTH, TOO_DEEP, sanitize
from hooks_builders import ok, write_json
from sanitize_oracle import recursive_sanitize


def chain(depth: int, bottom: Any) -> Any:
    value = bottom
    for level in range(depth):
        value = {"k": value, "n": level} if level % 2 else [value, level]
    return value


def nested_payload() -> dict[str, Any]:
    return {
        "hook_event_name": "PostToolUse",
        "deep": [chain(depth, "x") for depth in (MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 150)],
        "numbers": [float("nan"), float("inf"), 10**30, -(2**63), 2**63, 1.5, True, None],
        "keys": {1: "one", None: [chain(70, 1)], "s": {"t": float("-inf")}},
        "wide": [{"a": [1, {"b": [2, "c"]}], "z": 10**20} for _ in range(200)],
    }


def test_the_walk_gives_what_the_recursive_one_gave_on_a_nested_payload() -> None:
    payload = nested_payload()
    assert sanitize(payload) == recursive_sanitize(payload)
    for depth in (0, 1, MAX_DEPTH - 1, MAX_DEPTH):
        assert sanitize(payload["deep"], depth) == recursive_sanitize(payload["deep"], depth)
    assert sanitize(float("nan")) == "nan" and sanitize(7) == 7


def test_a_payload_within_bounds_is_not_copied() -> None:
    # Before: every container was copied (a 5.5 MB payload of small objects: ~75 MB more memory).
    payload = {"tool_response": {"rows": [{"a": [1, 2, {"b": [3, 4, {"c": "x", "d": [True, None, 1.5]}]}]}] * 1000},
               "deep": chain(MAX_DEPTH - 1, "x")}
    assert sanitize(payload) is payload
    # One value out of bounds: the copy holds it replaced, the payload given is left as it was.
    payload["rows_total"] = 10**40
    clean = sanitize(payload)
    assert clean is not payload and clean["rows_total"] == str(10**40) and payload["rows_total"] == 10**40
    assert clean == recursive_sanitize(payload)


def test_a_payload_far_too_deep_is_cut_without_recursing() -> None:
    deep: Any = "bottom"
    for _ in range(100_000):  # deeper than Python's recursion limit
        deep = [deep]
    clean = sanitize({"deep": deep})
    levels, node = 0, clean["deep"]
    while isinstance(node, list):
        node, levels = node[0], levels + 1
    assert node == TOO_DEEP and levels == MAX_DEPTH - 1


# --- a user's own hook that runs agentscan's is theirs: never taken for agentscan's entry ----------

WRAPPER = "mywrapper agentscan hook --agent {agent} | tee log"


@pytest.mark.parametrize("command", [
    "mywrapper agentscan hook --agent claude | tee log",
    "agentscan hook --agent claude | tee -a /tmp/hooks.log",
    "env FOO=1 /usr/bin/agentscan hook --agent claude",
    "/usr/bin/agentscan hook --agent claude; notify-send done",
    "/usr/bin/agentscan hook --agent claude 2>/dev/null",
    "sh -c 'agentscan hook --agent claude'",
])
def test_a_command_that_only_contains_agentscan_s_is_the_user_s(command: str) -> None:
    assert not is_ours({"type": "command", "command": command})


@pytest.mark.parametrize("command", [
    "/usr/bin/agentscan hook --agent claude",
    "/old/venv/bin/agentscan hook --agent claude --otlp-endpoint http://127.0.0.1:4318",
    "agentscan hook --agent claude --otlp-endpoint 'https://otlp.example/v1?a=1&b=2'",
    "python3 -m agentscan hook --agent claude",
    '& "C:/Users/John Smith/agentscan.exe" hook --agent claude',
])
def test_the_commands_an_install_writes_and_their_arguments_are_agentscan_s(command: str) -> None:
    assert is_ours({"type": "command", "command": command})


def user_config(home: Path, agent: str) -> tuple[Path, bytes]:
    wrapper = WRAPPER.format(agent=agent)
    if agent == "claude":
        path = write_json(home / ".claude" / "settings.json", {"hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": wrapper}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": wrapper}]}]}})
    else:
        path = write_json(home / ".cursor" / "hooks.json", {"version": 1, "hooks": {
            "stop": [{"command": wrapper}], "preToolUse": [{"command": wrapper, "matcher": "Shell"}]}})
    return path, path.read_bytes()


@pytest.mark.parametrize("agent", ["claude", "cursor"])
def test_install_and_uninstall_leave_a_user_s_hook_that_runs_agentscan_as_it_is(isolated_home: Path, agent: str) -> None:
    path, before = user_config(isolated_home, agent)
    wrapper = WRAPPER.format(agent=agent)
    installed = ok("hooks", "install", agent)
    # Before: taken for agentscan's own, the wrapper was "already installed" on those events
    # (Claude's moved out of its Bash group); the pipeline is the user's and stays where it is.
    hooks = json.loads(path.read_text())["hooks"]
    events = CLAUDE_EVENTS if agent == "claude" else CURSOR_EVENTS
    stop, pre = ("Stop", "PreToolUse") if agent == "claude" else ("stop", "preToolUse")
    if agent == "claude":
        commands = {event: [(group.get("matcher"), hook["command"]) for group in hooks[event] for hook in group["hooks"]]
                    for event in (stop, pre)}
        assert commands == {stop: [(None, wrapper), (None, hook_command(agent))],
                            pre: [("Bash", wrapper), (None, hook_command(agent))]}
    else:
        assert [(e.get("matcher"), e["command"]) for e in hooks[pre]] == [("Shell", wrapper), (None, hook_command(agent))]
        assert [e["command"] for e in hooks[stop]] == [wrapper, hook_command(agent)]
    assert f"agentscan hook added to {len(events)} {agent} events" in installed.stdout
    assert "widened" not in installed.stdout and "moved" not in installed.stdout
    assert f"your own hook on 2 events runs agentscan hook too (`{wrapper}`)" in " ".join(installed.stderr.split())
    uninstalled = ok("hooks", "uninstall", agent)
    assert path.read_bytes() == before  # the user's hooks, byte for byte
    assert "remove it yourself if you no longer want it" in " ".join(uninstalled.stderr.split())
    assert "nothing to change (no agentscan hooks)" in ok("hooks", "uninstall", agent).stdout


# --- the live sender numbers derived turns as a batch export does, after a mark skipped ahead ----

LIVE = "live-50"


def no_turn_id(event: str, **fields: object) -> dict:
    """A Claude payload of a build that sends no ``prompt_id``: its turns are derived."""
    return {"hook_event_name": event, "session_id": LIVE, "cwd": "/repo", **fields}


def test_after_a_skipped_turn_derived_turns_are_numbered_as_a_batch_export_numbers_them(
        data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.otlp import live
    from hooks_builders import Replay
    from otlp_builders import otlp, read_otlp_file

    monkeypatch.setattr(live, "MAX_EVENTS_BYTES", 20_000)
    replay = Replay(data_dir, agent="claude")
    for turn in (1, 2):  # two derived turns, the second too big to read on an event
        base = turn * 1_000
        replay.send(no_turn_id("UserPromptSubmit", prompt=f"read everything {turn}"), at_ms=base)
        for n in range(12 * (turn - 1)):  # 12 reads of 3 KB each: more than the sender reads
            call = {"tool_name": "Read", "tool_input": {"file_path": f"/f{n}"}, "tool_use_id": f"r{turn}-{n}"}
            replay.send(no_turn_id("PreToolUse", **call), at_ms=base + 10 + n)
            replay.send(no_turn_id("PostToolUse", tool_response={"content": "x" * 3000}, **call), at_ms=base + 30 + n)
        big_stop = replay.send(no_turn_id("Stop"), at_ms=base + 100)
    assert live.closed_spans(str(data_dir), "claude", LIVE, big_stop, "Stop", "") is None  # given up
    live_roots = {}
    for turn in (3, 4):
        stop = replay.send(no_turn_id("UserPromptSubmit", prompt="and now"), at_ms=turn * 10_000)
        stop = replay.send(no_turn_id("Stop"), at_ms=turn * 10_000 + 30)
        [root] = live.closed_spans(str(data_dir), "claude", LIVE, stop, "Stop", "").spans
        live_roots[root.attributes["agentscan.turn.id"]] = (root.trace_id, root.span_id)
    out = tmp_path / "spans.jsonl"
    assert otlp(f"claude:{LIVE}", "-o", str(out)).exit_code == 0
    batch = {span.attrs["agentscan.turn.id"]: (span.trace_id, span.span_id)
             for spans in read_otlp_file(out) for span in spans if not span.parent}
    # Before: the two turns before the mark were not counted, and these went out as derived-1 and -2.
    assert live_roots == {"derived-3": batch["derived-3"], "derived-4": batch["derived-4"]}


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    import os

    return Path(os.environ["AGENTSCAN_DATA_DIR"])


# --- a Cursor beforeReadFile of a file larger than the hook reads keeps its event ------------------

def run_hook(data_dir: Path, agent: str, stdin: bytes) -> Any:
    import os
    import subprocess
    import sys

    env = {**os.environ, "AGENTSCAN_DATA_DIR": str(data_dir)}
    return subprocess.run([sys.executable, "-m", "agentscan", "hook", "--agent", agent], input=stdin,
                          capture_output=True, env=env, timeout=60)


def test_a_before_read_file_over_the_limit_is_stored_with_its_content_left_out(data_dir: Path) -> None:
    from hooks_builders import CONVERSATION, cursor, post, pre, prompt, stop, trace_doc

    read = {"file_path": "/work/repo/huge.log"}
    for small in (prompt("read the huge log"), pre("Read", read, "call-read")):  # each stamped as the hook reads it
        assert run_hook(data_dir, "cursor", json.dumps(small).encode()).returncode == 0
    # 9 MiB of file content, with quotes and backslashes to escape, and fields after it.
    content = ('line "quoted" \\ C:\\path\n' * 400_000)[: 9 * 1024 * 1024]
    payload = cursor("beforeReadFile", file_path="/work/repo/huge.log", content=content,
                     attachments=[{"type": "file", "file_path": "/work/repo/huge.log"}])
    raw = json.dumps(payload).encode()
    assert len(raw) > 8 * 1024 * 1024
    assert run_hook(data_dir, "cursor", raw).returncode == 0
    for small in (post("Read", read, "call-read"), stop()):
        assert run_hook(data_dir, "cursor", json.dumps(small).encode()).returncode == 0
    log = (data_dir / "hook-errors.log").read_text()
    # Before: "payload larger than 8388608 bytes, dropped (session …, event beforeReadFile)".
    assert "dropped" not in log
    assert (f"payload larger than 8388608 bytes: the file content of beforeReadFile ({len(json.dumps(content)) - 2} "
            f"bytes) was left out and the event stored (session {CONVERSATION}, event beforeReadFile)") in log
    [stored] = [json.loads(line) for path in (data_dir / "events").rglob("*.jsonl")
                for line in path.read_bytes().splitlines() if b"beforeReadFile" in line]
    assert stored["payload"]["content"] == f"[redacted: {len(json.dumps(content)) - 2} bytes, cut]"
    assert stored["payload"]["attachments"] == payload["attachments"]
    doc = trace_doc(f"cursor:{CONVERSATION}")
    assert doc["warnings"] == []
    [turn] = doc["turns"]
    call = turn["nodes"][0]
    assert (call["name"], call["status"]) == ("Read", "ok")
    assert [(child["kind"], child["name"], child["input"]) for child in call["children"]] == [("file", "read", read)]


def test_another_payload_over_the_limit_in_a_content_string_is_still_dropped(data_dir: Path) -> None:
    from hooks_builders import CONVERSATION, cursor

    # A Claude Read's completion holds the file too, and is stored whole: never cut.
    payload = {"session_id": "claude-big", "hook_event_name": "PostToolUse", "tool_name": "Read",
               "tool_response": {"file": {"content": "z" * (9 * 1024 * 1024), "numLines": 1}}}
    assert run_hook(data_dir, "claude", json.dumps(payload).encode()).returncode == 0
    big_edit = cursor("afterFileEdit", content="y" * (9 * 1024 * 1024))
    assert run_hook(data_dir, "cursor", json.dumps(big_edit).encode()).returncode == 0
    log = (data_dir / "hook-errors.log").read_text()
    assert "dropped (session claude-big, event PostToolUse)" in log
    assert f"dropped (session {CONVERSATION}, event afterFileEdit)" in log
    assert not (data_dir / "events").exists()


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64])
def test_the_cut_finds_the_string_s_end_whatever_the_chunks(size: int) -> None:
    from agentscan.hooks.contentcut import ContentCut

    content = 'a\\"b\\\\"c\\\\\\"d' * 5 + "\\"
    raw = json.dumps({"hook_event_name": "beforeReadFile", "content": content, "file_path": "/x", "n": [1]}).encode()
    head = raw.index(b'"content": "') + len('"content": "') + 7  # the limit passed inside the string
    for cut_at in range(head, head + 12):  # after a backslash too
        cut = ContentCut.open_in(raw[:cut_at])
        assert cut is not None
        for at in range(cut_at, len(raw), size):
            assert cut.feed(raw[at:at + size])
        cut_payload = cut.payload()
        assert cut_payload is not None
        assert json.loads(cut_payload) == {"hook_event_name": "beforeReadFile", "content": "", "file_path": "/x", "n": [1]}
        assert cut.skipped == len(json.dumps(content)) - 2


def test_status_notes_a_user_s_hook_that_runs_agentscan_and_counts_it_not_installed(isolated_home: Path) -> None:
    from agentscan.hooks.status import hooks_report

    user_config(isolated_home, "claude")
    [config] = hooks_report(home=isolated_home, cwd=isolated_home, env={"PATH": ""})["configs"]
    # Before: counted as agentscan's own entry on those 2 events.
    assert config["events"] == 0 and config["command"] is None
    assert config["note"] == ("your own hook on 2 events runs agentscan hook too (`mywrapper agentscan hook --agent "
                              "claude | tee log`): not counted as agentscan's entry, and left as it is")
