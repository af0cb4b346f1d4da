"""``tokens`` in a pipe prints the table's rows alone (pass 42): the header, a line a row, the
TOTAL; the lines naming folded rows go to stderr (as ``list``'s hints do), and by session a
row's own and subagent parts (which ``awk`` added to the row they are part of) are left out,
stderr saying where they are (grouped, the runs' part is a column, SUBAGENTS: pass 45).  On a terminal all of it stays as it was.  And the hint under a long
table names a ``--since`` that keeps some of its sessions, never an empty week."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest
from typer.testing import CliRunner

from agentscan.cli import tablepatch, term, tokens_notes
from agentscan.cli.tokens_notes import PARTS_NOTE, fewer_sessions
from agentscan.cli.term import width_of
from builders import cells, claude_assistant, claude_subagent_file, claude_usage, dated_sessions, ran
from patch_builders import BASE, IDS, append, session, sidechain_call, turn
from spies import record_results

runner = CliRunner()
UNRECORDED = "(+ 2 sessions that recorded no usage, not counted: cursor:a4b8c2d6-1e3f-4a5b-8c7d-9e0f1a2b3c4d, "


@pytest.fixture
def stderr_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """``agentscan tokens | awk …`` typed at a terminal: stdout a pipe, stderr the terminal."""
    monkeypatch.setattr(term, "stderr_is_tty", lambda: True)


def tokens(*args: str) -> tuple[str, str]:
    return ran("tokens", *args)


@pytest.mark.parametrize("by", ["session", "model", "day", "agent"])
def test_a_piped_table_is_its_header_its_rows_and_its_total(stderr_on_a_terminal: None, by: str) -> None:
    out, err = tokens("--demo", "--by", by)
    header, *rows, total = out.splitlines()
    assert header.startswith("ID " if by == "session" else by.upper()) and total.startswith("TOTAL")
    # No part's line (indented) and no note: what awk sums is the rows, and they add up to TOTAL.
    assert not any(line.startswith((" ", "(")) for line in rows), rows
    at = cells(header).index("TOTAL")
    total_at = -2 if by == "session" else at
    assert sum(int(cells(row)[at]) for row in rows) == int(cells(total)[total_at]) == 371634
    # What the table does not say is on stderr: the sessions in no row, and by session where
    # the parts are.  Grouped, the runs' part is a field of its own (pass 45), ``-`` for none,
    # which awk sums as 0: nothing left out to say.
    assert UNRECORDED in err
    if by == "session":
        assert PARTS_NOTE in " ".join(err.split()) and "SUBAGENTS" not in header
    else:
        runs_at = cells(header).index("SUBAGENTS")
        assert runs_at == at + 1 and cells(header)[-1] == "COST"
        runs = [cells(row)[runs_at] for row in rows]
        assert "-" in runs and sum(int(cell) for cell in runs if cell != "-") == int(cells(total)[runs_at]) == 44552
        assert PARTS_NOTE not in " ".join(err.split())


def test_on_a_terminal_the_parts_and_the_names_stay_under_their_rows(tty: Callable[..., None]) -> None:
    tty(250, color=False)
    out, err = tokens("--demo")
    lines = out.splitlines()
    assert any(line.startswith("  own ") for line in lines) and any(line.startswith("  ↳ ") for line in lines)
    assert lines[-1].startswith("(+ 2 sessions that recorded no usage") and lines[-2].startswith("TOTAL")
    assert "recorded no usage" not in err and "a pipe" not in err


def test_with_stderr_piped_too_the_names_are_said_and_the_hint_is_not() -> None:
    out, err = tokens("--demo", "--by", "model")
    assert "(+" not in out and "↳" not in out
    assert UNRECORDED in err and "a pipe" not in err  # (a hint, as list's: for a person at a terminal)


def test_a_table_with_no_delegated_call_says_nothing_of_parts(isolated_home: Path, stderr_on_a_terminal: None) -> None:
    session(isolated_home, IDS[0], 1, 100)
    out, err = tokens()
    assert len(out.splitlines()) == 3 and err == ""


def test_the_names_on_a_terminal_s_stderr_are_wrapped_to_it_each_whole(
        monkeypatch: pytest.MonkeyPatch, stderr_on_a_terminal: None) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    _, err = tokens("--demo")
    named = err[err.index("(+"):].splitlines()[:3]
    assert len(named) > 1 and all(width_of(line) <= 60 for line in named), named
    assert "cursor:e5f6a7b8-2c3d-4e5f-a6b7-c8d9e0f1a2b3)" in [word for line in named for word in line.split()]


def test_a_patched_table_says_of_parts_what_a_whole_one_says(
        isolated_home: Path, stderr_on_a_terminal: None, table_ways: list[str], table_splices: list[bool]) -> None:
    with_agent = session(isolated_home, IDS[0], 1, 100)
    claude_subagent_file(isolated_home, IDS[0], "a1", [sidechain_call(IDS[0], "a1", 0, 40)])
    plain = session(isolated_home, IDS[1], 2, 200)
    first = tokens()
    assert PARTS_NOTE in " ".join(first[1].split()) and len(first[0].splitlines()) == 4
    append(plain, turn(IDS[1], 30, 200), BASE + 9000)  # as wide as before: the other row printed as kept
    made = tokens()
    assert table_ways[-1] == "patched" and table_splices[-1] is True
    assert made == tokens("--no-cache") and PARTS_NOTE in " ".join(made[1].split())
    with_agent.unlink()  # the one row with parts gone: nothing more to say of them
    (isolated_home / ".claude" / "projects" / "-home-dev-project" / IDS[0] / "subagents" / "agent-a1.jsonl").unlink()
    made = tokens()
    assert table_ways[-1] == "patched"
    assert made == tokens("--no-cache") and "a pipe" not in made[1]


# --- the hint under a long table ----------------------------------------------------------------


def test_a_long_table_names_a_since_that_keeps_its_newest_week(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tty: Callable[..., None]) -> None:
    """Its sessions are two months old: ``--since 7d`` kept none of them."""
    monkeypatch.setattr(tokens_notes, "LONG_TABLE", 5)
    paths = dated_sessions(isolated_home, [1, 3, 5, 7, 9, 11, 13, 15])
    tty(200)
    hint = ("8 sessions above, newest first: --since 2026-10-09 --tz UTC shows the last week's, --by day sums "
            "each day")  # the zone its date is in named (pass 42b)
    assert tokens("--tz", "utc")[1].splitlines()[-1] == hint
    # A patched table (printed from its kept text) dates its sessions alike.
    native = "00000000-7777-4000-8000-000000000000"
    append(paths[0], [claude_assistant(native, "2026-10-01T11:00:00.000Z", msg_id="late", request_id="rl",
                                       usage=claude_usage(5, 1))], BASE + 9000)
    spliced = record_results(monkeypatch, tablepatch, "_print_spliced")
    assert tokens("--tz", "utc")[1].splitlines()[-1] == hint and spliced == [True]
    # And it keeps what it says: the newest week's four.
    kept = tokens("--tz", "utc", "--since", "2026-10-09")[0].splitlines()
    assert [line.split()[1] for line in kept[1:-1]] == ["2026-10-15", "2026-10-13", "2026-10-11", "2026-10-09"]


@pytest.mark.parametrize(("dates", "said"), [
    (["2026-11-29", "2026-11-23"], ""),  # one week holds them all: nothing to narrow
    (["2026-11-29", "2026-11-22"], "--since 2026-11-23 shows the last week's, "),
    (["2026-11-29", "-"], "--since 2026-11-23 shows the last week's, "),  # an undated one is left out too
    (["-", "-"], ""),
    ([], ""),
])
def test_the_since_hint_is_given_only_where_it_narrows_to_some(dates: list[str], said: str) -> None:
    assert fewer_sessions(dates) == said
