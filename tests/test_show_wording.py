"""What ``show``'s text says of its bounds and numbers: the prompts listed of every prompt
read (not of those the bounds kept), what was left out in words, whole numbers in a pipe."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.show_text import truncation_note
from builders import claude_assistant, claude_session_file, claude_usage, claude_user


def test_the_bounds_are_told_in_words() -> None:
    assert truncation_note({"prompts": 304, "responses": 0, "clipped_messages": 1}) == \
        "bounded: 304 older prompts dropped, 1 message cut at 64 KiB"
    assert truncation_note({"tools": 1, "subagent_responses": 2}) == \
        "bounded: 1 older tool call dropped, 2 older subagent responses dropped"
    assert truncation_note({"prompts": 0}) is None


def test_the_newest_prompts_are_counted_among_every_prompt_read(isolated_home: Path) -> None:
    native = "b0b0b0b0-0000-4000-8000-000000000001"
    records = []
    for number in range(1005):  # the bounds keep the newest 1,000
        at = f"2026-11-02T{number // 3600:02d}:{number // 60 % 60:02d}:{number % 60:02d}.000Z"
        records.append(claude_user(native, at, f"prompt {number}", uuid=f"u{number}"))
    records.append(claude_assistant(native, "2026-11-02T09:00:00.000Z", msg_id="m", request_id="r",
                                    usage=claude_usage(1, 1)))
    claude_session_file(isolated_home, native, records)
    out = CliRunner().invoke(app, ["show", native[:8]]).stdout
    assert "prompts (newest 10 of 1,005)" in out
    assert "bounded: 5 older prompts dropped" in out and "truncated:" not in out


def test_a_pipe_gets_whole_subagent_numbers(isolated_home: Path) -> None:
    out = CliRunner().invoke(app, ["--demo", "show", "7f3c9a12"]).stdout
    assert "6,313 tokens" in out and "6.3k" not in out


def test_one_word_values_stay_whole_on_their_line(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(30, color=False)
    out = CliRunner().invoke(app, ["--demo", "show", "7f3c9a12"]).stdout
    assert any(line.startswith("  model    claude-") for line in out.splitlines()), out
