"""`agentscan trace`'s text after the pass-36 review: ASCII only (no box drawing, in a pipe or
on a terminal, so ``PYTHONIOENCODING=ascii`` prints no ``?``), and at 80 columns nothing useful
cut: the ``agentscan show`` hint on its own line, a summary too long for one line going on to
the next, turn ids shortened (a UUID to its first 8 characters) so a turn's status and time
fit, a node's input cut rather than its status.  A pipe keeps one whole line per node.  A
wave's ``detail.duration_ms`` is whole milliseconds."""

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
from agentscan.cli.charset import width_of
from agentscan.hooks.text import short_turn_ids
from hooks_builders import Replay, only, trace_doc

SESSION = "0a1b2c3d-1111-4e2f-9a00-c1aude000001"
PROMPT_ID = "8bba4e68-c8c6-5a31-80c8-07332cb18f59"
LONG_PATH = "/home/dev/projects/long-project/src/auth/session_tokens.py"  # under the 60 kept in a pipe
runner = CliRunner()


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def claude(event: str, prompt_id: str = PROMPT_ID, **fields: Any) -> dict:
    return {"session_id": SESSION, "prompt_id": prompt_id, "cwd": "/tmp/proj", "permission_mode": "default",
            "hook_event_name": event, **fields}


def session_with_a_wave(replay: Replay, transcript: Path) -> None:
    """A turn with a UUID prompt id: two reads at once (a wave), an Explore subagent, a stop;
    a transcript that exists (the header suggests `agentscan show`)."""
    replay.send(claude("UserPromptSubmit", prompt="Why do the auth tests fail?", transcript_path=str(transcript)), at_ms=0)
    reads = [{"file_path": LONG_PATH}, {"file_path": "/tmp/proj/b.py"}]
    for i, tool_input in enumerate(reads):
        replay.send(claude("PreToolUse", tool_name="Read", tool_input=tool_input, tool_use_id=f"toolu_R{i}"),
                    at_ms=10.123457 + i)
    for i, tool_input in enumerate(reads):
        replay.send(claude("PostToolUse", tool_name="Read", tool_input=tool_input, tool_use_id=f"toolu_R{i}",
                           tool_response={"ok": 1}), at_ms=1864.241268 + i)
    agent = {"subagent_type": "Explore", "prompt": "find it", "description": "explore"}
    replay.send(claude("PreToolUse", tool_name="Agent", tool_input=agent, tool_use_id="toolu_A"), at_ms=2000)
    replay.send(claude("SubagentStart", agent_id="ag1", agent_type="Explore"), at_ms=2010)
    replay.send(claude("PreToolUse", tool_name="Grep", tool_input={"pattern": "token"}, tool_use_id="toolu_G",
                       agent_id="ag1", agent_type="Explore"), at_ms=2020)
    replay.send(claude("PostToolUse", tool_name="Grep", tool_input={"pattern": "token"}, tool_use_id="toolu_G",
                       tool_response={}, agent_id="ag1", agent_type="Explore"), at_ms=2030)
    replay.send(claude("SubagentStop", agent_id="ag1", agent_type="Explore", last_assistant_message="found"), at_ms=2500)
    replay.send(claude("PostToolUse", tool_name="Agent", tool_input=agent, tool_use_id="toolu_A",
                       tool_response={"agentId": "ag1"}), at_ms=2510)
    replay.send(claude("UserPromptExpansion", command_name="fix-tests", expansion_type="slash_command"), at_ms=2610)
    replay.send(claude("Stop", stop_hook_active=False, last_assistant_message="done"), at_ms=3000)


@pytest.fixture
def traced(data_dir: Path, tmp_path: Path) -> str:
    # Under a folder `show` reads: one under none is named, with no `show` (pass 53).
    transcript = Path(os.environ["HOME"]) / ".claude" / "projects" / "-home-dev-app" / f"{SESSION}.jsonl"
    transcript.parent.mkdir(parents=True, exist_ok=True)
    transcript.write_text("{}\n", encoding="utf-8")
    session_with_a_wave(Replay(data_dir, agent="claude"), transcript)
    return SESSION


def test_a_piped_tree_is_ascii_with_one_whole_line_a_node(traced: str) -> None:
    result = runner.invoke(app, ["trace", traced])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.isascii(), [ch for ch in text if not ch.isascii()]
    lines = text.splitlines()
    assert "  |- parallel: 2 calls  ok  1.9 s  [inferred]" in lines
    assert f"  |  |- tool Read  {LONG_PATH}  ok  1.9 s" in lines  # whole in a pipe
    assert "  |  `- subagent Explore  ok  490 ms" in lines  # its call's result names it
    assert "  |     `- tool Grep  token  ok  10 ms" in lines
    assert "  `- event Stop  completed" in lines
    assert "turn 1  8bba4e68  4 tool calls, 1 subagent, 1 wave, commands /fix-tests, 3.0 s, completed" in lines
    assert lines[2:4] == [f"  transcript  claude:{SESSION}", f"              agentscan show claude:{SESSION}"]


def test_an_ascii_stdout_prints_the_tree_as_it_is(traced: str) -> None:
    def trace(encoding: str) -> bytes:
        env = {**os.environ, "PYTHONIOENCODING": encoding}
        result = subprocess.run([sys.executable, "-m", "agentscan", "trace", traced], capture_output=True, env=env,
                                timeout=60)
        assert result.returncode == 0, result.stderr
        return result.stdout

    ascii_out = trace("ascii")
    assert ascii_out == trace("utf-8")  # nothing the encoding could not hold was written as a stand-in
    assert b"  |- parallel: 2 calls  ok" in ascii_out


def test_at_80_columns_the_hint_summaries_statuses_and_times_all_show(traced: str, tty: Any) -> None:
    tty(80)
    result = runner.invoke(app, ["trace", traced])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(width_of(line) for line in lines) <= 80, [line for line in lines if width_of(line) > 80]
    assert f"              agentscan show claude:{SESSION}" in lines  # whole, to be copied
    turn = [line for line in lines if line.startswith("turn 1")]
    assert turn == ["turn 1  8bba4e68  4 tool calls, 1 subagent, 1 wave, commands /fix-tests, 3.0 s,"]
    assert lines[lines.index(turn[0]) + 1] == "    completed"  # went on to the next line, not cut
    [read] = [line for line in lines if "tool Read" in line and "session_tokens.py" in line]
    # the path is cut from its start (the file name stays), the status and time stay
    assert read.endswith("/session_tokens.py  ok  1.9 s") and "\u2026" in read, read


def test_at_a_narrow_width_a_session_summary_goes_on_to_the_next_lines(traced: str, tty: Any) -> None:
    tty(50)
    lines = runner.invoke(app, ["trace", traced]).stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  summary"))
    summary = [lines[start]] + [line for line in lines[start + 1:start + 4] if line.startswith(" " * 14)]
    assert len(summary) > 1
    assert " ".join(" ".join(summary).split()) == "summary 4 tool calls, 1 subagent, 1 wave, commands /fix-tests, 3.0 s"
    assert all(width_of(line) <= 50 for line in summary)


def test_turn_ids_are_shortened_to_a_unique_prefix() -> None:
    uuid7s = ["0196c0a1-2b3c-7d4e-8f90-123456789abc", "0196c0a1-2b3c-7d4e-8f90-fedcba987654"]
    shown = short_turn_ids(["px-1", "derived-12", PROMPT_ID, *uuid7s])
    assert shown[PROMPT_ID] == "8bba4e68"
    assert "px-1" not in shown and "derived-12" not in shown  # short ids stay whole
    # two that share their first 8 characters (a UUIDv7's time): as long as it takes to tell them apart
    assert shown[uuid7s[0]] == "0196c0a1-2b3c-7d4e-8f90-1" and shown[uuid7s[1]] == "0196c0a1-2b3c-7d4e-8f90-f"


def test_the_json_keeps_whole_turn_ids_and_a_wave_lasts_whole_milliseconds(traced: str) -> None:
    doc = trace_doc(f"claude:{traced}")
    [turn] = doc["turns"]
    assert turn["id"] == PROMPT_ID
    wave = only(turn["nodes"], kind="wave")
    assert wave["detail"]["duration_ms"] == 1855 and isinstance(wave["detail"]["duration_ms"], int)
    assert orjson.dumps(wave["detail"]) == b'{"duration_ms":1855}'


def test_session_events_say_what_tells_them_apart(data_dir: Path) -> None:
    """Three `event SessionStart` lines said nothing: a start's source, an end's reason, a
    compaction's trigger show."""
    replay = Replay(data_dir, agent="claude")
    base = {"session_id": SESSION, "cwd": "/tmp/proj", "permission_mode": "default"}
    replay.send({**base, "hook_event_name": "SessionStart", "source": "startup"}, at_ms=0)
    replay.send(claude("UserPromptSubmit", prompt="go"), at_ms=10)
    replay.send(claude("PreCompact", trigger="auto", custom_instructions=""), at_ms=20)
    replay.send(claude("PostCompact", trigger="auto", compact_summary="s"), at_ms=30)
    replay.send({**base, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}, at_ms=40)
    replay.send({**base, "hook_event_name": "SessionStart", "source": "resume"}, at_ms=50)
    lines = runner.invoke(app, ["trace", SESSION]).stdout.splitlines()
    assert ["  |- event SessionStart  startup", "  |- event SessionEnd  prompt_input_exit",
            "  `- event SessionStart  resume"] == [line for line in lines if "event Session" in line]
    assert "  `- event PreCompact  auto  10 ms" in lines and "     `- event PostCompact  auto  [correlated]" in lines
