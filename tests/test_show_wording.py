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
    assert "prompts (newest 10 of 1005)" in out  # (a pipe's numbers plain: pass 51)
    assert "bounded: 5 older prompts dropped" in out and "truncated:" not in out


def test_a_pipe_gets_whole_subagent_numbers(isolated_home: Path) -> None:
    out = CliRunner().invoke(app, ["--demo", "show", "7f3c9a12"]).stdout
    # Plain integers, as list and tokens print them in a pipe (docs/cli.md)
    assert " 6313 tokens" in out and "6.3k" not in out and "6,313" not in out
    assert "75433 total (6313 by subagents) = 40 input + 66200 cache read + 8300 cache write + 893 output" in out


def test_a_subagent_with_no_usage_says_its_tokens_were_not_recorded(isolated_home: Path) -> None:
    from builders import claude_subagent_file

    native = "5e5e5e5e-1111-4222-8333-444444444444"
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", "delegate"),
        claude_assistant(native, "2026-11-02T09:00:01.000Z", msg_id="m", request_id="r", usage=claude_usage(1, 1)),
    ])
    claude_subagent_file(isolated_home, native, "abc1234", [
        claude_user(native, "2026-11-02T09:00:02.000Z", "look around", sidechain=True, agentId="abc1234"),
    ])
    out = CliRunner().invoke(app, ["show", native[:8]]).stdout
    assert "abc1234" in out and "tokens not recorded" in out and "not recorded tokens" not in out


def test_a_terminal_gets_whole_subagent_numbers_as_the_card_s_total(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(100, color=False)
    out = CliRunner().invoke(app, ["--demo", "show", "7f3c9a12"]).stdout
    assert "75,433 total" in out and "6,313 tokens" in out and "6.3k" not in out


def test_one_word_values_stay_whole_under_their_label(isolated_home: Path, tty) -> None:  # noqa: ANN001
    # Never broken; since pass 51 one too wide for its line goes under its label, as a path
    # does, where it fits there (it ran past the pane: test_terminal_newcomer_pass51).
    tty(30, color=False)
    lines = CliRunner().invoke(app, ["--demo", "show", "7f3c9a12"]).stdout.splitlines()
    at = lines.index("  model")
    assert lines[at + 1] == "    claude-sonnet-4-5-20250929", lines


def test_a_thread_id_subagent_is_named_by_its_short_prefix_on_a_terminal(tty) -> None:  # noqa: ANN001
    # The demo's Codex session has one subagent thread (a 36-character id): a tool call marked
    # with it whole lost 39 columns of its summary.  A pipe keeps it whole.
    thread = "019ac2d6-0c9e-7f41-a2b7-8d3e5f6a7b90"
    piped = CliRunner().invoke(app, ["--demo", "show", "019ac2d4"]).stdout
    assert f"shell [{thread}]: " in piped and f"  {thread}  reviewer" in piped
    tty(100, color=False)
    for args in (["--demo", "show", "019ac2d4"], ["--demo", "show", "019ac2d4", "--full", "--no-pager"],
                 ["--demo", "show", "019ac2d6"]):
        out = CliRunner().invoke(app, args).stdout
        assert "shell [019ac2d6]: " in out or "↳ subagent 019ac2d6 (reviewer)" in out, (args, out)
        assert f"[{thread}]" not in out
    focused = CliRunner().invoke(app, ["--demo", "show", "019ac2d6"]).stdout
    assert "its tool calls marked [019ac2d6]" in focused and "  019ac2d6  reviewer" in focused


def test_focus_names_the_subagent_once_when_asked_by_its_own_id(isolated_home: Path) -> None:
    out = CliRunner().invoke(app, ["--demo", "show", "a1b2c3d"]).stdout
    assert "focus    subagent a1b2c3d of this session" in out
    assert "a1b2c3d is subagent a1b2c3d" not in out


def test_full_says_what_the_bounds_dropped_first_as_well_as_last(isolated_home: Path) -> None:
    # A pager opens on the top: there the oldest replies kept stood without the prompts the
    # bounds dropped before them, and only the last line said so (pass 46).
    native = "b0b0b0b0-0000-4000-8000-000000000002"
    records = []
    for number in range(1003):  # the bounds keep the newest 1,000 prompts
        at = f"2026-11-02T{number // 3600:02d}:{number // 60 % 60:02d}:{number % 60:02d}.000Z"
        records.append(claude_user(native, at, f"prompt {number}", uuid=f"u{number}"))
    claude_session_file(isolated_home, native, records)
    lines = CliRunner().invoke(app, ["show", native[:8], "--full"]).stdout.splitlines()
    said = [index for index, line in enumerate(lines) if line == "bounded: 3 older prompts dropped"]
    first_prompt = next(index for index, line in enumerate(lines) if line.endswith("prompt"))
    assert len(said) == 2 and said[0] < first_prompt and said[1] == len(lines) - 1
