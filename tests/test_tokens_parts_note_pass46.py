"""The note under a grouped ``tokens`` table that SUBAGENTS is a part of TOTAL (pass 46).

A ccusage user has never seen a SUBAGENTS column: beside TOTAL, it read as spend besides
it, or was added to it.  REASONING had its note; SUBAGENTS now has one too, said with
REASONING's in one line when both are shown, and only on a terminal, where the table is.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.tokens_notes import BOTH_PARTS_NOTE, REASONING_NOTE, SUBAGENTS_NOTE
from test_tokens_layout_pass30 import SCALE_1, laid

runner = CliRunner()


def test_both_parts_are_said_in_one_line_where_both_are_shown(capsys, tty) -> None:
    _, err = laid(SCALE_1, 200, capsys, tty)
    assert err == BOTH_PARTS_NOTE


def test_subagents_alone_is_said_when_no_reasoning_is_shown(capsys, tty) -> None:
    rows = [replace(row, tokens=replace(row.tokens, reasoning=0)) for row in SCALE_1]
    import test_tokens_layout_pass30 as layout

    before = layout.TOTAL
    layout.TOTAL = replace(before, reasoning=0)
    try:
        _, err = laid(rows, 200, capsys, tty)
    finally:
        layout.TOTAL = before
    assert err == SUBAGENTS_NOTE


def test_no_subagents_note_without_runs_or_when_the_column_is_left_out(capsys, tty) -> None:
    no_runs = [replace(row, subagents=()) for row in SCALE_1]
    _, err = laid(no_runs, 200, capsys, tty)
    assert err == REASONING_NOTE
    _, err = laid(SCALE_1, 80, capsys, tty)  # REASONING left out, SUBAGENTS kept
    assert SUBAGENTS_NOTE in err and REASONING_NOTE not in err
    _, err = laid(SCALE_1, 60, capsys, tty)  # both left out: nothing to explain
    assert "SUBAGENTS is" not in err and "REASONING is" not in err


def test_a_pipe_is_told_neither(capsys, tty) -> None:
    _, err = laid(SCALE_1, 200, capsys, tty, on_terminal=False)
    assert "SUBAGENTS is" not in err and "REASONING is" not in err


@pytest.mark.parametrize("by", ["day", "provider", "model"])
def test_the_demo_says_it_on_a_terminal(tty, by: str) -> None:
    tty(200, color=False)
    result = runner.invoke(app, ["--demo", "tokens", "--by", by])
    assert result.exit_code == 0, result.output
    assert BOTH_PARTS_NOTE in " ".join(result.stderr.split())


def test_a_part_of_total_left_out_is_said_still_counted(tty) -> None:
    # (a newcomer at 80 columns read INPUT 9, CACHE READ 0, OUTPUT 220 beside TOTAL 5,429 as a
    # wrong sum: CACHE WRITE was left out to fit, and only "left out" said so)
    tty(80, color=False)
    err = " ".join(runner.invoke(app, ["--demo", "tokens"]).stderr.split())
    assert "left out to fit 80 columns: REASONING, DATE, CWD, CACHE WRITE;" in err
    assert err.endswith("widen the terminal or use --json; TOTAL still counts CACHE WRITE")
    tty(200, color=False)
    assert "still counts" not in runner.invoke(app, ["--demo", "tokens"]).stderr


def test_nothing_is_said_still_counted_when_no_part_is_left_out(tty) -> None:
    tty(100, color=False)  # (REASONING goes: a part of OUTPUT, no part of TOTAL's sum)
    err = " ".join(runner.invoke(app, ["--demo", "tokens", "--by", "model"]).stderr.split())
    assert err.endswith("left out to fit 100 columns: REASONING; widen the terminal or use --json")
    tty(70, color=False)
    err = " ".join(runner.invoke(app, ["--demo", "tokens", "--by", "model"]).stderr.split())
    assert err.endswith("left out to fit 70 columns: REASONING, SUBAGENTS, CACHE WRITE; widen the terminal or use "
                        "--json; TOTAL still counts CACHE WRITE")
