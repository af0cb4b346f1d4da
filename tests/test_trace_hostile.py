"""`agentscan trace` on hostile payloads: escape sequences and newlines neutralised in the
human forms, lone surrogates shown as U+FFFD, `--list` counting envelopes, `--demo` reading the demo's own events."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.hooks import store
from hooks_builders import Replay

runner = CliRunner()
CONTROLS = ("\x1b", "\x07", "\x9b")
EVIL_ID = "evil\x1b]0;PWNED\x07\x1b[2Jid\nnext"


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout


def hostile_session(data_dir: Path) -> Replay:
    replay = Replay(data_dir, agent="claude")
    base = {"session_id": "ok-session-2", "cwd": "/tmp/\x1b[31mred", "prompt_id": "p\x1b[2J"}
    replay.send({**base, "hook_event_name": "UserPromptSubmit", "prompt": "hi \x1b]52;c;ZXZpbA==\x07 \x1b[2J"})
    replay.send({**base, "hook_event_name": "PreToolUse", "tool_use_id": "t1", "tool_name": "Re\x1b[31mad",
                 "tool_input": {"file_path": "/etc/\x1b]52;c;eA==\x07passwd"}})
    replay.send({**base, "hook_event_name": "PostToolUse", "tool_use_id": "t1", "tool_name": "Re\x1b[31mad",
                 "tool_input": {"file_path": "/etc/\x1b]52;c;eA==\x07passwd"}, "tool_response": "ok"})
    replay.send({**base, "hook_event_name": "PreToolUse", "tool_use_id": "t2", "tool_name": "mcp__x\x1b[2J__y",
                 "tool_input": {"q": "\u202eevil\x1b[0m"}})
    replay.send({**base, "hook_event_name": "Stop\x1b[2J"})
    replay.send({"hook_event_name": "Stop", "session_id": EVIL_ID})
    return replay


@pytest.mark.parametrize("on_tty", [False, True], ids=["pipe", "tty"])
def test_trace_and_list_neutralise_control_characters(data_dir: Path, tty, on_tty: bool) -> None:
    hostile_session(data_dir)
    if on_tty:
        tty(200)
    code, listed = invoke("trace", "--list")
    assert code == 0
    assert not any(ch in listed for ch in CONTROLS), listed
    # the newline in the id no longer splits its row: a header and one line per session
    assert len(listed.splitlines()) == 3, listed
    assert not any(line.startswith("next") for line in listed.splitlines())
    code, tree = invoke("trace", "ok-session-2")
    assert code == 0
    assert not any(ch in tree for ch in CONTROLS + ("\u202e",)), tree
    assert "prompt: hi \ufffd]52;c;ZXZpbA==\ufffd \ufffd[2J" in tree
    assert "/tmp/\ufffd[31mred" in tree and "Re\ufffd[31mad" in tree and "/etc/\ufffd]52;c;eA==\ufffdpasswd" in tree


def test_the_json_forms_keep_the_text_exact(data_dir: Path) -> None:
    hostile_session(data_dir)
    code, out = invoke("trace", "--list", "--json")
    assert code == 0
    assert EVIL_ID in {s["session_id"] for s in orjson.loads(out)["sessions"]}
    code, out = invoke("trace", "ok-session-2", "--json")
    assert code == 0
    [turn] = orjson.loads(out)["turns"]
    assert turn["prompt"] == "hi \x1b]52;c;ZXZpbA==\x07 \x1b[2J"


def test_a_lone_surrogate_is_shown_as_a_replacement_character(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send({"hook_event_name": "SessionStart", "session_id": "good-session-1"})
    replay.send(b'{"hook_event_name":"Stop","session_id":"bad\\ud800x"}')
    replay.send(b'{"hook_event_name":"UserPromptSubmit","session_id":"sur-sess-1","prompt_id":"p1",'
                b'"prompt":"cut emoji \\ud83d here"}')
    for args in (["trace", "--list"], ["trace", "sur-sess-1"], ["trace", "good-session-1"]):
        code, out = invoke(*args)
        assert code == 0, (args, out)
        assert "\ud800" not in out and "\ud83d" not in out
    assert "claude:bad\ufffd" in invoke("trace", "--list")[1]
    assert "cut emoji \ufffd" in invoke("trace", "sur-sess-1")[1]
    code, out = invoke("trace", "--list", "--json")
    assert code == 0
    assert {s["session_id"] for s in orjson.loads(out)["sessions"]} == {
        "good-session-1", "sur-sess-1", "bad\ufffdx"}
    code, out = invoke("trace", "sur-sess-1", "--json")
    assert code == 0
    [turn] = orjson.loads(out)["turns"]
    assert turn["prompt"].startswith("cut emoji \ufffd") and turn["prompt"].endswith(" here")
    # the store keeps what was captured
    stored = Path(store.session_path(str(data_dir), "claude", "sur-sess-1")).read_bytes()
    assert b"\\ud83d" in stored


def test_list_counts_envelopes_not_lines(data_dir: Path) -> None:
    replay = Replay(data_dir, agent="claude")
    replay.send({"hook_event_name": "SessionStart", "session_id": "count-session"})
    replay.send({"hook_event_name": "Stop", "session_id": "count-session"})
    path = Path(store.session_path(str(data_dir), "claude", "count-session"))
    with path.open("ab") as handle:
        handle.write(b"junk\n\n   \n{}\n[1, 2]\n")
        handle.write(b'{"payload": {"hook_event_name": "Stop"}, "received_at_ns": "soon"}\n')
        handle.write(b'{"v":1,"received_at_ns":x}\n')
        # by hand, keys in another order: still an envelope, as trace reads it
        handle.write(b'{"payload": {"hook_event_name": "Stop"}, "received_at_ns": 1790000000100000000}\n')
    code, out = invoke("trace", "--list", "--json")
    assert code == 0
    [listed] = orjson.loads(out)["sessions"]
    code, doc = invoke("trace", "count-session", "--json")
    warned = len(orjson.loads(doc)["warnings"])
    assert (listed["events"], warned) == (3, 5)
    # ``show``'s count of a session's hook events is the same one
    from agentscan.hooks import hook_event_counts

    assert hook_event_counts(["claude:count-session"]) == {"claude:count-session": 3}


DEMO_SESSION = "claude:7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d"


@pytest.mark.parametrize("args", [["--demo", "trace", "--list"], ["trace", "--list", "--demo"],
                                  ["--demo", "trace", "--list", "--json"]])
def test_demo_lists_the_demo_s_own_events_never_the_user_s(data_dir: Path, args: list[str]) -> None:
    Replay(data_dir, agent="claude").send({"hook_event_name": "SessionStart", "session_id": "real-session"})
    before = sorted(p.relative_to(data_dir) for p in data_dir.rglob("*"))
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "real-session" not in result.stdout and DEMO_SESSION in result.stdout
    assert sorted(p.relative_to(data_dir) for p in data_dir.rglob("*")) == before


def test_demo_traces_its_claude_session_and_points_at_demo_show(data_dir: Path) -> None:
    result = runner.invoke(app, ["--demo", "trace", "7f3c9a12"])
    assert result.exit_code == 0, result.output
    assert f"\n              agentscan --demo show {DEMO_SESSION}\n" in result.stdout
    # The demo transcript's tool calls, its subagent's among them, each once.
    assert "tool Read" in result.stdout and "subagent Explore" in result.stdout and "tool Grep" in result.stdout
    assert "5 tool calls, 1 failure, 1 subagent" in result.stdout
    shown = runner.invoke(app, ["--demo", "show", "7f3c9a12"])
    assert f"15 captured hook events (agentscan --demo trace {DEMO_SESSION})" in shown.stdout
    full = runner.invoke(app, ["--demo", "show", "7f3c9a12", "--full", "--no-pager"])
    assert f"(agentscan --demo trace {DEMO_SESSION})" in full.stdout


def test_the_shipped_demo_events_are_what_the_capture_makes_of_the_generator_s_payloads(tmp_path: Path) -> None:
    # demo/events is committed: regenerated through the capture code, it must come out the same.
    from agentscan.demo import demo_events
    from agentscan.demo.make_hook_demo import _ns, events
    from agentscan.hooks.capture import capture

    for clock, payload in events():
        capture(str(tmp_path), "claude", orjson.dumps(payload), _ns(clock))
    made = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*.jsonl")}
    shipped = {p.relative_to(demo_events()): p.read_bytes() for p in demo_events().rglob("*.jsonl")}
    assert made == shipped and made


def test_the_demo_events_are_the_demo_transcript_s_calls_at_its_times() -> None:
    from agentscan.demo.make_claude_demo import main_session, subagent
    from agentscan.demo.make_hook_demo import events

    calls = {block["id"]: record["timestamp"] for record in [*main_session(), *subagent()]
             for block in (record["message"]["content"] if isinstance(record["message"]["content"], list) else ())
             if block.get("type") == "tool_use"}
    pre = {payload["tool_use_id"]: f"2026-11-28T{clock}.000Z" for clock, payload in events()
           if payload["hook_event_name"] == "PreToolUse"}
    assert pre == calls


def test_demo_doctor_and_hook_leave_the_user_s_events_store_alone(data_dir: Path) -> None:
    Replay(data_dir, agent="claude").send({"hook_event_name": "SessionStart", "session_id": "real-session"})
    before = {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()}
    report = orjson.loads(runner.invoke(app, ["--demo", "doctor", "--json"]).stdout)["hooks"]
    assert report["store"]["source"] == "--demo" and report["store"]["sessions"] == 1
    assert "real-session" not in orjson.dumps(report).decode()
    text = runner.invoke(app, ["--demo", "doctor"]).stdout
    assert "not installed in the demo home" in text and "agentscan hooks install c" not in text
    for argv in (["--demo", "hook", "--agent", "claude"], ["hook", "--agent", "claude", "--demo"]):
        result = runner.invoke(app, argv, input='{"hook_event_name": "Stop", "session_id": "typed-for-the-demo"}')
        assert result.exit_code == 0
    assert {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize(("args", "said"), [
    (["7f3c"], "(`agentscan --demo trace --list` shows them)"),
    (["ffffffff"], "no hook events for 'ffffffff'; `agentscan --demo trace --list` shows the demo's sessions"),
    ([], "give a session ID (`agentscan --demo trace --list` shows the captured ones)"),
])
def test_demo_trace_s_errors_point_at_the_demo(data_dir: Path, args: list[str], said: str) -> None:
    result = runner.invoke(app, ["--demo", "trace", *args])
    assert result.exit_code in (1, 2) and said in result.stderr, result.stderr


def test_trace_list_s_time_is_the_last_event_s_not_the_file_s(data_dir: Path) -> None:
    # The shipped demo store's files have the install's mtime: UPDATED followed the copy.
    (row,) = orjson.loads(runner.invoke(app, ["--demo", "trace", "--list", "--json"]).stdout)["sessions"]
    assert row["updated_at"] == "2026-11-28T09:02:10.000Z"
