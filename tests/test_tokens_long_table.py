"""A ``tokens`` table of more sessions than a screen says, on a terminal, how to see fewer:
a heavy user's first ``agentscan tokens`` scrolls thousands of lines past, the newest first."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli import tablepatch, tokens_notes
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_results

runner = CliRunner()
# (Its sessions all of one week: no ``--since`` narrows them, pass 42.)
HINT = "sessions above, newest first: --by day sums each day"


def _home(home: Path, sessions: int) -> list[Path]:
    paths = []
    for number in range(sessions):
        native = f"{number:08x}-6666-4000-8000-000000000000"
        ts = f"2026-11-{1 + number % 28:02d}T10:00:00.000Z"
        paths.append(claude_session_file(home, native, [
            claude_user(native, ts, f"task {number}"),
            claude_assistant(native, ts, msg_id=f"m{number}", request_id=f"r{number}", usage=claude_usage(10 + number, 2))]))
    return paths


def test_a_long_table_names_the_options_that_shorten_it(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tty) -> None:  # noqa: ANN001
    monkeypatch.setattr(tokens_notes, "LONG_TABLE", 5)
    paths = _home(isolated_home, 6)
    tty(160)
    result = runner.invoke(app, ["tokens"])
    assert result.exit_code == 0
    assert result.stderr.strip().splitlines()[-1] == f"6 {HINT}"
    # The table patched after a session grew says the same.
    with paths[0].open("a") as handle:
        native = "00000000-6666-4000-8000-000000000000"
        handle.write(__import__("json").dumps(claude_assistant(native, "2026-11-01T11:00:00.000Z", msg_id="late",
                                                               request_id="rl", usage=claude_usage(5, 1))) + "\n")
    os.utime(paths[0], (1_800_000_000, 1_800_000_000))
    spliced = record_results(monkeypatch, tablepatch, "_print_spliced")
    again = runner.invoke(app, ["tokens"])
    assert spliced == [True]  # printed from the kept text
    assert again.stderr.strip().splitlines()[-1] == f"6 {HINT}"


@pytest.mark.parametrize("case", ["short", "piped", "by day"])
def test_a_short_table_or_a_pipe_is_told_nothing(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tty, case: str) -> None:  # noqa: ANN001
    monkeypatch.setattr(tokens_notes, "LONG_TABLE", 5)
    _home(isolated_home, 5 if case == "short" else 6)
    if case != "piped":
        tty(160)
    result = runner.invoke(app, ["tokens", *(["--by", "day"] if case == "by day" else [])])
    assert result.exit_code == 0 and "sessions above" not in result.stderr + result.stdout
