"""Pass 58, mends of what a review of 0839416a found said wrong on screen.

* ``prices --at`` noted "the price data dates no price of M at or before …" for nearly every
  model at any date: a model with no dated price change has nothing to say; the note is for a
  time before a model's first dated price (``pricing.library.dated_then``).
* ``words.quoted`` lets nothing that would not print through, and shows printable text as typed
  (a Windows path's backslashes kept one).
* A subagent recovered from progress records made its row's TOTAL ``≥``, but not its
  ``SUBAGENTS`` cell, nor its model's ``--breakdown`` line (``--by model`` marked that model).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from builders import lay_out_progress_session, ran


def test_prices_at_notes_only_a_time_before_the_models_first_dated_price(isolated_home: Path) -> None:
    for model in ("gpt-4o", "claude-sonnet-4-5"):  # priced alike at every date: nothing to note
        _, err = ran("prices", "--at", "2026-06-01", model)
        assert "note:" not in err and "prices in force at 2026-06-01 00:00" in err, err
        _, err = ran("prices", "--at", "2020-01-01", model)
        assert "note:" not in err, err
    _, err = ran("prices", "--at", "2020-01-01", "claude-opus-4-6")  # before its first dated price
    assert "note: the price data dates no price of claude-opus-4-6 at or before 2020-01-01 00:00" in err, err


@pytest.mark.parametrize("typed", ["a\\tb", "a\tb", "C:\\new", "C:\\Repo", "ends\\", "it's", "both'\"", "a\\\\b",
                                   "x\\x41", "zero\u200bwidth", "tab\t\\Repo", "a\x1b[31m"])
def test_quoted_shows_printable_text_as_typed_and_escapes_the_rest(typed: str) -> None:
    from agentscan.toolkit.words import quoted

    shown = quoted(typed)
    assert shown.isprintable(), shown  # nothing that would not print reaches the terminal
    if typed.isprintable() and not ("'" in typed and '"' in typed):
        assert shown[1:-1] == typed  # as typed, a backslash kept one
    else:
        assert ast.literal_eval(shown) == typed, shown  # escaped as a Python literal reads


def test_quoted_keeps_a_windows_path_as_typed() -> None:
    from agentscan.toolkit.words import quoted

    # (a whole path of ``\U``, ``\t`` and ``\n``: shown doubled by an earlier rule, which
    # read a typed backslash-letter as an escape)
    assert quoted("C:\\Users\\me\\new\\tools") == "'C:\\Users\\me\\new\\tools'"
    assert quoted("a\tb") == "'a\\tb'"  # a real tab: escaped


def test_a_recovered_runs_subagents_cell_and_breakdown_line_are_lower_bounds_on_a_terminal(isolated_home: Path,
                                                                                         tty) -> None:
    lay_out_progress_session(isolated_home)
    piped = [ran("tokens", "--by", by, *extra)[0] for by, extra in (("day", ("--breakdown",)), ("model", ()))]
    assert all("≥" not in out for out in piped), piped  # a pipe gets the plain figures
    tty(200, color=False)
    out, _ = ran("tokens", "--by", "day", "--breakdown")
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert lines["haiku-4.5"][6:9] == ["≥109,659", "≥109,659", "≥$0.04"], out  # TOTAL, SUBAGENTS, COST
    assert lines["2026-02-10"][7] == "≥109,659" and lines["TOTAL"][7] == "≥109,659", out
    assert "≥" not in " ".join(lines["opus-4.6"]), out  # (its calls all recorded)
    out, _ = ran("tokens", "--by", "model")
    haiku = next(line for line in out.splitlines() if line.startswith("haiku-4.5"))
    assert haiku.split()[-3:] == ["≥109,659", "≥109,659", "≥$0.04"], out
