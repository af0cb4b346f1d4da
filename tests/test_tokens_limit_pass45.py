"""``tokens`` by session on a terminal shows 25 sessions' rows, the others summed in one line
(``--all``: every one; ``--limit N``: N, in a pipe too): a heavy user's table scrolled 2,000
lines past, the newest first (pass 45)."""

from __future__ import annotations

import os
import re
from decimal import Decimal
from pathlib import Path
from typing import Callable

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app, recorded
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_calls

runner = CliRunner()
SESSIONS = 30
#: each session's tokens apart from its age: the cheapest are not the oldest
SPEND = [(index * 7) % SESSIONS for index in range(SESSIONS)]
#: a cell of a terminal's table: cells are two spaces apart or more
CELLS = re.compile(r"\s{2,}")
NUMBER = re.compile(r"^[0-9,]+$")


def _native(index: int) -> str:
    return f"{index:08x}-4545-4000-8000-000000000000"


def _session(home: Path, index: int, *, model: str = "claude-sonnet-4-5-20250929", tokens: int | None = None) -> Path:
    """Session ``index``, active on November ``index + 1``, its tokens ``SPEND``'s order."""
    native = _native(index)
    ts = f"2026-11-{1 + index:02d}T10:00:00.000Z"
    spend = 1000 + 100 * SPEND[index] if tokens is None else tokens
    usage = claude_usage(spend, 10 + index if spend else 0, cache_write=3 * spend, cache_read=5 * spend)
    return claude_session_file(home, native, [
        claude_user(native, ts, f"task {index}"),
        claude_assistant(native, ts, msg_id=f"m{index}", request_id=f"r{index}", usage=usage, model=model)],
        mtime=1_790_000_000 + index * 86_400)


def _home(home: Path, sessions: int = SESSIONS) -> list[Path]:
    return [_session(home, index) for index in range(sessions)]


def _tokens(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, ["tokens", *args])
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def _table(text: str) -> tuple[list[list[str]], list[str] | None, list[str]]:
    """A table's session lines, its summary line (``None``: none) and its TOTAL line, as cells
    (a part's lines, ``own`` and ``↳``, are left out)."""
    lines = [line for line in text.splitlines() if line and not line.startswith(("(+", " "))]
    assert lines[0].startswith("ID ") and lines[-1].startswith("TOTAL")
    rows = [CELLS.split(line.strip()) for line in lines[1:-1]]
    summary = [row for row in rows if _summing(row)]
    assert len(summary) <= 1 and (not summary or summary[0] is rows[-1])  # last, under the sessions
    return [row for row in rows if not _summing(row)], summary[0] if summary else None, CELLS.split(lines[-1].strip())


def _summing(cells: list[str]) -> bool:
    """Whether a line is the one summing the others: ``+5 more`` on a terminal, ``others`` in a pipe."""
    return cells[0].startswith("+") or cells[0] == "others"


def _figures(cells: list[str]) -> tuple[list[int], str]:
    """A line's numbers (INPUT to TOTAL) and its COST cell, the one after them (a pipe's
    summing line has ``-`` for its DATE and CWD)."""
    at = [index for index, cell in enumerate(cells) if NUMBER.match(cell)]
    return [int(cells[index].replace(",", "")) for index in at], cells[at[-1] + 1]


def _dollars(cost: str) -> Decimal:
    return Decimal(cost.lstrip("≥$").replace(",", ""))


def _cost_of(sessions: list[list[str]], field: str = "cost_usd") -> str:
    """The sum of the exact costs (``--json``'s) of the sessions whose lines are ``sessions``,
    as the table shows a cost (the rows' rounded costs add up to a cent more or less)."""
    from agentscan.cli.render import human_usd

    exact = {row["key"][:len("claude:") + 8]: row for row in orjson.loads(_tokens("--json")[0])["rows"]}
    known = [exact[cells[0]] for cells in sessions]
    unknown = any(row["cost_usd"] is None for row in known)
    priced = sum((Decimal(repr(row["cost_usd_priced"] or 0)) for row in known), Decimal(0))
    return human_usd(None if unknown else priced, priced)


def test_a_terminal_shows_25_sessions_then_one_line_of_the_others_sums(isolated_home: Path, tty: Callable[..., None]) -> None:
    _home(isolated_home)
    tty(220)
    out, err = _tokens()
    rows, summary, total = _table(out)
    assert len(rows) == 25 and summary is not None
    # Newest first: the five oldest are the ones summed.
    assert [row[0] for row in rows] == [f"claude:{_native(index)[:8]}" for index in range(SESSIONS - 1, 4, -1)]
    assert summary[0] == "+5 more" and summary[-1] == "older sessions, summed (--all lists each)"
    every, every_summary, every_total = _table(_tokens("--all")[0])
    assert len(every) == SESSIONS and every_summary is None and every_total == total  # TOTAL unchanged
    # Each column of the line is the sum of the rows it stands for (exact: the table's numbers are whole).
    others = [_figures(row) for row in every[25:]]
    numbers, cost = _figures(summary)
    assert numbers == [sum(column) for column in zip(*(figures for figures, _ in others))]
    # INPUT, CACHE READ, CACHE WRITE, OUTPUT, TOTAL (REASONING is ``-``: Claude records none apart, pass 48)
    assert len(numbers) == 5 and "-" in summary
    assert cost == _cost_of(every[25:])
    # The rows and the line add up to TOTAL.
    shown = [_figures(row)[0] for row in rows] + [numbers]
    assert [sum(column) for column in zip(*shown)] == _figures(total)[0]
    assert not any(re.match(r"\d{4}-\d\d-\d\d$", cell) or "/" in cell for cell in summary)  # no DATE, no CWD
    assert err.strip().splitlines()[-1] == ("25 of 30 sessions, newest first; the other 5 summed in one line: --all "
                                            "lists each, --since 2026-11-24 shows the last week's, --by day sums "
                                            "each day")


def test_a_pipe_gets_every_row_unless_limited(isolated_home: Path) -> None:
    _home(isolated_home)
    rows, summary, _ = _table(_tokens()[0])
    assert len(rows) == SESSIONS and summary is None
    limited, summary, total = _table(_tokens("--limit", "5")[0])
    assert len(limited) == 5 and summary is not None and summary[:3] == ["others", "-", "-"]
    numbers, cost = _figures(summary)
    every = [_figures(row) for row in rows]
    assert numbers == [sum(column) for column in zip(*(figures for figures, _ in every[5:]))]
    assert _dollars(cost) == _dollars(_cost_of([[f"claude:{row[0][7:15]}"] for row in rows[5:]]))
    assert [sum(column) for column in zip(*([figures for figures, _ in every[:5]] + [numbers]))] == _figures(total)[0]
    assert _table(_tokens("-n", "5")[0])[0] == limited
    assert _table(_tokens("--all")[0])[0] == rows


def test_json_lists_every_row_on_a_terminal_too(isolated_home: Path, tty: Callable[..., None]) -> None:
    _home(isolated_home)
    piped = _tokens("--json")[0]
    tty(100)
    assert _tokens("--json")[0] == piped == _tokens("--json", "--all")[0]
    assert len(orjson.loads(piped)["rows"]) == SESSIONS


@pytest.mark.parametrize("sort", ["cost", "tokens"])
def test_another_order_cuts_the_last_in_it(isolated_home: Path, tty: Callable[..., None], sort: str) -> None:
    _home(isolated_home)
    tty(220)
    rows, summary, _ = _table(_tokens("--sort", sort)[0])
    # The five that spent least are summed, not the five oldest.
    cheapest = sorted(range(SESSIONS), key=lambda index: SPEND[index])[:5]
    assert {row[0] for row in rows} == {f"claude:{_native(index)[:8]}" for index in range(SESSIONS)} - {
        f"claude:{_native(index)[:8]}" for index in cheapest}
    assert summary is not None and summary[0] == "+5 more" and summary[-1] == "other sessions, summed (--all lists each)"
    assert set(cheapest) != set(range(5))  # (the oldest five are not the cheapest)


def test_at_most_n_rows_are_never_cut(isolated_home: Path, tty: Callable[..., None]) -> None:
    _home(isolated_home, 25)
    tty(220)
    out, err = _tokens()
    rows, summary, _ = _table(out)
    assert len(rows) == 25 and summary is None and "summed" not in err
    rows, summary, _ = _table(_tokens("--limit", "25")[0])
    assert len(rows) == 25 and summary is None


def test_the_others_unknown_cost_shows_its_bound_and_folded_sessions_stay_named(
        isolated_home: Path, tty: Callable[..., None]) -> None:
    _home(isolated_home)
    _session(isolated_home, 0, model="mystery-model-x")  # among the oldest: summed
    _session(isolated_home, 1, tokens=0)  # 0 tokens: folded, named under the table, not summed
    tty(220)
    out, err = _tokens()
    rows, summary, total = _table(out)
    assert len(rows) == 25 and summary is not None and summary[0] == "+4 more"
    numbers, cost = _figures(summary)
    every, _, every_total = _table(_tokens("--all")[0])
    others = [_figures(row) for row in every[25:]]
    assert len(others) == 4 and numbers == [sum(column) for column in zip(*(figures for figures, _ in others))]
    assert cost.startswith("≥$") and cost == _cost_of(every[25:])
    assert _figures(total)[1].startswith("≥$") and total == every_total
    assert "(+ 1 session with 0 tokens: claude:00000001)" in out


@pytest.mark.parametrize("args, words", [
    (["--limit", "0"], "--limit must be a whole number of 1 or more, not 0"),
    (["-n", "-3"], "--limit must be a whole number of 1 or more, not -3"),
    (["--all", "--limit", "3"], "give --limit N or --all, not both"),
    (["--by", "day", "--limit", "3"], "--limit shapes the table by session; --by day shows every period's row"),
    (["--by", "model", "--all"], "--all shapes the table by session; --by model shows every model's row"),
])
def test_limits_it_cannot_keep_are_usage_errors(isolated_home: Path, args: list[str], words: str) -> None:
    _home(isolated_home, 2)
    result = runner.invoke(app, ["tokens", *args])
    assert result.exit_code == 2 and words in result.stderr and result.stdout == ""


def test_a_cut_table_is_remembered_and_made_again_after_a_session_grows(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tty: Callable[..., None], table_ways: list[str]) -> None:
    paths = _home(isolated_home)
    tty(160)
    again = record_calls(monkeypatch, recorded, "print_again", lambda *args, **kwargs: True)
    first = _tokens()
    every = _tokens("--all")  # the whole table's answer (and basis) beside the cut one's
    assert _tokens() == first and again == [True]  # printed again as remembered
    assert _tokens("--all") == every and again == [True, True]
    # The oldest session (summed in the last line) grows and is active now: the newest, on top.
    native = _native(0)
    with paths[0].open("ab") as handle:
        handle.write(orjson.dumps(claude_assistant(native, "2026-12-01T10:00:00.000Z", msg_id="late", request_id="rl",
                                                   usage=claude_usage(777, 5))) + b"\n")
    os.utime(paths[0], (1_790_000_000 + 40 * 86_400,) * 2)
    grown = _tokens()
    assert "patched" not in table_ways  # a cut table is never patched from a basis
    assert grown == _tokens("--no-cache") != first
    rows, summary, _ = _table(grown[0])
    assert rows[0][0] == f"claude:{native[:8]}" and summary is not None and summary[0] == "+5 more"
    assert _tokens() == grown and again[-1] is True
    # The whole table is still patched from its own basis, and agrees with the cut one's TOTAL.
    whole = _tokens("--all")
    assert table_ways[-1] == "patched" and whole == _tokens("--all", "--no-cache")
    assert _table(whole[0])[2] == _table(grown[0])[2]


@pytest.mark.parametrize("width", [60, 80, 100, 120, 200])
def test_a_cut_table_fits_a_narrow_terminal(isolated_home: Path, tty: Callable[..., None], width: int) -> None:
    _home(isolated_home)
    tty(width)
    out, _ = _tokens()
    lines = out.splitlines()
    assert all(len(line) <= width for line in lines)
    summary = next(line for line in lines if line.startswith("+5 more"))
    assert lines[lines.index(summary) + 1].startswith("TOTAL")
    # The line's key takes no more room than a session's id does: the next column starts past it.
    header = out.splitlines()[0]
    assert len(header) - len(header[len("ID"):].lstrip()) >= len("+5 more  ")


def test_the_help_and_docs_name_the_options(isolated_home: Path) -> None:
    result = runner.invoke(app, ["tokens", "--help"])
    assert "--limit" in result.stdout and "--all" in result.stdout
    docs = (Path(__file__).parents[1] / "docs" / "cli.md").read_text()
    # tokens' own rows of its options table (list's `--limit N` row was there before).
    tokens_options = docs[docs.index("agentscan tokens [ID]..."):]
    tokens_options = tokens_options[:tokens_options.index("\n\n", tokens_options.index("| option |"))]
    assert "| `--limit N`, `-n N` | by session:" in tokens_options and "| `--all`, `-a` | by session" in tokens_options


def test_a_table_that_grows_past_25_sessions_is_cut_not_patched_from_its_whole_basis(
        isolated_home: Path, tty: Callable[..., None], table_ways: list[str]) -> None:
    """A table of no more sessions than it shows, or one more (one row takes the room of a
    line summing one), is never cut: patched as a whole one is, until a session more makes it
    one to cut."""
    paths = _home(isolated_home, 25)
    tty(160)
    whole = _tokens()
    assert "summed" not in whole[0]
    with paths[3].open("ab") as handle:
        handle.write(orjson.dumps(claude_assistant(_native(3), "2026-11-04T11:00:00.000Z", msg_id="late",
                                                   request_id="rl", usage=claude_usage(5, 1))) + b"\n")
    patched = _tokens()
    assert table_ways == ["whole", "patched"] and patched == _tokens("--no-cache")
    _session(isolated_home, 25)  # the 26th: shown, not summed alone, and patched
    asked = len(table_ways)
    grown = _tokens()
    assert table_ways[asked:] == ["patched"] and grown == _tokens("--no-cache") and "summed" not in grown[0] + grown[1]
    assert len(_table(grown[0])[0]) == 26
    _session(isolated_home, 26)  # the 27th
    asked = len(table_ways)
    cut = _tokens()
    assert len(table_ways) == asked  # not asked to patch it
    assert cut == _tokens("--no-cache") and "+2 more" in cut[0]
    rows, summary, _ = _table(cut[0])
    assert len(rows) == 25 and rows[0][0] == f"claude:{_native(26)[:8]}"
