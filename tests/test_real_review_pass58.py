"""Pass 58, a review on homes built from the real samples: what a user was told wrong or not at all.

* ``tokens`` of a home where no session recorded usage (Cursor alone) printed nothing on
  stdout and only "(+ 6 sessions that recorded no usage, …)" on stderr: no line said why
  there was no table (``tokens_empty.recorded_none``, for ids asked for alone).
* What a user typed, echoed in a message with ``!r``, had its backslashes doubled
  (``list --grep 'C:\\Repo'`` said ``'C:\\\\Repo'``): ``toolkit.words.quoted``.
* A session whose subagent is counted from progress records (its final call not in them) was
  marked only by the subagent line's note, cut on a narrow terminal: TOTAL and COST are ``≥``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import PROGRESS_SESSION, cli_json, invoke, lay_out_progress_session, ran
from cursor_builders import assistant, user, write_transcript

CHATS = ("a5800000-0000-4000-8000-00000000ee01", "a5800000-0000-4000-8000-00000000ee02")


@pytest.mark.usefixtures("only_cursor")
def test_tokens_of_a_home_where_no_session_recorded_usage_says_why_there_is_no_table(isolated_home: Path) -> None:
    for chat in CHATS:  # transcripts with no state DB: their tokens are not recorded
        write_transcript(isolated_home, "work-app", chat, [user("an idea"), assistant("ok")])
    before = cli_json("tokens")
    out, err = ran("tokens", "-p", "cursor")
    said = " ".join(err.split())
    assert out == ""
    # (pass 60: said once; the "(+ 2 sessions that recorded no usage, not counted …)" line
    # under no table said it again)
    assert said.startswith("no usage: none of the 2 Cursor sessions recorded any (their tokens are not recorded, as `"), said
    assert said.endswith(" show cursor:a5800000-0000-4000-8000-00000000ee02` says of the newest)") or said.endswith(
        " show cursor:a5800000-0000-4000-8000-00000000ee01` says of the newest)"), said
    out, err = ran("tokens", "--by", "day")
    assert out == "" and " ".join(err.split()).startswith("no usage: none of the 2 Cursor sessions recorded any"), err
    assert cli_json("tokens") == before  # (JSON as it was: every row, its tokens null)
    assert [row["tokens"] for row in before["rows"]] == [None, None]


@pytest.mark.parametrize("typed", ["C:\\Repo", "a'b", "tab\there", "zero\u200bwidth"])
def test_quoted_escapes_only_what_would_not_print(typed: str) -> None:
    from agentscan.toolkit.words import quoted

    expected = {"C:\\Repo": "'C:\\Repo'", "a'b": '"a\'b"', "tab\there": "'tab\\there'",
                "zero\u200bwidth": "'zero\\u200bwidth'"}[typed]
    assert quoted(typed) == expected


def test_a_backslash_typed_is_echoed_as_typed(isolated_home: Path) -> None:
    lay_out_progress_session(isolated_home)
    _, err = ran("list", "--grep", "C:\\Repo")
    assert "contains 'C:\\Repo' (1 searched)" in err, err
    result = invoke("show", "ab\\cdefg")
    assert "no session matches 'ab\\cdefg'" in result.stderr, result.stderr
    result = invoke("tokens", "--since", "x\\y")
    assert "cannot read the time 'x\\y'" in result.stderr, result.stderr


@pytest.mark.parametrize("width", [200, 60])
def test_a_session_counted_from_progress_records_is_a_lower_bound(isolated_home: Path, tty, width: int) -> None:
    lay_out_progress_session(isolated_home)
    tty(width, color=False)
    out, err = ran("tokens")
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    (session,) = [key for key in rows if key.startswith("claude:")]
    # TOTAL and COST are its two last figures at 60 columns, before TITLE at 200
    figures = [cell for cell in rows[session] if cell[:1].isdigit() or cell[:1] in "≥$"]
    assert figures[-2:] == ["≥310,423", "≥$0.35"], rows[session]
    assert [cell for cell in rows["TOTAL"] if cell.startswith("≥")] == ["≥310,423", "≥$0.35"]
    assert [cell for cell in rows["↳"] if cell.startswith("≥")] == ["≥109,659", "≥$0.04"], rows["↳"]
    assert not [cell for cell in rows["own"] if cell.startswith("≥")]  # (its own calls are whole)
    assert "≥ in TOTAL and COST (and on a line under a row): at least the figure: a subagent's transcript is gone" in (
        " ".join(err.split())), err
    out, _ = ran("tokens")  # (warm: the same)
    assert "≥310,423" in out
    # A pipe gets plain numbers, for ``awk``, and JSON as it was (its subagent's ``recovered_from``).
    tty(width)
    (row,) = cli_json("tokens")["rows"]
    assert row["key"] == f"claude:{PROGRESS_SESSION}" and row["subagents"][0]["recovered_from"] == "progress"
    assert row["tokens"]["total"] == 310423


def test_a_grouped_rows_count_of_runs_is_explained_when_shown(isolated_home: Path, tty) -> None:
    """``haiku-4.5 (1 run)``: a row of subagents' calls alone, said under the table with SUBAGENTS'
    note; where its count is dropped to fit (60 columns), so is the legend."""
    lay_out_progress_session(isolated_home)
    legend = "(N runs) after a key: a row of subagents' calls alone, made in N runs"
    tty(200, color=False)
    out, err = ran("tokens", "--by", "model")
    assert "haiku-4.5 (1 run)" in out
    assert legend in " ".join(err.split()), err
    tty(60, color=False)
    out, err = ran("tokens", "--by", "model")
    assert "(1 run)" not in out and legend not in " ".join(err.split()), (out, err)
    tty(200, color=False)
    _, err = ran("tokens", "--by", "day")  # (no such row: no legend)
    assert "(N runs)" not in err


def test_prices_at_a_time_before_any_dated_price_says_the_model_may_have_had_none(isolated_home: Path) -> None:
    _, err = ran("prices", "--at", "2020-01-01", "claude-opus-4-6")
    note = ("note: the price data dates no price of claude-opus-4-6 at or before 2020-01-01 00:00: these are its "
            "earliest prices, shown for any earlier time, though the model may have had no price then (the data "
            "holds no release date)")
    assert note in err.splitlines(), err
    # After its long-context premium's end (2026-03-13), a dated price: nothing to say.
    _, err = ran("prices", "--at", "2026-06-01", "claude-opus-4-6")
    assert "note:" not in err and "prices in force at 2026-06-01 00:00" in err, err
    answer = cli_json("prices", "--at", "2020-01-01", "claude-opus-4-6")  # (JSON as it was: no note)
    assert answer["at"] == "2020-01-01T00:00:00.000Z" or answer["at"].startswith("2019-12-3")
    assert sorted(answer) == ["at", "models", "prices", "schema", "stale_fetch", "warnings"]


def test_a_lower_bound_survives_a_patched_table(isolated_home: Path, tty, table_ways: list[str]) -> None:
    """A table patched from its kept basis (``cli.tablepatch``) says TOTAL's ``≥`` as a whole one
    does: a session counted from progress records arriving, then another session beside it."""
    from patch_builders import IDS, project_session

    tty(200, color=False)
    project_session(isolated_home, IDS[0], "/home/dev/src/app", "A title", 1)
    first, _ = ran("tokens")
    assert "≥" not in first
    lay_out_progress_session(isolated_home)
    for step in range(2):
        out, err = ran("tokens")
        total = [line for line in out.splitlines() if line.startswith("TOTAL")]
        assert "≥" in total[0], out
        assert "≥ in TOTAL and COST" in err
        assert (out, err) == ran("tokens", "--no-cache")
        project_session(isolated_home, IDS[1 + step], "/home/dev/src/app", "A title", 2 + step)
    assert "patched" not in table_ways[1:], table_ways
