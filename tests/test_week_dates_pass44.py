"""``tokens --by week`` on a terminal shows each week's Monday beside its ISO label.

``2026-W36`` told no one which days it was (ccusage prints a week's first date).  A
terminal's table reads ``2026-W36 (Aug 31)``: one cell, with the
TOTAL row aligned under it; a table too narrow for it leaves
the Monday out before a figure, as it leaves out a runs' count.  A pipe and ``--json``
keep the label alone, byte for byte, and a warm run prints what a fresh one does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.cli import tokens_text
from agentscan.cli.tokens_columns import FIGURES, dated_week
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, invoke

SESSION = "4ee40000-0000-4000-8000-000000000001"
# 2025-12-30 is in 2026-W01 (Monday 2025-12-29); 2026-09-03 in W36 (Monday Aug 31); 2026-11-29,
# a Sunday, in W48 (Monday Nov 23), with a subagent's calls (its SUBAGENTS cell).
STAMPS = ["2025-12-30T12:00:00.000Z", "2026-09-03T12:00:00.000Z", "2026-11-29T12:00:00.000Z"]
DATED = ["2026-W01 (Dec 29)", "2026-W36 (Aug 31)", "2026-W48 (Nov 23)"]
PLAIN = ["2026-W01", "2026-W36", "2026-W48"]


def _weeks_home(home: Path) -> None:
    records: list[Any] = [claude_user(SESSION, STAMPS[0], "weeks")]
    records += [claude_assistant(SESSION, stamp, msg_id=f"m{i}", request_id=f"r{i}", uuid=f"a{i}",
                                 usage=claude_usage(input=1200 * (i + 1), output=340, cache_read=56000))
                for i, stamp in enumerate(STAMPS)]
    claude_session_file(home, SESSION, records)
    sub = [claude_assistant(SESSION, "2026-11-29T12:05:00.000Z", msg_id="s1", request_id="rs1", uuid="s1",
                            usage=claude_usage(input=700, output=90), isSidechain=True, agentId="w1")]
    claude_subagent_file(home, SESSION, "w1", sub)


def _table(*extra: str) -> str:
    result = invoke("tokens", "--by", "week", "--tz", "utc", *extra)
    assert result.exit_code == 0, result.output
    return str(result.stdout)


def _table_lines(text: str) -> list[str]:
    """The table's lines, the header to TOTAL."""
    lines = text.splitlines()
    end = next(at for at, line in enumerate(lines) if line.startswith("TOTAL"))
    return lines[:end + 1]


def test_dated_week_is_the_label_and_its_monday() -> None:
    assert dated_week("2026-W36") == "2026-W36 (Aug 31)"
    assert dated_week("2026-W01") == "2026-W01 (Dec 29)"  # a Monday of the year before
    assert dated_week("2026-W53") == "2026-W53 (Dec 28)"
    for key in ("unknown", "2025-W53", "2026-11", "2026-W36 (Aug 31)"):  # not a week's label: as it is
        assert dated_week(key) == key


def test_a_terminal_shows_each_weeks_monday_aligned(isolated_home: Path, tty: Any) -> None:
    _weeks_home(isolated_home)
    tty(200, color=False)
    lines = _table_lines(_table())
    assert [line.split("  ")[0] for line in lines[1:4]] == DATED
    # A line a week (pass 45): W48's subagent's 790 tokens in SUBAGENTS, no ``own``/``↳`` lines.
    assert len(lines) == 5 and lines[4].startswith("TOTAL ")
    assert [line.split()[-2] for line in lines[1:]] == ["-", "-", "790", "790"]
    # One width for every line: the header's, the weeks' and TOTAL's (COST right-aligned).
    assert len({len(line) for line in lines}) == 1, lines
    # Each number column starts where its header does, on every line (INPUT's right edge).
    edge = lines[0].index("INPUT") + len("INPUT")
    assert all(line[edge - 1].isdigit() and line[edge] == " " for line in lines[1:]), lines


def test_a_pipe_and_json_keep_the_label_alone(isolated_home: Path) -> None:
    _weeks_home(isolated_home)
    lines = _table_lines(_table())
    assert [line.split()[0] for line in lines[1:-1]] == PLAIN
    assert "(" not in "\n".join(lines)
    document = orjson.loads(_table("--json").encode())
    assert [row["key"] for row in document["rows"]] == PLAIN


def _figures(header: str) -> set[str]:
    return {name for name in FIGURES if name in header}


@pytest.mark.parametrize("width", [40, 48, 56, 72])
def test_a_narrow_table_leaves_the_monday_out_before_a_figure(isolated_home: Path, tty: Any, width: int,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _weeks_home(isolated_home)
    tty(width, color=False)
    dated = _table_lines(_table("--no-cache"))
    monkeypatch.setattr(tokens_text, "dated_week", lambda key: key)
    plain = _table_lines(_table("--no-cache"))
    assert _figures(dated[0]) == _figures(plain[0]), (dated, plain)
    assert max(map(len, dated)) <= width


@pytest.mark.parametrize("width", [200, 80, 48])
def test_a_warm_run_prints_what_a_fresh_one_does(isolated_home: Path, tty: Any, width: int) -> None:
    _weeks_home(isolated_home)
    tty(width, color=False)
    first = _table()
    assert _table() == first == _table("--no-cache")
    if width == 200:
        assert DATED[1] in first


def test_the_demo_at_80_columns_keeps_every_figure_and_the_mondays(tty: Any) -> None:
    # REASONING, a part of OUTPUT shown again, is the one column that goes for the Mondays.
    tty(80, color=False)
    result = invoke("--demo", "tokens", "--by", "week", "--tz", "utc")
    assert result.exit_code == 0, result.output
    lines = _table_lines(result.stdout)
    assert _figures(lines[0]) == FIGURES and "REASONING" not in lines[0]
    assert [line.split("  ")[0] for line in lines[1:4]] == ["2026-W42 (Oct 12)", "2026-W45 (Nov 2)", "2026-W48 (Nov 23)"]
    assert "left out to fit 80 columns: REASONING" in result.stderr and "numbers rounded" not in result.stderr
    assert all(len(line) <= 80 for line in lines)


def test_a_folded_week_is_named_by_its_label_alone(isolated_home: Path, tty: Any) -> None:
    # A week whose calls spent 0 tokens is folded into the note under TOTAL: named there by
    # its label, not ``2026-W20 (May 11)`` inside the note's own parentheses.
    _weeks_home(isolated_home)
    idle = "4ee40000-0000-4000-8000-000000000002"
    claude_session_file(isolated_home, idle, [
        claude_user(idle, "2026-05-12T12:00:00.000Z", "idle"),
        claude_assistant(idle, "2026-05-12T12:00:01.000Z", msg_id="z1", request_id="rz1", uuid="z1",
                         usage=claude_usage(input=0, output=0))])
    tty(200, color=False)
    text = _table()
    note = next(line for line in text.splitlines() if "0 tokens" in line)
    assert "2026-W20" in note and "May" not in note, note
    assert [line.split("  ")[0] for line in _table_lines(text)[1:4]] == DATED
