"""A narrow terminal never prints a figure, an id or a time in part (a review, pass 33).

``prices`` cut its last price (``$3.…``) a column short of its table; ``tokens --by
model`` cut TOTAL (``371,6…``) beside whole 22-character model names; ``--by day`` kept
``↳ 1 subagent run`` whole and cut its figures; ``trace --list`` cut its count and time,
``list`` its tokens, and the line under ``tokens`` the ids it names.  Now a droppable
column goes, a label (a model's name, a runs label) is shortened, and as a last resort
the line is printed whole, wider than the terminal; the line of ids wraps.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app, table, tablefit
from agentscan.cli.tableparts import Column, Row
from agentscan.cli.term import Terminal, width_of

runner = CliRunner()
#: the demo's sessions that recorded no usage (named under a grouped table)
UNRECORDED = ("cursor:a4b8c2d6", "cursor:e5f6a7b8")
#: a figure, a time or an id cut: its last character a "…" right after a digit, "$" or ":"
CUT_FIGURE = re.compile(r"[\d$:,.]…")


def run(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output + result.stderr
    return result.stdout, result.stderr


def cells(line: str) -> list[str]:
    return line.split()


# --- prices ------------------------------------------------------------------------------------


def prices(*models: str) -> list[str]:
    """The table's lines (after the line naming the price data)."""
    lines = run("prices", *models)[0].splitlines()
    return lines[next(index for index, line in enumerate(lines) if line.startswith(("MODEL", "PRICED AS"))):]


def test_prices_one_column_short_cut_the_model_s_name_not_a_price(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(56)
    lines = prices("claude-sonnet-4-5")
    # (MODEL is left out: the answer names the model; then the answer is kept whole and the
    # cache write price goes, said under the table: pass 40)
    assert cells(lines[0]) == ["PRICED", "AS", "INPUT", "OUTPUT", "CACHE", "READ"]
    assert cells(lines[1]) == ["anthropic/claude-sonnet-4-5", "$3.00", "$15.00", "$0.30"]
    assert cells(lines[2]) == ["above", "200k", "$6.00", "$22.50", "$0.60"]
    assert all(width_of(line) <= 56 for line in lines)


@pytest.mark.parametrize("width", [40, 56])
def test_names_that_cut_would_read_alike_are_kept_whole_and_the_line_overflows(isolated_home: Path, tty,  # noqa: ANN001
                                                                               width: int) -> None:
    tty(width)
    lines = prices("claude-sonnet-4-5", "claude-sonnet-4-0")
    rows = [cells(line) for line in lines if line.startswith(("anthropic/", "claude-sonnet-4-", "…"))]
    # (pass 60) narrowed, the vendor goes whole first (pass 49: ``…/claude-sonnet-4-5``): the
    # model's name reads whole
    shown = ["anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4-0"] if width > 40 else [
        "claude-sonnet-4-5", "claude-sonnet-4-0"]
    assert [row[0] for row in rows] == shown
    assert all(row[-1].startswith("$") and "…" not in row[-1] for row in rows)
    # the cache prices go, said so, before a name is cut to read alike
    assert all(width_of(line) <= width for line in lines) and lines[0].split()[-1] in ("READ", "OUTPUT", "INPUT")


def test_prices_too_wide_for_even_a_cut_name_are_printed_whole(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(30)
    lines = prices("claude-sonnet-4-5")
    # (pass 45) PRICED AS is cut before OUTPUT goes (MODEL, which it names whole, went first),
    # from its start (pass 49) ...
    assert cells(lines[1]) == ["…ude-sonnet-4-5", "$3.00", "$15.00"]
    assert not any(CUT_FIGURE.search(line) for line in lines)
    tty(20)  # (a terminal is taken as 20 columns wide at least)
    lines = prices("claude-sonnet-4-5")
    # ... and when even its floor beside both prices does not fit, a price is left out (said
    # under the table), never one cut
    assert cells(lines[1]) == ["…e-sonnet-4-5", "$3.00"]
    assert not any(CUT_FIGURE.search(line) for line in lines)


def test_a_tier_label_is_a_number_never_cut(tty, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    """Today's tiers are round (``above 200k``); one that is not is written whole (``1,234,567``)."""
    from agentscan.cli.prices_text import print_prices

    tty(30)
    tiered = {"base": 3, "tiers": [{"above": 1_234_567, "price": 6}]}
    print_prices([{"query": "some-model", "model_id": "some-model", "provider": "vendor",
                   "price_fields": {"input_mtok": tiered, "output_mtok": 15}}])
    lines = capsys.readouterr().out.splitlines()
    assert any(cells(line)[:3] == ["above", "1,234,567", "$6.00"] for line in lines), lines
    assert not any(CUT_FIGURE.search(line) for line in lines)


# --- tokens ------------------------------------------------------------------------------------


def _totals(by: str) -> dict[str, int]:
    document = orjson.loads(run("--demo", "tokens", "--by", by, "--json")[0])
    return {row["key"]: row["tokens"]["total"] for row in document["rows"] if row["tokens"]}


@pytest.mark.parametrize("width", [20, 24, 30])
def test_tokens_by_model_cuts_the_model_names_not_the_totals(isolated_home: Path, tty, width: int) -> None:  # noqa: ANN001
    tty(width)
    out = run("--demo", "tokens", "--by", "model")[0]
    lines = out.splitlines()
    table_lines = lines[:lines.index(next(line for line in lines if line.startswith("TOTAL"))) + 1]
    assert cells(table_lines[0]) == ["MODEL", "TOTAL"]
    assert cells(table_lines[-1]) == ["TOTAL", f"{sum(_totals('model').values()):,}"]
    assert not any(CUT_FIGURE.search(line) for line in table_lines)
    # At 20 the names that read apart (``gpt-5.1-codex``, ``gpt-5.1-code…``) and TOTAL
    # need 22: the lines overflow, whole.
    assert all(width_of(line) <= max(width, 22) for line in table_lines)
    names = [re.split(" {2,}", line)[0] for line in table_lines[1:-1] if not line.startswith("  ")]  # ``sonnet-4.5 (claude)``: one
    assert len(set(names)) == len(names)  # cut, they still read apart
    assert any(name.endswith("…") for name in names)
    # A line a model (pass 45: its runs are the SUBAGENTS column, left out here): no runs
    # label to cut ("↳ 1 subagen…"); a model of delegated calls alone says its runs' count
    # where it fits, never cut ("haiku-4.5 (1…").
    assert len(table_lines) == len(_totals("model")) + 2
    assert not any(line.startswith("  ") for line in table_lines)
    assert not any(re.search(r"\([0-9]*…", line) for line in table_lines)


def test_tokens_by_model_at_30_columns_keeps_every_figure_whole(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(30)
    lines = run("--demo", "tokens", "--by", "model")[0].splitlines()
    assert cells(lines[1]) == ["gemini-3-flash-previ…", "78,927"]
    assert "TOTAL                  371,634" in lines


def test_tokens_by_day_at_24_columns_is_a_line_a_day(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(24)
    out, err = run("--demo", "tokens", "--by", "day")
    lines = out.splitlines()
    assert cells(lines[0]) == ["DAY", "TOTAL"]
    # No line of runs under a day (pass 45): SUBAGENTS, their column, is left out and named.
    assert lines[1:lines.index("TOTAL       371,634")] == [
        f"{day}  {total:>7,}" for day, total in _totals("day").items()]
    assert "SUBAGENTS" in " ".join((out + err).split())
    assert not any(CUT_FIGURE.search(line) for line in lines)
    assert "TOTAL       371,634" in lines


@pytest.mark.parametrize(("width", "by"), [(30, "model"), (60, "day"), (24, "provider")])
def test_the_line_of_ids_under_the_table_wraps_rather_than_naming_none(isolated_home: Path, tty, width: int,  # noqa: ANN001
                                                                       by: str) -> None:
    tty(width)
    lines = run("--demo", "tokens", "--by", by)[0].splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("(+ 2 sessions"))
    named = " ".join(line.strip() for line in lines[start:])
    assert named == f"(+ 2 sessions that recorded no usage, not counted: {UNRECORDED[0]}, {UNRECORDED[1]})"
    assert all(width_of(line) <= width for line in lines[start:])
    assert all(line.startswith("  ") for line in lines[start + 1:])


def test_the_line_of_ids_at_80_columns_names_each_one(isolated_home: Path, tty) -> None:  # noqa: ANN001
    # Wrapped, not cut to the ids that fit one line: it is the only place they are named.
    tty(80)
    last = run("--demo", "tokens", "--by", "model")[0].splitlines()[-2:]
    assert last == [f"(+ 2 sessions that recorded no usage, not counted: {UNRECORDED[0]},", f"  {UNRECORDED[1]})"]


# --- trace --list and list ---------------------------------------------------------------------


# (At 40 columns it is shortened, ``11-28 09:02``, as ``list``'s: tests/test_terminal_pass50.py.)
@pytest.mark.parametrize("width", [30])
def test_trace_list_leaves_out_its_time_rather_than_cut_it(isolated_home: Path, tty, width: int) -> None:  # noqa: ANN001
    tty(width)
    out, err = run("--demo", "trace", "--list")
    lines = out.splitlines()
    assert cells(lines[0]) == ["ID", "EVENTS"]
    assert cells(lines[1]) == ["claude:7f3c9a12", "15"]
    # as list's: the path and the prompt go first, in that order, then the time
    assert f"left out to fit {width} columns: CWD, TITLE, UPDATED" in " ".join(err.split())


def test_trace_list_at_80_columns_shows_the_time(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(80)
    out, err = run("--demo", "trace", "--list")
    # CWD goes before the title is cut below list's 25 characters (tests/test_cli_grammar_pass40.py)
    assert cells(out.splitlines()[0]) == ["ID", "UPDATED", "EVENTS", "TITLE"]
    assert re.fullmatch(r"claude:7f3c9a12  \d{4}-\d\d-\d\d \d\d:\d\d  +15  Add a 5-day forecast endpoint to the…",
                        out.splitlines()[1])
    assert "left out to fit 80 columns: CWD;" in " ".join(err.split())


def test_list_at_20_columns_shows_whole_ids_alone(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(20)
    out, err = run("--demo", "list")
    lines = out.splitlines()
    assert lines[0] == "ID"
    assert all(re.fullmatch(r"[a-z]+:[0-9a-f]{8}\*?", line) for line in lines[1:])
    assert "CWD, COST, TITLE, UPDATED, TOKENS" in " ".join(err.split())


def test_list_at_23_columns_keeps_its_tokens(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(23)
    lines = run("--demo", "list")[0].splitlines()
    assert cells(lines[0]) == ["ID", "TOKENS"]
    assert not any(CUT_FIGURE.search(line) for line in lines)


# --- the table ---------------------------------------------------------------------------------

TTY = Terminal(tty=True, width=20, color=False)


def test_fixed_columns_wider_than_the_terminal_are_printed_whole() -> None:
    columns = [Column("ID"), Column("TOTAL", right=True)]
    lines, hidden = table.render(columns, [Row(["claude:7f3c9a12", "371,634"])], TTY)
    assert lines == ["ID                 TOTAL", "claude:7f3c9a12  371,634"] and hidden == []
    assert tablefit.overflows(tablefit.layout(columns, [Row(["claude:7f3c9a12", "371,634"])], TTY), TTY)


def test_a_label_is_cut_only_once_no_column_is_left_to_drop() -> None:
    columns = [Column("MODEL", label=True, min_width=10), Column("COST", right=True, drop=1),
               Column("TOTAL", right=True)]
    rows = [Row(["gemini-3-flash-preview", "$0.03", "78,927"])]
    assert tablefit.fit(columns, rows, 40) == ([0, 1, 2], [22, 5, 6])  # it fits: nothing cut
    assert tablefit.fit(columns, rows, 30) == ([0, 2], [22, 6])  # COST goes, the name stays whole
    assert tablefit.fit(columns, rows, 25) == ([0, 2], [17, 6])  # then the name is cut
    assert tablefit.fit(columns, rows, 15) == ([0, 2], [10, 6])  # to its least, the line overflows
    lines, _ = table.render(columns, rows, Terminal(tty=True, width=25, color=False))
    assert lines[1] == "gemini-3-flash-p…  78,927"


def test_labels_are_cut_no_shorter_than_reads_them_apart() -> None:
    column = Column("MODEL", label=True, min_width=10)
    assert tablefit.told_apart(column, ["gpt-5.1-codex", "gpt-5.1-codex-mini"]).min_width == 13
    assert tablefit.told_apart(column, ["gemini-3-flash-preview", "gpt-5"]).min_width == 10
    assert tablefit.told_apart(column, ["claude-sonnet-4-5", "claude-sonnet-4-0"]).min_width == 17


def test_a_way_that_fits_is_taken_over_one_that_overflows() -> None:
    """``least_lost``: a shorter label that keeps the line on the terminal is taken even when
    both leave out as many columns (a runs label is no figure)."""
    columns = [Column("DAY"), Column("COST", right=True, drop=1), Column("TOTAL", right=True)]
    long_label, short_label = [18, 5, 7], [10, 5, 7]
    chosen = tablefit.least_lost(columns, [[(lambda: long_label, False), (lambda: short_label, False)]],
                              Terminal(tty=True, width=24, color=False), {"TOTAL", "COST"})
    assert chosen == (0, 1, ([0, 2], [10, 7]))
