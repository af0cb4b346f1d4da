"""A summary's subagent runs never cost a figure column.

``↳ 250 subagent runs`` made the PROVIDER column 21 wide where ``claude`` needs 6: at
80 columns the table left out CACHE WRITE (65.3M tokens, $245 of $1,097).  The label was
then shortened (``↳ 250 runs``, a bare ``↳``) before a column went.  Since pass 45 a
grouped row is one line, its runs' tokens a column of their own, SUBAGENTS (after TOTAL),
which goes right after REASONING, before any figure of the total.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from typer.testing import CliRunner

from agentscan.cli import app, tablefit
from agentscan.cli.tableparts import Column
from agentscan.cli.term import Terminal, width_of
from agentscan.cli.tokens_text import print_lines, row_lines
from agentscan.cli.tokens_notes import BOTH_PARTS_NOTE
from agentscan.model import TokenUsage, sum_usage
from agentscan.scan.tokenreport import TokenRow

runner = CliRunner()
FIGURES = ("INPUT", "CACHE READ", "CACHE WRITE", "OUTPUT", "TOTAL", "COST")


def _row(key: str, tokens: TokenUsage, cost: str, runs: int = 0, own: TokenUsage | None = None,
         own_cost: str = "0", runs_usage: TokenUsage | None = None, runs_cost: str = "0") -> TokenRow:
    # One run holds the runs' tokens, the others none: the table sums them into one line.
    subagents = tuple((f"agent-{n}", runs_usage if n == 0 else TokenUsage()) for n in range(runs))
    return TokenRow(key, tokens, own, subagents, Decimal(cost), Decimal(own_cost),
                    cost_priced=Decimal(cost), subagents_cost=Decimal(runs_cost) if runs else None)


#: the table by provider of the 1,500-session bench home (bench/generate.py, scale 1)
SCALE_1 = [
    _row("claude", TokenUsage(830_898, 1_467_682_769, 65_340_851, 15_160_521), "915.23", 250,
         TokenUsage(766_861, 1_354_562_650, 60_267_820, 14_005_106), "844.75",
         TokenUsage(64_037, 113_120_119, 5_073_031, 1_155_415), "70.48"),
    _row("codex", TokenUsage(58_783_471, 58_739_758, 0, 3_447_042, 1_727_783), "115.29"),
    _row("gemini", TokenUsage(19_954_836, 20_516_606, 0, 1_182_950, 389_934), "39.34"),
    _row("cursor", TokenUsage(5_203_425, 0, 0, 806_295), "27.70"),
]
TOTAL = TokenUsage(84_772_630, 1_546_939_133, 65_340_851, 20_596_808, 2_117_717)


def laid(rows: list[TokenRow], width: int, capsys: pytest.CaptureFixture[str], tty, *,
         on_terminal: bool = True) -> tuple[list[str], str]:
    """The table by provider of ``rows`` at ``width`` columns: its lines, and stderr."""
    tty(width, color=False)
    term = Terminal(tty=on_terminal, width=width, color=False)

    def lines(compact: bool):
        return [row_lines(row, row.key, [], term, compact=compact) for row in rows]

    print_lines("provider", lines(False), lambda: lines(True), (TOTAL, Decimal("1097.57"), Decimal("1097.57")),
                [], [], term, runs=sum_usage(usage for row in rows for _, usage in row.subagents))
    out, err = capsys.readouterr()
    return out.splitlines(), " ".join(err.split())


def headers(line: str) -> list[str]:
    return re.split(r" {2,}", line.strip())


def row_of(lines: list[str], key: str) -> list[str]:
    return next(line for line in lines if line.startswith(key + " ")).split()


def test_at_80_columns_subagents_and_cache_write_stay_rounded(capsys, tty) -> None:
    lines, err = laid(SCALE_1, 80, capsys, tty)
    # A line a row: no line of runs (pass 45), CACHE WRITE kept (it was left out for the label).
    assert headers(lines[0]) == ["PROVIDER", *FIGURES[:5], "SUBAGENTS", "COST"]
    assert len(lines) == len(SCALE_1) + 2 and not any(line.startswith(" ") for line in lines)
    assert row_of(lines, "claude")[1:] == ["830.9k", "1.5B", "65.3M", "15.2M", "1.5B", "119.4M", "$915.23"]
    assert row_of(lines, "codex")[-2] == "-"  # no runs
    assert row_of(lines, "TOTAL")[-2] == "119.4M"
    assert "left out to fit 80 columns: REASONING; numbers rounded" in err
    assert all(width_of(line) <= 80 for line in lines)


@pytest.mark.parametrize("width", (120, 200))
def test_where_it_fits_subagents_is_whole(capsys, tty, width: int) -> None:
    lines, err = laid(SCALE_1, width, capsys, tty)
    assert headers(lines[0]) == ["PROVIDER", *FIGURES[:4], "REASONING", "TOTAL", "SUBAGENTS", "COST"]
    assert len(lines) == len(SCALE_1) + 2
    # The runs' tokens together (the ``↳`` line's TOTAL was): 64,037 + 113,120,119 + 5,073,031 + 1,155,415.
    assert row_of(lines, "claude")[-3:] == ["1,549,015,039", "119,412,602", "$915.23"]
    assert [row_of(lines, key)[-2] for key in ("codex", "gemini", "cursor")] == ["-", "-", "-"]
    assert err == BOTH_PARTS_NOTE  # nothing left out: only what REASONING and SUBAGENTS are


def test_in_a_pipe_subagents_is_a_column_too(capsys, tty) -> None:
    lines, err = laid(SCALE_1, 60, capsys, tty, on_terminal=False)
    # A line a row (pass 42): a pipe gets no runs line (``awk`` added it to its row's); the
    # runs' tokens in their own field (pass 45), so nothing is said left out.
    assert not any(line.startswith(" ") for line in lines) and len(lines) == len(SCALE_1) + 2
    assert headers(lines[0]) == ["PROVIDER", "INPUT", "CACHE READ", "CACHE WRITE", "OUTPUT", "REASONING", "TOTAL",
                                 "SUBAGENTS", "COST"]
    assert row_of(lines, "claude")[-3:] == ["1549015039", "119412602", "$915.23"]
    assert row_of(lines, "cursor")[-2] == "-"
    assert err == ""


def test_subagents_goes_before_any_figure(capsys, tty) -> None:
    lines, err = laid(SCALE_1, 68, capsys, tty)
    assert headers(lines[0]) == ["PROVIDER", *FIGURES]
    # No wider than the keys: the PROVIDER column is as wide as its header (INPUT is 6 wide: 84.8M).
    assert lines[0].startswith("PROVIDER" + "  " + " INPUT  ")
    assert "left out to fit 68 columns: REASONING, SUBAGENTS; numbers rounded" in err


@pytest.mark.parametrize("width", range(30, 141))
def test_subagents_never_costs_a_figure(capsys, tty, width: int) -> None:
    lines, _ = laid(SCALE_1, width, capsys, tty)
    shown = headers(lines[0])
    assert all(width_of(line) <= width for line in lines), lines
    assert len(lines) == len(SCALE_1) + 2
    # SUBAGENTS shown only beside every figure; REASONING only beside SUBAGENTS.
    assert "SUBAGENTS" not in shown or all(h in shown for h in FIGURES), (width, lines[0])
    assert "REASONING" not in shown or "SUBAGENTS" in shown, (width, lines[0])


@pytest.mark.parametrize("by", ("provider", "day", "month"))
def test_the_demo_at_80_columns_keeps_every_figure_and_subagents(tty, by: str) -> None:
    # Numbers exact, a line a row; REASONING (a part of OUTPUT shown again) goes for
    # SUBAGENTS.  (By week a terminal shows each week's Monday: test_week_dates_pass44.)
    tty(80, color=False)
    result = runner.invoke(app, ["--demo", "tokens", "--by", by])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    table_lines = lines[:lines.index(next(line for line in lines if line.startswith("TOTAL"))) + 1]
    assert headers(lines[0])[1:] == [*FIGURES[:5], "SUBAGENTS", "COST"]
    assert "left out to fit 80 columns: REASONING;" in " ".join(result.stderr.split())
    assert "numbers rounded" not in result.stderr
    assert not any(line.startswith(" ") for line in table_lines)
    assert row_of(table_lines, "TOTAL")[-2] == "44,552"  # the demo's runs together
    assert all(width_of(line) <= 80 for line in lines)


def test_a_session_s_subagents_keep_their_ids(tty) -> None:
    # By session a sub-line names its subagent: never shortened (nor is it a summary's runs).
    tty(60, color=False)
    lines = runner.invoke(app, ["--demo", "tokens"]).stdout.splitlines()
    assert any(line.startswith("  ↳ a1b2c3d ") for line in lines), lines


# --- tablefit.least_lost ---------------------------------------------------------------------

COLUMNS = [Column("KEY"), Column("A", right=True, drop=2), Column("B", right=True, drop=3), Column("T", right=True)]
TERM = Terminal(tty=True, width=16, color=False)


def measured(widths: list[int], seen: list[int], name: int) -> tablefit.Way:
    def natural() -> list[int]:
        seen.append(name)
        return widths
    return natural, False


def test_least_lost_takes_a_later_group_only_for_a_column_worth_keeping() -> None:
    seen: list[int] = []
    # Group 0 leaves out B (not worth keeping); group 1 would keep it: not taken, not measured.
    chosen = tablefit.least_lost(COLUMNS, [[measured([3, 3, 4, 3], seen, 0)], [measured([3, 2, 2, 2], seen, 1)]],
                              TERM, {"A", "T"})
    assert chosen is not None and chosen[:2] == (0, 0) and seen == [0]
    # Worth keeping: taken.
    chosen = tablefit.least_lost(COLUMNS, [[measured([3, 3, 4, 3], seen, 0)], [measured([3, 2, 2, 2], seen, 1)]],
                              TERM, {"A", "B", "T"})
    assert chosen is not None and chosen[:2] == (1, 0)


def test_least_lost_takes_a_later_way_of_a_group_to_keep_any_column_a_strict_one_only_a_worthy_one() -> None:
    seen: list[int] = []
    wide, narrow = [6, 3, 3, 3], [1, 3, 3, 3]  # B goes when the key is 6 wide
    chosen = tablefit.least_lost(COLUMNS, [[measured(wide, seen, 0), measured(narrow, seen, 1)]], TERM, {"A", "T"})
    assert chosen is not None and chosen[:2] == (0, 1) and tablefit.hidden(COLUMNS, chosen[2]) == []
    strict = (lambda: narrow, True)
    chosen = tablefit.least_lost(COLUMNS, [[measured(wide, seen, 0), strict]], TERM, {"A", "T"})
    assert chosen is not None and chosen[:2] == (0, 0)  # B is not worth a strict way
    chosen = tablefit.least_lost(COLUMNS, [[measured(wide, seen, 0), strict]], TERM, {"A", "B", "T"})
    assert chosen is not None and chosen[:2] == (0, 1)
    seen.clear()
    chosen = tablefit.least_lost(COLUMNS, [[measured(narrow, seen, 0), measured(narrow, seen, 1)]], TERM, {"A"})
    assert chosen is not None and chosen[:2] == (0, 0) and seen == [0]  # nothing left out: no more measured


def test_least_lost_is_none_when_a_way_cannot_be_told() -> None:
    assert tablefit.least_lost(COLUMNS, [[(lambda: [20, 3, 3, 3], False)], [(lambda: None, False)]], TERM, {"A"}) is None


def test_by_model_on_a_terminal_names_models_as_list_does(isolated_home, tty) -> None:  # noqa: ANN001
    """``sonnet-4-5`` for ``claude-sonnet-4-5-20250929``; whole in a pipe, and whole where two
    models would read alike."""
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

    def session(native: str, model: str) -> None:
        at = "2026-11-01T10:00:00Z"
        claude_session_file(isolated_home, native, [
            claude_user(native, at, "hi"),
            claude_assistant(native, at, msg_id=f"m-{native}", request_id=f"r-{native}", usage=claude_usage(10, 5),
                             model=model)])

    session("1a2b3c4d-0000-4000-8000-000000000001", "claude-sonnet-4-5-20250929")
    session("1a2b3c4d-0000-4000-8000-000000000002", "claude-haiku-4-5-20251001")
    piped = invoke("tokens", "--by", "model").stdout
    assert "claude-sonnet-4-5-20250929" in piped and "claude-haiku-4-5-20251001" in piped
    tty(100)
    keys = [line.split()[0] for line in invoke("tokens", "--by", "model").stdout.splitlines()[1:-1]]
    assert sorted(keys) == ["haiku-4.5", "sonnet-4.5"]
    session("1a2b3c4d-0000-4000-8000-000000000003", "claude-sonnet-4-5")  # the same short name
    keys = [line.split()[0] for line in invoke("tokens", "--by", "model").stdout.splitlines()[1:-1]]
    assert sorted(keys) == ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "haiku-4.5"]  # whole: only those


def test_model_names_that_read_alike_are_whole() -> None:
    from agentscan.cli.term import Terminal
    from agentscan.cli.tokens_models import model_names

    term = Terminal(tty=True, width=100, color=False)
    models = ["claude-sonnet-4-5-20250929", "claude-4.5-sonnet", "claude-opus-4-5-20251101", "gpt-5"]
    # Longer only as far as tells them apart: without the date (tests/test_tokens_layout_pass31.py).
    assert model_names(models, term).names == ["claude-sonnet-4-5", "claude-4.5-sonnet", "opus-4.5", "gpt-5"]
