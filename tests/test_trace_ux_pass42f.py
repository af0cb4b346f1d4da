"""`trace` and `show` as a reviewer met them: one id captured under two agents is told apart by
its agent (no number of characters does it); `show` of a session known only from its hook
events points to `trace`; a missing transcript's long path keeps its file name and
`(not found)` on a terminal; a long duration reads `2m12s`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.charset import width_of
from agentscan.hooks import capture
from hooks_builders import BASE_NS, MS, Replay

SESSION = "7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d"
PROMPT = "8bba4e68-c8c6-5a31-80c8-07332cb18f59"
runner = CliRunner()


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def claude(event: str, **fields: Any) -> dict:
    return {"session_id": SESSION, "prompt_id": PROMPT, "cwd": "/tmp/proj", "hook_event_name": event, **fields}


def long_bash_turn(data_dir: Path, transcript: str | None = None) -> None:
    """One turn whose Bash call runs 132 s."""
    replay = Replay(data_dir, agent="claude")
    extra = {"transcript_path": transcript} if transcript else {}
    replay.send(claude("UserPromptSubmit", prompt="run the suite", **extra), at_ms=0)
    call = {"tool_name": "Bash", "tool_input": {"command": "pytest"}, "tool_use_id": "toolu_B"}
    replay.send(claude("PreToolUse", **call), at_ms=1000)
    replay.send(claude("PostToolUse", **call, tool_response={"stdout": ""}), at_ms=133_000)
    replay.send(claude("Stop", stop_hook_active=False), at_ms=133_400)


def test_one_id_under_two_agents_is_told_apart_by_its_agent(data_dir: Path) -> None:
    payload = orjson.dumps({"session_id": SESSION, "hook_event_name": "Notification", "message": "hi"})
    capture.capture(str(data_dir), "claude", payload, BASE_NS)
    capture.capture(str(data_dir), "", payload, BASE_NS + MS)  # no --agent, nothing Claude's: `unknown`
    result = runner.invoke(app, ["trace", SESSION])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0] == f"error: {SESSION!r} is ambiguous: it matches 2 sessions"
    assert lines[1:3] == [f"  claude:{SESSION}", f"  unknown:{SESSION}"]
    assert lines[3] == ("hint: that is one session id captured under 2 agents: give it with its agent, "
                        "claude:<id> or unknown:<id>, as listed above")
    assert runner.invoke(app, ["trace", f"unknown:{SESSION}"]).exit_code == 0  # as the hint says
    # A prefix of it too: more characters would not help either.
    assert "give it with its agent" in runner.invoke(app, ["trace", SESSION[:8]]).stderr


def test_two_ids_sharing_a_prefix_still_ask_for_more_characters(data_dir: Path) -> None:
    for session in (SESSION, SESSION[:9] + "ffff-4d21-9c5a-1e2f3a4b5c6d"):
        capture.capture(str(data_dir), "claude", orjson.dumps({"session_id": session, "prompt_id": "p"}), BASE_NS)
    result = runner.invoke(app, ["trace", SESSION[:8]])
    assert result.exit_code == 1
    assert "hint: give more characters of the id, or one of the ids above in full" in result.stderr


def test_show_of_a_session_known_only_from_hook_events_points_to_trace(data_dir: Path) -> None:
    long_bash_turn(data_dir)
    for query in ("claude:7f3c9a12", SESSION.upper()):
        result = runner.invoke(app, ["show", query])
        assert result.exit_code == 1
        assert result.stderr.splitlines() == [
            f"error: no session matches {query!r}",
            f"hint: `agentscan trace claude:{SESSION}` shows its captured hook events"]
    # An id the store lacks too gets the usual words: in this home of no session, where to look
    # (pass 46: ``list --grep`` cannot find what is not there).
    assert "no sessions were found in this home: `agentscan doctor` shows where agentscan looked" in runner.invoke(
        app, ["show", "0123abcd"]).stderr


def test_show_of_an_id_several_captured_sessions_answer_hands_it_to_trace(data_dir: Path) -> None:
    for agent in ("claude", "cursor"):
        capture.capture(str(data_dir), agent, orjson.dumps({"session_id": SESSION, "conversation_id": SESSION}), BASE_NS)
    result = runner.invoke(app, ["show", "7f3c9a12"])
    assert result.stderr.splitlines()[-1] == "hint: `agentscan trace 7f3c9a12` shows its captured hook events"


def test_a_missing_transcripts_long_path_is_cut_from_its_start(data_dir: Path, tty: Any) -> None:
    path = f"/home/dev/.claude/projects/-home-dev-src-a-rather-long-project-name/{SESSION}.jsonl"
    long_bash_turn(data_dir, transcript=path)
    piped = runner.invoke(app, ["trace", SESSION], env={"COLUMNS": "100"})  # not a terminal: whole
    assert f"  transcript  {path} (not found)" in piped.stdout.splitlines()
    tty(100)
    result = runner.invoke(app, ["trace", SESSION])
    assert result.exit_code == 0, result.output
    [line] = [line for line in result.stdout.splitlines() if line.startswith("  transcript")]
    assert width_of(line) <= 100
    assert line.startswith("  transcript  \u2026") and line.endswith(f"/{SESSION}.jsonl (not found)"), line


def test_a_long_duration_reads_in_minutes_and_the_json_keeps_milliseconds(data_dir: Path) -> None:
    long_bash_turn(data_dir)
    lines = runner.invoke(app, ["trace", SESSION]).stdout.splitlines()
    assert "  |- tool Bash  pytest  ok  2m12s" in lines, lines
    assert any(line.startswith("turn 1") and line.endswith("2m13s, completed") for line in lines), lines
    doc = json.loads(runner.invoke(app, ["trace", SESSION, "--json"]).stdout)
    [turn] = doc["turns"]
    assert turn["summary"]["wall_time_ms"] == 133_400


@pytest.mark.parametrize(("ms", "said"), [
    (261, "261 ms"), (999.4, "999 ms"), (999.6, "1.0 s"), (4400, "4.4 s"), (59_940, "59.9 s"),
    (59_960, "1m00s"), (132_000, "2m12s"), (3_599_000, "59m59s"), (3_930_000, "1h06m"),
])
def test_durations(ms: float, said: str) -> None:
    from agentscan.hooks.text import _seconds

    assert _seconds(ms) == said
