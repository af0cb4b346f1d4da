"""Mends of ``tokens``' cut table by session (review of pass 45): a pipe's summing line keeps
``awk``'s fields (``others``, DATE and CWD ``-``); ``list`` and ``tokens`` check ``--limit``
and ``--all`` in one function; the library cuts a report's rows (``first_rows``), the CLI
only words and lays out the line; one session left over gets its own row, not a ``+1 more``
line; the docs say what the rounded costs and ``--json --all`` do."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_calls

runner = CliRunner()
SESSIONS = 30


def _native(index: int) -> str:
    return f"{index:08x}-4545-4000-8000-000000000000"


def _session(home: Path, index: int, *, model: str = "claude-sonnet-4-5-20250929", tokens: int | None = None) -> Path:
    """Session ``index``, active on November ``index + 1`` (the newest the last made)."""
    native = _native(index)
    ts = f"2026-11-{1 + index:02d}T10:00:00.000Z"
    spend = 1000 + 37 * index if tokens is None else tokens
    usage = claude_usage(spend, 10 + index if spend else 0, cache_write=3 * spend, cache_read=5 * spend)
    return claude_session_file(home, native, [
        claude_user(native, ts, f"task {index}"),
        claude_assistant(native, ts, msg_id=f"m{index}", request_id=f"r{index}", usage=usage, model=model)],
        mtime=1_790_000_000 + index * 86_400)


def _home(home: Path, sessions: int = SESSIONS) -> None:
    for index in range(sessions):
        _session(home, index)


def _tokens(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, ["tokens", *args])
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def _body(out: str) -> list[str]:
    """A table's lines between its header and its TOTAL (a pipe's: a line a row)."""
    lines = out.splitlines()
    assert lines[0].startswith("ID ") and lines[-1].startswith("TOTAL")
    return lines[1:-1]


# -- 1: a pipe's summing line keeps awk's fields ----------------------------------------


def test_a_piped_summing_line_is_one_word_with_dashes_for_date_and_cwd(isolated_home: Path) -> None:
    _home(isolated_home)
    rows = _body(_tokens("--limit", "3")[0])
    assert len(rows) == 4
    fields = [line.split() for line in rows]
    assert fields[-1][:3] == ["others", "-", "-"]
    # ``awk '{print $4}'`` is INPUT on every line, the summing one too (``+27 more`` moved it
    # to CACHE READ's field): $4 to $9 (INPUT to TOTAL) of the others' line are their sums.
    every = [line.split() for line in _body(_tokens("--all")[0])]
    assert [row[0] for row in every[:3]] == [row[0] for row in fields[:3]]
    # (REASONING, $8, is ``-`` on every line: Claude records none apart, pass 48.)
    assert fields[-1][3:9] == [str(sum(int(row[column]) for row in every[3:])) if column != 7 else "-"
                               for column in range(3, 9)]
    assert {row[7] for row in every} == {"-"}
    assert [row[3:9] for row in fields[:3]] == [row[3:9] for row in every[:3]]
    # The header's fields line up the same way: ID DATE CWD INPUT.
    assert _tokens("--limit", "3")[0].split()[:4] == ["ID", "DATE", "CWD", "INPUT"]


def test_a_terminal_keeps_its_count_and_blank_date_and_cwd(isolated_home: Path, tty: Callable[..., None]) -> None:
    _home(isolated_home)
    tty(220)
    line = _body(_tokens("--limit", "3")[0])[-1]
    assert line.startswith("+27 more ") and line.split()[2].replace(",", "").isdigit()  # no DATE, no CWD: INPUT next
    assert line.split().count("-") == 1  # REASONING's alone (Claude records none apart): no DATE or CWD dash


# -- 5: one check of --limit and --all for list and tokens -------------------------------


@pytest.mark.parametrize("args, words", [
    (["--limit", "0"], "--limit must be a whole number of 1 or more, not 0"),
    (["--all", "-n", "3"], "give --limit N or --all, not both"),
    (["-n", "2", "-n", "3"], "--limit takes one number, not 2 (2, 3)"),
])
def test_list_and_tokens_check_limit_and_all_in_one_function(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], words: str) -> None:
    from agentscan.cli import actions

    _home(isolated_home, 2)
    calls = record_calls(monkeypatch, actions, "limit_and_all", lambda limit, show_all, **kwargs: kwargs)
    said = []
    for command in ("list", "tokens"):
        result = runner.invoke(app, [command, *args])
        assert result.exit_code == 2 and result.stdout == ""
        said.append(result.stderr.splitlines()[0])  # then each its own "Try 'agentscan … --help'"
    assert calls == [{}, {"by": "session"}]  # (pass 58: no json_refused: --json takes --limit)
    assert words in said[0] and said[0] == said[1]
    # list's own behaviour is unchanged: --json with --limit is taken there.
    assert runner.invoke(app, ["list", "--json", "--limit", "1"]).exit_code == 0


# -- 9a: the library cuts a report's rows; the CLI words the line ------------------------


def test_the_library_gives_the_first_rows_and_one_row_summing_the_rest(isolated_home: Path) -> None:
    from agentscan import Scanner, token_report
    from agentscan.model import sum_usage
    from agentscan.scan.tokenreport import FirstRows, first_rows, summed_row

    _home(isolated_home, 6)
    _session(isolated_home, 0, model="mystery-model-x")  # no price: the sum's cost is a bound
    _session(isolated_home, 1, tokens=0)  # 0 tokens: kept where it is, neither counted nor summed
    with Scanner() as scanner:
        report = token_report(scanner, by="session")
    assert len(report.rows) == 6
    newest = tuple(sorted(report.rows, key=lambda row: row.key, reverse=True))  # ``_native`` sorts by age
    cut = first_rows(newest, 2)
    assert isinstance(cut, FirstRows) and cut.rest is not None
    assert [row.key for row in cut.rows] == [newest[0].key, newest[1].key, newest[4].key]  # the 0-token one kept
    assert [row.key for row in cut.summed] == [newest[2].key, newest[3].key, newest[5].key]
    assert cut.rest.key == "others" and cut.rest.own is None and cut.rest.subagents == ()
    # The kept rows and the sum add up to the report's total, tokens and the priced cost.
    assert sum_usage(row.tokens for row in (*cut.rows, cut.rest)) == report.total
    assert cut.rest.cost is None and cut.rest.unpriced_models == ("mystery-model-x",)
    assert cut.rest.cost_priced == sum(row.cost_priced or 0 for row in cut.summed)
    assert summed_row(cut.summed, "rest").tokens == cut.rest.tokens
    assert first_rows(newest, 2, key="the rest").rest.key == "the rest"  # type: ignore[union-attr]
    # Exactly one left over is not summed: its row is kept (10b).
    assert first_rows(newest, 4) == FirstRows(newest, None, ())
    assert first_rows(newest, 3).rest is not None


def test_the_cli_cuts_through_the_library(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan import tokenreport

    _home(isolated_home, 5)
    cuts = record_calls(monkeypatch, tokenreport, "first_rows", lambda rows, shown, *rest, **kwargs: (len(rows), shown))
    rows = _body(_tokens("--limit", "2", "--no-cache")[0])
    assert cuts == [(5, 2)] and rows[-1].split()[0] == "others"


# -- 10b: one session left over gets its own row ------------------------------------------


def test_one_session_left_over_is_shown_not_summed(isolated_home: Path, tty: Callable[..., None]) -> None:
    _home(isolated_home)
    every = _tokens()
    assert _tokens("--limit", "29") == every  # a pipe: every row, no line of one session's sums
    rows = _body(_tokens("--limit", "28")[0])
    assert len(rows) == 29 and rows[-1].startswith("others ")


def test_a_terminal_of_26_sessions_shows_each(isolated_home: Path, tty: Callable[..., None]) -> None:
    _home(isolated_home, 26)
    tty(220)
    out, err = _tokens()
    assert len(_body(out)) == 26 and "summed" not in out + err and "more" not in out
    assert out == _tokens("--all")[0]
    _session(isolated_home, 26)
    out, err = _tokens()
    assert _body(out)[-1].startswith("+2 more ") and "25 of 27 sessions" in err


# -- 8, 10c, 1: the docs say it ------------------------------------------------------------


def test_the_docs_say_the_costs_are_rounded_json_all_is_taken_and_a_pipe_says_others() -> None:
    docs = " ".join((Path(__file__).parents[1] / "docs" / "cli.md").read_text().split())
    assert "their costs are each rounded to the cent" in docs
    assert "`--json --all` is taken" in docs
    assert "In a pipe the summing line is keyed `others`, one word, and its `DATE` and `CWD` are `-`" in docs
    assert "nor at 26: one session left over gets its own row" in docs
