"""A grouped ``tokens`` table is a line a row (pass 45), its subagents' part a column.

``tokens --by day`` on a terminal was three lines a day (the row, ``  own`` and ``  ↳ 4
subagent runs``): 207 lines for 68 days, where ccusage users expect a line a day.  Now the
row's delegated runs' tokens are its SUBAGENTS cell, after TOTAL (the ``↳`` line's TOTAL;
the own part is TOTAL less it), ``-`` for a row with none; the column goes just after
REASONING on a narrow terminal, named in the note.  A pipe has the column too (the parts
again, one more field for ``awk``: no note that they are left out).  By session each
run's line stays, and ``--json`` is as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import orjson
import pytest

from agentscan.cli.tokens_notes import PARTS_NOTE
from agentscan.cli.term import width_of
from builders import cells, ran

Tty = Callable[..., None]


def _table(out: str) -> list[str]:
    """The table's lines, its header to its TOTAL."""
    lines = out.splitlines()
    return lines[:next(at for at, line in enumerate(lines) if line.startswith("TOTAL")) + 1]


def _json(by: str) -> dict[str, Any]:
    document: dict[str, Any] = orjson.loads(ran("--demo", "tokens", "--by", by, "--json")[0])
    return document


def _runs(row: dict[str, Any]) -> int:
    """A ``--json`` row's subagent runs' tokens together."""
    return sum(run["tokens"]["total"] for run in row["subagents"])


def _by_key(lines: list[str]) -> dict[str, list[str]]:
    return {cells(line)[0]: cells(line) for line in lines[1:]}


def test_by_day_on_a_terminal_is_a_line_a_day_its_runs_in_subagents(isolated_home: Path, tty: Tty) -> None:
    document = _json("day")
    tty(200, color=False)
    out, _ = ran("--demo", "tokens", "--by", "day")
    lines = _table(out)
    days = [row["key"] for row in document["rows"]]
    # The header, a line a day, TOTAL: no ``own`` nor ``↳`` line.
    assert len(lines) == len(days) + 2 and [cells(line)[0] for line in lines[1:-1]] == days
    assert not any(line.startswith(" ") for line in lines) and "↳" not in out
    header = cells(lines[0])
    assert header[1:] == ["INPUT", "CACHE READ", "CACHE WRITE", "OUTPUT", "REASONING", "TOTAL", "SUBAGENTS", "COST"]
    at = header.index("SUBAGENTS")
    rows = _by_key(lines)
    for row in document["rows"]:
        # The runs' total as --json has it (the ``↳`` line's TOTAL), or ``-``: none.
        assert rows[row["key"]][at] == (f"{_runs(row):,}" if row["subagents"] else "-"), row["key"]
        # TOTAL beside it, whole: the own part is TOTAL less it.
        assert rows[row["key"]][at - 1] == f"{row['tokens']['total']:,}"
    assert rows["2026-10-14"][at] == "-"  # a day with no run
    assert rows["2026-11-25"][at] == "13,470"
    assert rows["TOTAL"][at] == f"{sum(map(_runs, document['rows'])):,}" == "44,552"
    assert all(width_of(line) == width_of(lines[0]) for line in lines)  # aligned, right-aligned numbers


@pytest.mark.parametrize("by", ["week", "month", "model", "provider", "cwd"])
def test_every_grouping_is_a_line_a_row(isolated_home: Path, tty: Tty, by: str) -> None:
    keys = len([row for row in _json(by)["rows"] if row["tokens"] and row["tokens"]["total"]])
    tty(250, color=False)
    lines = _table(ran("--demo", "tokens", "--by", by)[0])
    assert len(lines) == keys + 2 and not any(line.startswith(" ") for line in lines), lines
    assert cells(lines[0])[-2:] == ["SUBAGENTS", "COST"]
    assert cells(lines[-1])[-2] == "44,552"


def test_by_agent_keeps_its_counted_keys(isolated_home: Path, tty: Tty) -> None:
    tty(200, color=False)
    lines = _table(ran("--demo", "tokens", "--by", "agent")[0])
    rows = _by_key(lines)
    assert rows["main"][-2] == "-"
    # A kind made only of delegated runs says how many in its key; its SUBAGENTS is its TOTAL.
    assert rows["reviewer (1 run)"][-3:-1] == ["13,470", "13,470"]
    assert len(lines) == len(rows) + 1


def test_narrow_terminals_leave_subagents_out_after_reasoning_and_say_so(isolated_home: Path, tty: Tty) -> None:
    tty(80, color=False)
    out, err = ran("--demo", "tokens", "--by", "day")
    assert cells(_table(out)[0])[-3:] == ["TOTAL", "SUBAGENTS", "COST"]
    assert "left out to fit 80 columns: REASONING;" in " ".join(err.split())
    tty(70, color=False)
    out, err = ran("--demo", "tokens", "--by", "day")
    lines = _table(out)
    assert "SUBAGENTS" not in lines[0] and "CACHE WRITE" in lines[0] and len(lines) == 9
    assert "left out to fit 70 columns: REASONING, SUBAGENTS;" in " ".join(err.split())
    assert all(width_of(line) <= 70 for line in lines)


def test_a_rounded_table_rounds_subagents_too() -> None:
    # (The demo's numbers are small: a day of the bench's scale-1 home, 2026-11-01.)
    from decimal import Decimal

    from agentscan.cli.term import Terminal
    from agentscan.cli.tokens_text import row_lines
    from agentscan.model import TokenUsage
    from agentscan.scan.tokenreport import TokenRow

    row = TokenRow("2026-11-01", TokenUsage(894_891, 20_649_650, 909_923, 263_676), TokenUsage(1000),
                   (("s:1/a", TokenUsage(686, 976_249, 58_178, 10_186)),), Decimal("14.24"), Decimal("13.57"))
    term = Terminal(tty=True, width=80, color=False)
    (full,) = row_lines(row, row.key, [], term, compact=False)
    (rounded,) = row_lines(row, row.key, [], term, compact=True)
    assert full.cells[-3:] == ["22,718,140", "1,045,299", "$14.24"]
    assert rounded.cells[-3:] == ["22.7M", "1.0M", "$14.24"]


def test_by_session_keeps_its_own_and_run_lines(isolated_home: Path, tty: Tty) -> None:
    tty(250, color=False)
    lines = _table(ran("--demo", "tokens")[0])
    assert "SUBAGENTS" not in lines[0]
    assert any(line.startswith("  own ") for line in lines) and any(line.startswith("  ↳ a1b2c3d ") for line in lines)


def test_a_pipe_has_the_column_and_no_note_of_parts_left_out(isolated_home: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli import term

    monkeypatch.setattr(term, "stderr_is_tty", lambda: True)  # ``tokens --by day | awk …`` at a terminal
    document = _json("day")
    out, err = ran("--demo", "tokens", "--by", "day")
    header, *rows, total = out.splitlines()
    fields = header.replace("CACHE ", "CACHE_").split()
    assert fields == ["DAY", "INPUT", "CACHE_READ", "CACHE_WRITE", "OUTPUT", "REASONING", "TOTAL", "SUBAGENTS", "COST"]
    # One field each, as awk splits them: ``-`` (no run) sums as 0.
    assert [row.split()[7] for row in rows] == [str(_runs(row)) if row["subagents"] else "-"
                                                for row in document["rows"]]
    assert total.split()[7] == "44552" and all(len(row.split()) == 9 for row in rows)
    assert PARTS_NOTE not in " ".join(err.split())
    # By session the parts are still left out of a pipe, and said so.
    assert PARTS_NOTE in " ".join(ran("--demo", "tokens")[1].split())


def test_runs_that_recorded_no_usage_still_fill_the_cell() -> None:
    """A row with tokens whose runs recorded none: ``-``, never an empty cell (a pipe's fields
    for ``awk`` would shift onto COST); a row that recorded nothing itself: empty (its "not
    recorded" is laid over the number columns)."""
    from agentscan.cli.term import Terminal
    from agentscan.cli.tokens_runs import subagents_cell
    from agentscan.model import TokenUsage
    from agentscan.scan.tokenreport import TokenRow

    pipe = Terminal(tty=False, width=80, color=False)
    usage = TokenUsage(input=100, cache_read=0, cache_write=0, output=10)
    row = TokenRow(key="2026-11-03", tokens=usage, own=usage, subagents=(("s/run-1", None),))
    assert subagents_cell(row, str, pipe) == "-"
    unrecorded = TokenRow(key="2026-11-03", tokens=None, own=None, subagents=(("s/run-1", None),))
    assert subagents_cell(unrecorded, str, pipe) == ""
