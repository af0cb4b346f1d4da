"""A newcomer's words (pass 48): a long option typed with one dash, the parts ``TOTAL``
still counts, an ``otlp`` export of no span, a demo id without ``--demo``, a session id or
another tool's word where the command goes, a duration with its unit spelt out."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.fastpath import parse
from builders import console_env, claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()


# --- a long option typed with one dash -----------------------------------------------------------

@pytest.mark.parametrize(("words", "typed", "meant"), [
    (["tokens", "-by", "day"], "-by", "--by"),  # was: -b (--by model totals each model; …)
    (["tokens", "-sort", "cost"], "-sort", "--sort"),  # was: -s (tokens has --since)
    (["show", "-full", "7f3c9a12"], "-full", "--full"),  # was: -f (-f is an option of export)
    (["list", "-grep", "foo"], "-grep", "--grep"),
    (["list", "-all"], "-all", "--all"),
    (["list", "-limit", "5"], "-limit", "--limit"),
    (["export", "-format", "csv"], "-format", "--format"),  # was: unexpected argument 'csv' (-f ormat)
    (["export", "-format=csv"], "-format", "--format"),
    (["export", "-output", "x.csv"], "-output", "--output"),
    (["list", "-provider", "claude"], "-provider", "--provider"),  # was: -p rovider
    (["export", "-out", "x.csv"], "-out", "--output"),  # a long option's beginning, 3 letters or more
    (["list", "-json"], "-json", "--json"),  # was: -j (list has --json)
    (["hooks", "install", "-scope", "user"], "-scope", "--scope"),
    (["trace", "-list"], "-list", "--list"),
    (["list", "-help"], "-help", "--help"),
    (["-demo", "list"], "-demo", "--demo"),  # before the command: the group's
])
def test_a_long_option_with_one_dash_is_said_as_that_slip(isolated_home: Path, words: list[str], typed: str, meant: str) -> None:
    result = runner.invoke(app, words)
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[0] == f"error: No such option: {typed}. Did you mean {meant}?"
    assert result.stdout == ""


def test_a_beginning_of_two_long_options_names_both(isolated_home: Path) -> None:
    result = runner.invoke(app, ["otlp", "-pro", "json", "-o", "-"])
    assert result.stderr.splitlines()[0] == "error: No such option: -pro. Did you mean --protocol or --provider?"


@pytest.mark.parametrize("words", [
    ["--demo", "list", "-pclaude"], ["--demo", "list", "-p", "claude"], ["--demo", "tokens", "-n2"],
    ["--demo", "list", "-vq"], ["--demo", "list", "-vp", "claude"], ["--demo", "list", "--grep", "-by"],
    ["--demo", "list", "-qn", "2"],
])
def test_short_options_and_their_glued_values_still_work(isolated_home: Path, words: list[str]) -> None:
    assert runner.invoke(app, words).exit_code == 0


def test_the_fast_path_leaves_one_dash_to_typer_and_the_console_says_the_same(isolated_home: Path) -> None:
    assert parse(["tokens", "-by", "day"]) is None and parse(["list", "-all"]) is None
    env = console_env(HOME=str(isolated_home), PYTHONPATH=os.pathsep.join(sys.path))
    run = subprocess.run([sys.executable, "-m", "agentscan", "tokens", "-by", "day"], env=env,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 2
    assert run.stderr == "error: No such option: -by. Did you mean --by?\nTry 'agentscan tokens --help' for help.\n"


# --- the parts TOTAL still counts, as a list -----------------------------------------------------

def test_total_still_counts_its_parts_said_as_a_list(tty) -> None:
    # (pass 53: by day, as a part is shown; by session at 40 no part is, and nothing is said;
    # pass 57: INPUT is the part kept, the cache's go first)
    tty(40, color=False)
    err = " ".join(runner.invoke(app, ["--demo", "tokens", "--by", "day"]).stderr.split())
    assert "TOTAL still counts CACHE READ, CACHE WRITE and OUTPUT" in err, err


# --- otlp: an export of no span --------------------------------------------------------------------

def _timeless_cursor_sessions(home: Path, count: int) -> None:
    """Cursor transcripts that record no time: each matches ``--since`` by its file's time, and has no span."""
    for index in range(count):
        native = f"bbbbbbbb-0000-0000-0000-00000000000{index}"
        path = home / ".cursor" / "projects" / "app" / "agent-transcripts" / native / f"{native}.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text('{"role":"user","message":{"content":[{"type":"text","text":"What is 2+2?"}]}}\n')


def test_otlp_of_no_span_says_the_sessions_matched_and_the_empty_file(isolated_home: Path, tmp_path: Path) -> None:
    _timeless_cursor_sessions(isolated_home, 2)
    out = tmp_path / "t.jsonl"
    result = runner.invoke(app, ["otlp", "--since", "1d", "-o", str(out)])
    assert result.exit_code == 0, result.output
    # (was: "from 0 sessions to …" beside stderr's "none of the 2 sessions matched has …")
    assert result.stdout == f"exported 0 spans in 0 traces from 0 sessions of the 2 matched to {out} (an empty file)\n"
    assert "no spans: none of the 2 sessions that matched has a turn with a timestamp since" in result.stderr
    assert out.read_bytes() == b""
    one = runner.invoke(app, ["--demo", "otlp", "cursor:e5f6a7b8", "-o", str(out)])
    assert "from 0 sessions of the one matched to" in one.stdout


# --- a demo id without --demo ----------------------------------------------------------------------

DEMO = "hint: `agentscan --demo {} 7f3c9a12` reads it from the demo home"  # (pass 50: the command to copy)


def _a_session(home: Path) -> None:
    native = "c0c0c0c0-0000-4000-8000-000000000001"
    claude_session_file(home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", "hello", uuid="u1"),
        claude_assistant(native, "2026-11-02T09:00:01.000Z", msg_id="m", request_id="r", usage=claude_usage(1, 1))])


@pytest.mark.parametrize("command", ["show", "tokens"])
def test_a_demo_id_in_a_home_of_sessions_says_give_demo(isolated_home: Path, command: str) -> None:
    _a_session(isolated_home)
    result = runner.invoke(app, [command, "7f3c9a12"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["error: no session matches '7f3c9a12'", DEMO.format(command)]


def test_trace_of_a_demo_id_says_give_demo(isolated_home: Path) -> None:
    result = runner.invoke(app, ["trace", "7f3c9a12"])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == DEMO.format("trace")
    assert "--demo trace" not in runner.invoke(app, ["trace", "zzzzzzzz"]).stderr


# --- where the command goes ------------------------------------------------------------------------

@pytest.mark.parametrize(("words", "said"), [
    (["--demo", "7f3c9a12"], "No such command '7f3c9a12'. Try: agentscan --demo show 7f3c9a12 (a session's id goes after show)"),
    (["claude:7f3c9a12"], "No such command 'claude:7f3c9a12'. Try: agentscan show claude:7f3c9a12 (a session's id goes after show)"),
    (["ls"], "No such command 'ls'. Did you mean 'list'?"),
    (["decade"], "No such command 'decade'."),  # hex letters alone: no id
    (["2026-11-01"], "No such command '2026-11-01'."),  # a date: no id (review of pass 48)
])
def test_an_unknown_command_that_is_an_id_or_another_tools_word(isolated_home: Path, words: list[str], said: str) -> None:
    result = runner.invoke(app, words)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == f"error: {said}"


@pytest.mark.parametrize(("typed", "meant"), [("3days", "3d"), ("12 hours", "12h"), ("5mins", "5m"), ("2weeks", "2w")])
def test_a_duration_with_its_unit_spelt_out_gets_a_guess(isolated_home: Path, typed: str, meant: str) -> None:
    for command in ("list", "tokens"):  # the fast path's and Typer's
        result = runner.invoke(app, [command, "--since", typed])
        assert result.exit_code == 2
        assert result.stderr.startswith(f"error: cannot read the time {typed!r} (did you mean {meant}?): use a date")
