"""The review of pass 39 (items 3, 4, 5 and 7): tables as a person reads them.

- 3: an 80-column ``list`` gave its TITLE 11 characters and its CWD 15: the title is what
  people read (``gh issue list``), so it keeps 25 while MODEL, CWD or COST can go first.
- 7: ``tokens`` named the cwd PROJECT and cut it inside its name (``…ventory-api``); it is
  CWD, as in ``list``, and a path column shows its last folder's name whole or goes.
- 5: a ``tokens`` with no row printed a header, a TOTAL of 0 and a note on the columns it
  left out: only the note saying why is printed now.
- 4: a lower bound was rounded down (``≥$0.03``) under its priced row's ``$0.04``.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.render import human_usd
from agentscan.cli.tablefit import fit_natural
from agentscan.cli.tableparts import Column
from agentscan.cli.term import width_of
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()

#: the demo's projects (the last folder of each cwd)
NAMES = {"weather-app", "recipe-api", "cli-tool", "inventory-api", "billing-service", "notes"}


def cells(line: str) -> list[str]:
    return re.split(r" {2,}", line.strip())


def invoke(*args: str) -> tuple[list[str], str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines(), result.stderr


def column(lines: list[str], header: str) -> list[str]:
    """The cells of ``header``'s column in the demo's session rows (none of them blank)."""
    at = cells(lines[0]).index(header)
    return [cells(line)[at] for line in lines[1:] if re.match(r"[a-z]+:[0-9a-f]", line)]


# --- 3. list's title ---------------------------------------------------------------------------


def test_list_at_80_columns_keeps_25_title_characters_and_says_cwd_went(isolated_home: Path, tty) -> None:
    tty(80, color=False)
    lines, err = invoke("--demo", "list")
    assert cells(lines[0]) == ["ID", "UPDATED", "TOKENS", "COST", "TITLE"]
    titles = column(lines, "TITLE")
    assert min(len(title) for title in titles if title.endswith("…")) >= 25, titles  # was 11
    assert all(width_of(line) <= 80 for line in lines)
    assert "left out to fit 80 columns: MODEL, CWD;" in " ".join(err.split())


@pytest.mark.parametrize("width", (60, 80, 100, 120, 160, 240))
def test_list_fits_one_line_a_row_and_never_cuts_a_project_s_name(isolated_home: Path, tty, width: int) -> None:
    tty(width, color=False)
    lines, err = invoke("--demo", "list")
    assert len(lines) == 12 and all(width_of(line) <= width for line in lines), lines
    headers = cells(lines[0])
    if width >= 80:
        cut = [title for title in column(lines, "TITLE") if title.endswith("…")]
        assert all(len(title) >= 25 for title in cut), cut
    if "CWD" in headers:
        paths = column(lines, "CWD")
        assert {path.rsplit("/", 1)[-1] for path in paths} == NAMES, paths  # never …illing-service
        assert all(path.startswith(("/", "…/")) for path in paths), paths
    if width >= 100:
        assert "CWD" in headers


def test_a_title_keeps_what_it_wants_while_a_column_that_goes_before_it_is_left() -> None:
    columns = [Column("ID"), Column("COST", right=True, drop=4), Column("CWD", flex=True, min_width=10, drop=5),
               Column("TITLE", flex=True, min_width=12, drop=3, wants=25)]
    natural = [15, 6, 26, 60]
    assert fit_natural(columns, natural, 60) == ([0, 1, 3], [15, 6, 35])  # CWD goes, not 25 of the title
    assert fit_natural(columns, natural, 40) == ([0, 3], [15, 23])  # COST gone too: then it is cut below
    kept, widths = fit_natural(columns, natural, 80)  # room for both: CWD kept, cut as wide text is
    assert kept == [0, 1, 2, 3] and widths[3] >= 25 and sum(widths) + 2 * 3 == 80


# --- 7. tokens' CWD ----------------------------------------------------------------------------


@pytest.mark.parametrize("width", (100, 120, 125, 130, 160, 240))
def test_tokens_names_its_cwd_as_list_does_and_never_cuts_a_name(isolated_home: Path, tty, width: int) -> None:
    tty(width, color=False)
    lines, err = invoke("--demo", "tokens")
    assert "PROJECT" not in lines[0] and all(width_of(line) <= width for line in lines)
    if "CWD" not in cells(lines[0]):
        assert "CWD" in err  # said to be left out
        return
    paths = column(lines, "CWD")
    # (notes and cli-tool are the Cursor sessions that recorded no usage: named under the table, pass 40)
    assert {path.rsplit("/", 1)[-1] for path in paths} == NAMES - {"notes", "cli-tool"}, paths  # was …ventory-api
    assert all(path.startswith(("/", "…/")) for path in paths), paths


def test_a_path_column_goes_rather_than_cut_a_name(isolated_home: Path, tty) -> None:
    """At 100 columns the demo's CWD had 12 columns, ``…ing-service``: too few for
    ``…/billing-service``, it is left out, and the note says so."""
    tty(100, color=False)
    lines, err = invoke("--demo", "tokens")
    assert "CWD" not in cells(lines[0]) and "…ing-service" not in "\n".join(lines)
    assert "left out to fit 100 columns: REASONING, DATE, CWD;" in " ".join(err.split())  # pass 40's order


# --- 5. an empty tokens ------------------------------------------------------------------------


@pytest.mark.parametrize("terminal", (True, False))
def test_an_empty_window_prints_its_note_alone(isolated_home: Path, tty, terminal: bool) -> None:
    if terminal:
        tty(80, color=False)
    lines, err = invoke("--demo", "tokens", "--since", "2031-01-01")
    assert lines == []  # no header, no TOTAL of 0
    assert " ".join(err.split()) == ("no usage since 2031-01-01 00:00: none of the 11 sessions made a call in that range; "
                                     "the newest session before that range was last active on 2026-11-29: "
                                     "--since 2026-11-23 takes in its last week")


def test_an_empty_home_prints_its_note_alone(isolated_home: Path, tty) -> None:
    tty(80, color=False)
    lines, err = invoke("tokens", "--by", "day")
    assert lines == [] and "left out" not in err and "TOTAL" not in err
    assert " ".join(err.split()).startswith("no sessions found;")
    assert invoke("tokens", "--json")[0][0] == "{"  # JSON as ever


# --- 4. a lower bound rounded as a cost --------------------------------------------------------


@pytest.mark.parametrize("exact", ("0.038045", "0.035", "0.0349", "0.105", "1234.565", "0.01"))
def test_a_lower_bound_is_rounded_as_the_same_cost_known_would_be(exact: str) -> None:
    assert human_usd(None, Decimal(exact)) == "≥" + human_usd(Decimal(exact))
    assert human_usd(None, Decimal(exact), grouped=False) == "≥" + human_usd(Decimal(exact), grouped=False)


def test_a_bound_under_a_cent_stays_a_bound() -> None:
    assert human_usd(None, Decimal("0.004")) == human_usd(None, Decimal("0.0099")) == "≥<$0.01"


def test_a_total_never_reads_below_its_priced_row(isolated_home: Path, tty) -> None:
    """An Opus 4.5 call of $0.038045 and one of a model with no price: the row says $0.04,
    and the TOTAL (the same $0.038045, a lower bound) said ``≥$0.03``."""
    session = "44444444-1111-4222-8333-444444444444"
    usage = claude_usage(9, 220, cache_write=5200)
    claude_session_file(isolated_home, session, [
        claude_user(session, "2026-11-29T16:30:00.000Z", "Bump the project to Python 3.13", uuid="u1"),
        claude_assistant(session, "2026-11-29T16:30:05.000Z", msg_id="m1", request_id="r1", usage=usage,
                         model="claude-opus-4-5-20251101", uuid="a1", parentUuid="u1"),
        claude_assistant(session, "2026-11-29T16:31:05.000Z", msg_id="m2", request_id="r2", usage=usage,
                         model="acme-mystery-9", uuid="a2", parentUuid="a1"),
    ])
    tty(120, color=False)
    lines, _ = invoke("tokens", "--by", "model")
    costs = {cells(line)[0]: cells(line)[-1] for line in lines[1:] if line.strip()[:1].isalpha()}
    assert costs["opus-4.5"] == "$0.04" and costs["acme-mystery-9"] == "-"
    assert costs["TOTAL"] == "≥$0.04"  # was ≥$0.03
    listed, _ = invoke("list")
    assert cells(listed[1])[3] == "≥$0.04"
