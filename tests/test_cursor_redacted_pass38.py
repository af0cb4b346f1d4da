"""Cursor's ``[REDACTED]`` reasoning marker is no reply, nor part of one.

An agent transcript writes the model's reasoning as the literal ``[REDACTED]``: at
the end of an assistant text block, and as the whole of a thinking-only turn
(receptron/mulmoterminal#2072, caura-ai/caura#612: read off real transcripts).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from agentscan.cli import app
from builders import cli_json
from cursor_builders import assistant, tool, turn_ended, user, write_subagent, write_transcript

SLUG = "tmp-proj"
S = "c0ffee00-1111-4222-8333-444455556666"
CHILD = "c0ffee00-1111-4222-8333-999999999999"
ID = f"cursor:{S}"


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _line(role: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "message": {"content": list(blocks)}}


def _session() -> dict[str, Any]:
    return cli_json("show", ID)["session"]


def test_a_redacted_reasoning_turn_is_no_response_and_a_trailing_marker_is_cut(isolated_home: Path) -> None:
    write_transcript(isolated_home, SLUG, S, [
        user("fix the build", stamp="Tuesday, Jul 21, 2026, 1:11 PM (UTC+3)"),
        assistant("[REDACTED]"),
        assistant(None, tool("Shell", command="make")),
        assistant("Build fixed.\n\n[REDACTED]"),
        turn_ended(),
    ])
    for extra in ((), (), ("--no-cache",)):  # cold, cached, uncached: one answer
        (row,) = cli_json("list", *extra)["sessions"]
        assert row["counts"] == {"prompts": 1, "responses": 1, "tool_calls": 1}
    session = _session()
    assert [reply["text"] for reply in session["responses"]] == ["Build fixed."]
    assert [(t["name"], t["summary"]) for t in session["tools"]] == [("Shell", "make")]


def test_only_the_marker_as_a_word_of_its_own_at_the_end_is_cut(isolated_home: Path) -> None:
    write_transcript(isolated_home, SLUG, S, [
        user("[REDACTED]"),  # what the person typed stays what they typed
        assistant("The key was [REDACTED] in the log."),
        assistant("Set token=[REDACTED]"),
        assistant("[REDACTED] is what the file says"),
        assistant("Done\n[REDACTED]\n\n[REDACTED]  \n"),
        assistant("  [REDACTED]\n"),
        _line("assistant", _text("First part.\n\n[REDACTED]"), _text("Second part. [REDACTED]")),
    ])
    session = _session()
    assert [p["text"] for p in session["prompts"]] == ["[REDACTED]"]
    assert [reply["text"] for reply in session["responses"]] == [
        "The key was [REDACTED] in the log.",
        "Set token=[REDACTED]",
        "[REDACTED] is what the file says",
        "Done",
        "First part.\nSecond part.",
    ]
    assert session["counts"]["responses"] == 5


def test_a_subagent_transcript_is_read_alike(isolated_home: Path) -> None:
    write_transcript(isolated_home, SLUG, S, [
        user("look into it"),
        assistant("[REDACTED]", tool("Task", prompt="read the logs", subagent_type="explore")),
        assistant("It was the cache.\n\n[REDACTED]"),
    ])
    write_subagent(isolated_home, SLUG, S, CHILD, [
        user("read the logs", wrap=False),
        assistant("[REDACTED]", tool("Read", path="/tmp/proj/log.txt")),
        assistant("Found it.\n\n[REDACTED]"),
    ])
    session = _session()
    assert [reply["text"] for reply in session["responses"]] == ["It was the cache."]
    assert session["counts"] == {"prompts": 1, "responses": 1, "tool_calls": 1}
    result = CliRunner().invoke(app, ["show", ID, "--full", "--no-pager"])
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.stdout.splitlines()]
    assert "Found it." in lines and "It was the cache." in lines
    assert "[REDACTED]" not in result.stdout


def test_result_blocks_are_neither_prompts_nor_responses(isolated_home: Path) -> None:
    """claude-code-history-viewer#480/#482 handle ``tool_result`` and ``command_output``
    blocks (and a ``redacted`` block) in Cursor transcripts; transcripts read by others
    show none (caura-ai/caura#612).  Were they written, they are skipped, not counted."""
    write_transcript(isolated_home, SLUG, S, [
        user("run the tests"),
        assistant("Running them.", tool("Shell", command="pytest")),
        _line("user", {"type": "tool_result", "tool_use_id": "t1", "content": [_text("3 passed")]}),
        _line("user", {"type": "tool_result", "tool_use_id": "t1", "content": "3 passed", "is_error": False}),
        _line("assistant", {"type": "command_output", "output": "3 passed", "exit_code": 0}),
        _line("assistant", {"type": "redacted", "data": "[REDACTED]"}),
        _line("tool", _text("3 passed")),
        {"type": "tool_result", "content": "3 passed"},
        {"type": "command_output", "output": "3 passed"},
        assistant("All green.\n\n[REDACTED]"),
        turn_ended(),
    ])
    doc = cli_json("show", ID)
    session = doc["session"]
    assert doc["warnings"] == []
    assert session["counts"] == {"prompts": 1, "responses": 2, "tool_calls": 1}
    assert [p["text"] for p in session["prompts"]] == ["run the tests"]
    assert [reply["text"] for reply in session["responses"]] == ["Running them.", "All green."]
