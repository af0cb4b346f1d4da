"""A terminal purist's narrow panes (pass 53): what a 30- to 41-column terminal was given."""

from __future__ import annotations

import pytest

from agentscan.cli.term import width_of


def _fitted(monkeypatch: pytest.MonkeyPatch, line: str, width: int) -> list[str]:
    from agentscan.cli import term

    monkeypatch.setattr(term, "stderr_is_tty", lambda: True)
    monkeypatch.setattr(term, "terminal_width", lambda: width)
    return term.fitted_error(line).splitlines()


@pytest.mark.parametrize("width", [40, 41])
def test_try_is_not_left_alone_above_a_command_that_just_fits(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    """Run by a path (``/tmp/s53/term/p/bin/agentscan``), click's help line put ``Try`` alone on
    a line at 40 and 41 columns, above a command that fits its own line only by the indent:
    the line read as cut off.  The command stays whole, on its own line; ``Try:`` leads it in."""
    lines = _fitted(monkeypatch, "Try '/tmp/s53/term/p/bin/agentscan --help' for help.", width)
    assert lines == ["Try:", "  '/tmp/s53/term/p/bin/agentscan --help'", "  for help."], lines
    assert all(width_of(line) <= width for line in lines)


def test_a_short_word_mid_prose_gets_no_colon(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _fitted(monkeypatch, "hint: `agentscan --demo list --grep TEXT` finds it by title", 40)
    assert lines[:2] == ["hint:", "  `agentscan --demo list --grep TEXT`"], lines


# --tz GMT ------------------------------------------------------------------------------------


def test_tz_gmt_is_taken_as_utc_with_london_s_zone_named() -> None:
    """``GMT`` is tzdata's UTC all year: a London user's summer days came out an hour off, and
    nothing said so (``EST`` and ``MST`` had their note)."""
    from typer.testing import CliRunner

    from agentscan.cli import app

    result = CliRunner().invoke(app, ["--demo", "tokens", "--by", "day", "--tz", "GMT"])
    assert result.exit_code == 0, result.output
    assert "note: --tz GMT is UTC all year, with no summer time" in result.stderr
    assert "--tz Europe/London" in result.stderr and "Europe/London" not in result.stdout
    lower = CliRunner().invoke(app, ["--demo", "list", "--tz", "gmt"])
    assert lower.exit_code == 2 and "did you mean GMT or Europe/London?" in lower.stderr


# left out to fit, at 30 columns --------------------------------------------------------------


def test_a_table_showing_no_part_of_total_does_not_say_total_counts_them(tty) -> None:  # noqa: ANN001
    """At 30 columns ``tokens`` shows ID and TOTAL alone: "TOTAL still counts INPUT, CACHE READ,
    CACHE WRITE and OUTPUT" (said for parts shown that no longer add up to it) was three of the
    note's eight lines, with no part shown to add up.  A table that shows a part still says it."""
    from typer.testing import CliRunner

    from agentscan.cli import app

    tty(30)
    narrow = CliRunner().invoke(app, ["--demo", "tokens"])
    assert narrow.exit_code == 0
    note = narrow.stderr[narrow.stderr.index("left out to fit"):]
    assert "TOTAL still counts" not in note and len(note.splitlines()) <= 6, note
    assert all(width_of(line) <= 30 for line in note.splitlines()), note
    tty(60)
    wider = CliRunner().invoke(app, ["--demo", "tokens", "--by", "day"])
    assert "TOTAL still counts CACHE WRITE" in " ".join(wider.stderr.split()), wider.stderr


# show --full: a tool's path whole ----------------------------------------------------------


def test_show_full_keeps_a_tool_s_path_whole_at_40_columns(tty) -> None:  # noqa: ANN001
    """``Read``'s input at 40 columns came out as ``/home/demo/src/weather-app/app/route`` and
    ``s.py`` on the next line: copied, neither opens.  It runs on for the terminal to fold, as
    the card's path does; prose still wraps at spaces."""
    from typer.testing import CliRunner

    from agentscan.cli import app

    tty(40)
    result = CliRunner().invoke(app, ["--demo", "show", "7f3c9a12", "--full", "--no-pager"])
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.stdout.splitlines()]
    assert "/home/demo/src/weather-app/app/routes.py" in lines, result.stdout
    prompt = lines.index("Add a 5-day forecast endpoint to the")  # (a prompt is wrapped as before)
    assert lines[prompt + 1] == "API and cover it with tests"
