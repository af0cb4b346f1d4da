"""The note under the ``tokens`` table of a model with no price, told from the rows' data;
and a model's snapshot date dropped by one function.

- The note was worded from the COST cells printed: with COST left out to fit a narrow
  terminal it still explained ``-`` and ``≥$…`` in a column not shown, and a ``-`` of a
  group that spent nothing (a zero-token group with no price and no warning, as Claude's
  ``<synthetic>`` notices were) was told of as a missing price.
- A patched table (``cli.tablepatch``) prints the note a whole one does, byte for byte.
- ``tokens_text`` dropped a model's ``-20250929`` with its own copy of ``render.model_text``'s
  check: one ``render.undated`` now.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Callable

import pytest
from typer.testing import CliRunner

from agentscan.cli import app, render
from agentscan.cli.term import Terminal
from agentscan.cli.tokens_notes import no_price
from agentscan.cli.tokens_models import model_names
from agentscan.cli.tokens_text import print_lines, row_lines
from agentscan.model import TokenUsage
from agentscan.scan.tokenreport import TokenReport, TokenRow
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from patch_builders import BASE, IDS

runner = CliRunner()
MYSTERY = "claude-mystery-9-20260101"


def invoke(*args: str) -> tuple[list[str], str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines(), result.stderr


def bare(text: str) -> str:
    """``text`` without whitespace: a note wrapped to a narrow terminal breaks words anywhere."""
    return "".join(text.split())



def session(home: Path, native_id: str, age: int, *, mystery: bool = False, priced: int = 0,
            notice: bool = False) -> Path:
    """A Claude session: calls of a model with no price, of a priced one, and a zero-token
    ``<synthetic>`` notice, as asked."""
    ts = "2026-11-01T09:00:0{}Z"
    records = [claude_user(native_id, ts.format(0), f"title {age}")]
    if mystery:
        records.append(claude_assistant(native_id, ts.format(1), msg_id=f"m1-{native_id}", request_id=f"r1-{native_id}",
                                        usage=claude_usage(1000, 200), model=MYSTERY))
    if priced:
        records.append(claude_assistant(native_id, ts.format(2), msg_id=f"m2-{native_id}", request_id=f"r2-{native_id}",
                                        usage=claude_usage(priced, 20)))
    if notice:
        records.append(claude_assistant(native_id, ts.format(3), msg_id=f"m3-{native_id}", request_id=f"r3-{native_id}",
                                        usage=claude_usage(), model="<synthetic>"))
    return claude_session_file(home, native_id, records, mtime=BASE + age * 60)


# --- COST left out to fit ------------------------------------------------------------------

def test_cost_left_out_to_fit_is_not_explained(isolated_home: Path, tty: Callable[..., None]) -> None:
    session(isolated_home, IDS[0], 0, mystery=True, priced=500_000)
    session(isolated_home, IDS[1], 1, notice=True, priced=300)
    tty(22, color=False)
    lines, err = invoke("tokens", "--by", "model")
    assert "COST" not in lines[0] and "TOTAL" in lines[0]
    # Nothing to explain: the note would only name the model its warning names (said twice).
    assert "seewarnings" not in bare(err) and f"warning:ClaudeCodemodel{MYSTERY}:noprice" in bare(err)
    assert "COST'-'" not in bare(err) and "COST'≥$N'" not in bare(err) and "atleastwhat" not in bare(err)
    assert "COST;widentheterminal" in bare(err)  # the note of the columns left out names it


def test_cost_shown_is_explained_as_before(isolated_home: Path, tty: Callable[..., None]) -> None:
    session(isolated_home, IDS[0], 0, mystery=True, priced=500_000)
    session(isolated_home, IDS[1], 1, notice=True, priced=300)
    tty(200, color=False)
    lines, err = invoke("tokens", "--by", "model")
    assert lines[0].rstrip().endswith("COST")
    assert "COST '-': unknown; '≥$N': at least what the priced calls cost" in " ".join(err.split())
    assert f"no price for {MYSTERY}" not in err  # the model named once, by its warning
    assert bare(err).count(f"warning:ClaudeCodemodel{MYSTERY}:noprice") == 1


# --- a dash of a group that spent nothing -----------------------------------------------------------

def note_of(rows: list[TokenRow], report: TokenReport, capsys: pytest.CaptureFixture[str],
            tty: Callable[..., None]) -> str:
    tty(200, color=False)
    term = Terminal(tty=True, width=200, color=False)

    def lines(compact: bool):
        return [row_lines(row, row.key, [], term, compact=compact) for row in rows]

    models, unknown = no_price(report)
    print_lines("model", lines(False), lambda: lines(True), (report.total, report.cost, report.cost_priced), [],
                models, term, unknown=unknown)
    out = capsys.readouterr()
    return out.out + " ".join(out.err.split())


MIXED = TokenRow("mixed", TokenUsage(1000), None, cost_priced=Decimal("1.25"), unpriced_models=("mystery-1",))


def test_a_dash_of_a_group_that_spent_nothing_is_no_missing_price(capsys, tty) -> None:
    # A row's runs of zero tokens with no price and no warning (``<synthetic>`` notices
    # priced as no price did so): its ``-`` is not the model's.
    notices = TokenRow("notices", TokenUsage(500), TokenUsage(500), (("agent-1", TokenUsage(0)),), Decimal("0.50"),
                       Decimal("0.50"), (None,), cost_priced=Decimal("0.50"), subagents_cost=None)
    rows = [MIXED, notices]
    report = TokenReport("model", tuple(rows), TokenUsage(1500), cost_priced=Decimal("1.75"),
                         unpriced_models=("mystery-1",))
    said = note_of(rows, report, capsys, tty)
    # A line a row (pass 45): the runs' 0 tokens in SUBAGENTS, no cost of their own shown.
    assert [line.split()[-3:] for line in said.splitlines() if line.startswith("notices")] == [["500", "0", "$0.50"]]
    assert "COST '≥$N': at least what the priced calls cost" in said
    assert "'-': unknown" not in said


def test_a_part_of_unknown_cost_is_explained(capsys, tty) -> None:
    # Its own calls have no price, its runs' do: ``-`` on the own line, ``≥$…`` on the row.
    row = TokenRow("mixed", TokenUsage(1000), TokenUsage(600), (("agent-1", TokenUsage(400)),), None, None,
                   (Decimal("1.25"),), cost_priced=Decimal("1.25"), unpriced_models=("mystery-1",),
                   subagents_cost=Decimal("1.25"))
    report = TokenReport("model", (row,), TokenUsage(1000), cost_priced=Decimal("1.25"), unpriced_models=("mystery-1",))
    # By session its own line shows it; grouped a row is one line (pass 45: its runs' part
    # is SUBAGENTS, tokens alone), so only the row's bound is shown and explained.
    assert no_price(replace(report, by="session")) == (["mystery-1"], frozenset({"-", "≥"}))
    assert no_price(replace(report, by="session"), with_parts=False) == (["mystery-1"], frozenset({"≥"}))
    assert no_price(report) == (["mystery-1"], frozenset({"≥"}))
    said = note_of([row], report, capsys, tty)
    assert "COST '≥$N': at least what the priced calls cost" in said and "'-': unknown" not in said


def test_a_bound_under_a_cent_is_a_bound_not_a_dash() -> None:
    # ``≥$0.00`` is never shown (``render.human_usd``): such a cost shows ``≥<$0.01`` (pass 38;
    # it was ``-``, which says no call had a price).
    row = TokenRow("m", TokenUsage(1000), None, cost_priced=Decimal("0.004"), unpriced_models=("mystery-1",))
    report = TokenReport("model", (row,), TokenUsage(1000), cost_priced=Decimal("0.004"), unpriced_models=("mystery-1",))
    assert no_price(report) == (["mystery-1"], frozenset({"≥"}))


def test_a_zero_token_group_of_an_unpriced_model_names_none() -> None:
    row = TokenRow("mystery-1", TokenUsage(0), None, unpriced_models=("mystery-1",))
    report = TokenReport("model", (row,), TokenUsage(0), cost=None, unpriced_models=("mystery-1",))
    assert no_price(report) == ([], frozenset())


# --- a patched table's note ----------------------------------------------------------------------

@pytest.mark.parametrize("width", (22, 200))
def test_a_table_of_a_model_with_no_price_is_made_whole_its_note_the_fresh_one(
        isolated_home: Path, table_ways: list[str], tty: Callable[..., None], width: int) -> None:
    """Its warning keeps no basis to patch: each run prints the note a fresh table does."""
    tty(width, color=False)
    session(isolated_home, IDS[0], 0, mystery=True, priced=500_000)
    session(isolated_home, IDS[1], 1, notice=True, priced=300)
    invoke("tokens")
    session(isolated_home, IDS[2], 2, priced=700)
    made = invoke("tokens")
    assert table_ways[-1] == "whole"
    assert made == invoke("tokens", "--no-cache")
    assert ("COST" in made[0][0]) == (width == 200)
    assert f"warning:ClaudeCodemodel{MYSTERY}:noprice" in bare(made[1])
    assert ("COST'≥$N':atleastwhatthepricedcallscost" in bare(made[1])) == (width == 200)  # COST left out at 22


@pytest.mark.parametrize("width", (22, 200))
def test_a_patched_table_of_notices_has_no_note_as_a_fresh_one(
        isolated_home: Path, table_ways: list[str], tty: Callable[..., None], width: int) -> None:
    tty(width, color=False)
    session(isolated_home, IDS[0], 0, priced=500_000)
    session(isolated_home, IDS[1], 1, notice=True, priced=300)
    invoke("tokens")
    session(isolated_home, IDS[2], 2, notice=True)  # a session of a notice alone: folded
    made = invoke("tokens")
    assert table_ways[-1] == "patched"
    assert made == invoke("tokens", "--no-cache")  # byte for byte, the notes too
    assert "no price" not in made[1]


# --- one way to drop a snapshot's date --------------------------------------------------------------

@pytest.mark.parametrize("model, undated", [
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
    ("claude-3-opus-19990101", "claude-3-opus"),
    ("gpt-5-20250807x", "gpt-5-20250807x"),
    ("model-21000101", "model-21000101"),  # not a date of this century or the last
    ("-20250929", "-20250929"),  # nothing left without it
    ("sonnet-4.5", "sonnet-4.5"),
])
def test_undated(model: str, undated: str) -> None:
    assert render.undated(model) == undated


def test_the_list_s_names_and_the_table_s_drop_the_date_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    real = render.undated

    def spy(model: str) -> str:
        asked.append(model)
        return real(model)

    monkeypatch.setattr(render, "undated", spy)
    term = Terminal(tty=True, width=100, color=False)
    assert render.model_text("claude-opus-4-5-20251101", term) == "opus-4.5"
    assert asked == ["claude-opus-4-5-20251101"]
    assert model_names(["claude-sonnet-4-5-20250929", "claude-4.5-sonnet"], term).names == [
        "claude-sonnet-4-5", "claude-4.5-sonnet"]
    assert "claude-4.5-sonnet" in asked[1:] and "claude-sonnet-4-5-20250929" in asked[1:]
