"""The ``tokens`` text table, pass 31: its PROJECT column fitted as ``list``'s CWD is, a
table of "not recorded" alone, the note of a model with no price, and model names.

- PROJECT showed ``…weather-app`` where ``list`` shows ``…/weather-app``: its last folder's
  name is shown whole, taking from the title (``tablepaths.paths_fitted``), on a patched table
  (``cli.tablepatch``) as on a whole one, byte for byte.
- Two sessions that recorded no tokens left out TITLE, PROJECT and DATE at 80 columns to
  keep five empty number columns, and the TOTAL line's ``not recorded`` stood in INPUT.
- A model with no price said ``COST ≥$… is … a lower bound`` under a table showing ``-``.
- ``claude-sonnet-4-5-20250929`` was kept whole beside Cursor's ``sonnet-4.5`` and cost a
  60-column table its INPUT column: ``claude-sonnet-4-5`` tells them apart.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Callable

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.term import Terminal
from agentscan.cli.tokens_notes import no_price
from agentscan.cli.tokens_models import model_names
from agentscan.cli.tokens_text import print_lines, row_lines
from agentscan.model import TokenUsage
from agentscan.scan.tokenreport import TokenReport, TokenRow
from cursor_builders import user, write_transcript
from patch_builders import BASE, IDS, project_session

runner = CliRunner()


def cells(line: str) -> list[str]:
    return re.split(r" {2,}", line.strip())


def invoke(*args: str) -> tuple[list[str], str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines(), " ".join(result.stderr.split())


# --- PROJECT as list's CWD -------------------------------------------------------------------

@pytest.mark.parametrize("width", (120, 130))
def test_the_demo_shows_a_project_s_last_folder_whole(tty, width: int) -> None:
    tty(width, color=False)
    lines, _ = invoke("--demo", "tokens")
    # CWD outlasts DATE since pass 40: at 120 it is the second column, at 130 the third
    project_at = cells(lines[0]).index("CWD")
    projects = {cells(line)[project_at] for line in lines if re.match(r"[a-z]+:", line)}
    # was …weather-app; the title gives more since (``test_tokens_project_pass33``): …/src/weather-app
    assert {project.rsplit("/", 1)[-1] for project in projects} >= {"weather-app", "recipe-api", "inventory-api"}
    assert all(project.startswith("…/") for project in projects), projects
    assert all(len(line) <= width for line in lines)


def test_in_a_pipe_the_projects_are_whole(isolated_home: Path) -> None:
    lines, _ = invoke("--demo", "tokens")
    assert "/home/demo/src/weather-app" in {cells(line)[2] for line in lines[1:-1] if ":" in line.split()[0]}




def patched_as_fresh(table_ways: list[str]) -> list[str]:
    made = invoke("tokens")
    assert table_ways[-1] == "patched"
    assert made == invoke("tokens", "--no-cache")  # byte for byte, the notes too
    return made[0]


#: a long path with a short name, another, and a shorter path with a longer name
PATHS = ("/home/dev/src/zzzzzzzzzzzzzzzzzzzzzzzz/app", "/home/dev/src/zzzzzzzzzzzzzzzzz/tools",
         "/home/dev/src/a-much-longer-project")
TITLES = ("A prompt long enough to be cut in a narrow table, the first one", "Another prompt, long too", "Short title")


def test_a_project_whose_name_needs_room_is_patched_in_as_a_whole_table_fits_it(
        isolated_home: Path, table_ways: list[str], table_splices: list[bool], tty: Callable[..., None]) -> None:
    """Its cells are no wider than the others': the table's layout is the kept one, but not
    its PROJECT column, widened from the title: not spliced from the kept text."""
    tty(139)
    for index in range(2):
        project_session(isolated_home, IDS[index], PATHS[index], TITLES[index], index)
    before, _ = invoke("tokens")
    assert {cells(line)[2] for line in before[1:-1]} == {"…/app", "…/tools"}
    project_session(isolated_home, IDS[2], PATHS[2], TITLES[2], 2)
    text = patched_as_fresh(table_ways)
    assert cells(text[1])[2] == "…/a-much-longer-project"  # not …-longer-project: the title gave the room
    assert cells(text[0]) == cells(before[0]) and table_splices == [False]


def test_a_patched_table_is_spliced_while_its_projects_fit_as_they_did(
        isolated_home: Path, table_ways: list[str], table_splices: list[bool], tty: Callable[..., None]) -> None:
    tty(139)
    for index in range(3):
        project_session(isolated_home, IDS[index], PATHS[index], TITLES[index], index)
    whole, _ = invoke("tokens")
    project_session(isolated_home, IDS[1], PATHS[1], TITLES[1], 4, tokens=300)  # as wide as before
    assert patched_as_fresh(table_ways) != whole
    assert table_splices == [True]
    (isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{IDS[2]}.jsonl").unlink()
    text = patched_as_fresh(table_ways)  # the path that widened PROJECT gone: narrowed again, not spliced
    assert {cells(line)[2] for line in text[1:-1]} == {"…/app", "…/tools"}
    assert table_splices == [True, False]


# --- "not recorded" alone ----------------------------------------------------------------------

def test_sessions_that_recorded_no_usage_alone_are_their_note_alone(tty) -> None:
    """Pass 40: by session too, a session that recorded no usage is named under the table,
    as a grouping names it; a table of none but those is that line (was a table of "not
    recorded" rows in one TOKENS column)."""
    tty(100, color=False)
    lines, err = invoke("--demo", "tokens", "a4b8c2d6", "e5f6a7b8")
    # (pass 60: said once, the line that says none recorded any; the ids are the ones asked for)
    # (the ``show`` to copy reads the home this run read: ``--demo``, as every hint names it)
    assert lines == []
    assert err == ("no usage: none of the 2 sessions asked for recorded any (their tokens are not recorded, as "
                   "`agentscan --demo show cursor:a4b8c2d6` says of the newest)"), err


def test_a_summary_of_nothing_recorded_is_its_note_alone(isolated_home: Path) -> None:
    """No row to total (pass 39: a header over ``TOTAL not recorded`` said nothing the note does not)."""
    lines, err = invoke("--demo", "tokens", "--by", "model", "a4b8c2d6")
    # In a pipe on stderr (pass 42): stdout has no row to give.
    # (the session was asked for by id: stderr says first what the answer is, pass 53)
    # (pass 60: said once, its ``show`` named whole; the "(+ 1 session …)" line said it again)
    assert lines == [] and err == ("no usage: the session asked for recorded none (its tokens are not recorded, as "
                                   "`agentscan --demo show cursor:a4b8c2d6-1e3f-4a5b-8c7d-9e0f1a2b3c4d` says)"), err


def test_a_table_of_not_recorded_alone_then_one_with_numbers_again(isolated_home: Path, table_ways: list[str]) -> None:
    """A patch never totals nothing recorded (``answerpatch`` makes such a table whole); the
    basis kept before it still patches the table once numbers are back."""
    write_transcript(isolated_home, "home-dev-shop", "11111111-aaaa-4000-8000-000000000001", [user("q")], mtime=BASE)
    claude = project_session(isolated_home, IDS[0], "/home/dev/src/app", "A title", 1)
    lines, _ = invoke("tokens")
    assert "INPUT" in lines[0]
    claude.unlink()
    lines, err = invoke("tokens")
    # (pass 58: what the answer is said first, as for a session asked for by id)
    assert lines == [] and err.startswith("no usage: the only Cursor session recorded none (its tokens are not "
                                          "recorded, as `")
    assert err.endswith(" show cursor:11111111-aaaa-4000-8000-000000000001` says)"), err
    assert table_ways[-1] == "whole"
    assert (lines, err) == invoke("tokens", "--no-cache")
    project_session(isolated_home, IDS[1], "/home/dev/src/app", "A title", 2)
    assert "INPUT" in patched_as_fresh(table_ways)[0]


# --- the note of a model with no price -----------------------------------------------------------

def unpriced_note(rows: list[TokenRow], capsys: pytest.CaptureFixture[str], tty) -> str:
    tty(200, color=False)
    term = Terminal(tty=True, width=200, color=False)
    total = TokenUsage(sum(row.tokens.input for row in rows if row.tokens))
    priced = sum((row.cost_priced or Decimal(0) for row in rows), Decimal(0))

    def lines(compact: bool):
        return [row_lines(row, row.key, [], term, compact=compact) for row in rows]

    # What the table shows unknown is told from the rows (``no_price``), not from its cells.
    report = TokenReport("model", tuple(rows), total, cost_priced=priced or None, unpriced_models=("mystery-1",))
    models, unknown = no_price(report)
    print_lines("model", lines(False), lambda: lines(True), (total, None, priced or None), [], models, term,
                unknown=unknown)
    return " ".join(capsys.readouterr().err.split())


def unpriced(key: str, priced: str | None) -> TokenRow:
    return TokenRow(key, TokenUsage(1000), None, (), None, None, cost_priced=None if priced is None else Decimal(priced),
                    unpriced_models=("mystery-1",))


def test_a_cost_shown_as_a_dash_is_not_called_a_lower_bound(capsys, tty) -> None:
    err = unpriced_note([unpriced("mystery-1", None)], capsys, tty)
    assert "COST '-': unknown" in err
    assert "mystery-1" not in err  # named by its warning alone
    assert "≥" not in err and "at least" not in err


def test_a_lower_bound_shown_is_told_of(capsys, tty) -> None:
    err = unpriced_note([unpriced("mixed", "1.25")], capsys, tty)
    assert "COST '≥$N': at least what the priced calls cost" in err


def test_a_dash_and_a_lower_bound_are_both_told_of(capsys, tty) -> None:
    err = unpriced_note([unpriced("mixed", "1.25"), unpriced("mystery-1", None)], capsys, tty)
    assert "COST '-': unknown; '≥$N': at least what the priced calls cost" in err


# --- model names -------------------------------------------------------------------------------

TERM = Terminal(tty=True, width=100, color=False)


@pytest.mark.parametrize("models, shown", [
    # Beside Cursor's sonnet-4.5: without its date, not whole.
    (["claude-sonnet-4-5-20250929", "claude-4.5-sonnet", "gpt-5"], ["claude-sonnet-4-5", "claude-4.5-sonnet", "gpt-5"]),
    # Two snapshots of one model: only whole are they apart.
    (["claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20251101", "claude-opus-4-5-20251101"],
     ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20251101", "opus-4.5"]),
    # A snapshot beside the name without a date: the longer form read as the other's.
    (["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"], ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"]),
    (["claude-opus-4-5-20251101", "claude-haiku-4-5-20251001"], ["opus-4.5", "haiku-4.5"]),
])
def test_a_model_is_named_in_the_shortest_form_no_other_reads_alike_as(models: list[str], shown: list[str]) -> None:
    assert model_names(models, TERM).names == shown
    assert len({name.lower().replace(".", "-") for name in shown}) == len(shown)


def test_the_demo_by_model_at_60_columns_keeps_input(tty) -> None:
    tty(60, color=False)
    lines, err = invoke("--demo", "tokens", "--by", "model")
    # INPUT was left out; pass 57: OUTPUT outlasts the cache columns, as in ccusage's narrow table
    assert cells(lines[0]) == ["MODEL", "INPUT", "OUTPUT", "TOTAL", "COST"]
    assert any(line.startswith("sonnet-4.5 (claude) ") for line in lines)  # its agent named (pass 46)
    assert "sonnet-4.5 (cursor)" in "\n".join(lines) and "20250929" not in "\n".join(lines)
    assert all(len(line) <= 60 for line in lines)

