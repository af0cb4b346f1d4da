"""Pass 60: where a ``tokens`` table drew a lower bound's ``≥`` is its cells' builders' word.

``tokens_layout.bounds_drawn`` (the columns the note under a table names: "≥ in TOTAL and COST")
found the ``≥`` cells by reading the text drawn; the builders that decide a bound
(``tokens_rows.number_cells``, ``tokens_runs.runs_cell``) make them ``tableparts.Bound`` cells
now, and the note is told from those.  What tells the two rules apart here is the plain ``str``
cell drawn ``≥$0.50`` in COST: read as text, COST was named.  The ``≥weird-model`` cell stands
in column 0 and the ``≥4`` in REASONING, which neither rule ever read: guards of the design (a
recorded name drawn with ``≥`` is no bound), not cases the old rule failed on.
``test_words_review_pass59`` keeps the notes the whole tables say."""

from __future__ import annotations

from decimal import Decimal

from agentscan.cli.tableparts import Bound, Column, Row
from agentscan.cli.term import Terminal
from agentscan.cli.tokens_columns import REASONING_AT, TOTAL_AT
from agentscan.cli.tokens_notes import UNDER
from agentscan.cli.tokens_rows import number_cells
from agentscan.cli.tokens_runs import runs_cell
from agentscan.cli.tokens_layout import bounds_drawn
from agentscan.model import TokenUsage

TTY, PIPE = Terminal(True, 200, False), Terminal(False, 200, False)
USAGE = TokenUsage(input=100, output=10, reasoning=4)


def test_the_builders_make_a_bound_cell_where_they_draw_one() -> None:
    short = number_cells(USAGE, Decimal("0.5"), TTY, compact=False, short=True)
    assert isinstance(short[TOTAL_AT], Bound) and isinstance(short[-1], Bound) and short[TOTAL_AT].startswith("≥")
    assert not any(isinstance(cell, Bound) for cell in number_cells(USAGE, Decimal("0.5"), PIPE, compact=False, short=True))
    unpriced = number_cells(USAGE, None, TTY, compact=False, at_least=Decimal("0.25"))
    assert isinstance(unpriced[-1], Bound) and unpriced[-1] == "≥$0.25" and not isinstance(unpriced[TOTAL_AT], Bound)
    assert not isinstance(number_cells(USAGE, None, TTY, compact=False)[-1], Bound)  # ``-``: no bound
    assert isinstance(number_cells(USAGE, None, TTY, compact=False, partial=True)[REASONING_AT], Bound)
    assert isinstance(runs_cell(USAGE, True, str, TTY, short=True), Bound)
    assert not isinstance(runs_cell(USAGE, True, str, PIPE, short=True), Bound)


def test_the_note_names_the_builders_bounds_not_text_that_reads_as_one() -> None:
    columns = [Column("MODEL"), Column("TOTAL", right=True), Column("REASONING", right=True), Column("COST", right=True)]
    rows = [Row(["≥weird-model", "110", "≥4", "≥$0.50"]),  # drawn ``≥``, no builder's bound
            Row(["  ↳ run", Bound("≥110"), Bound("≥4"), "$0.10"], style="dim")]
    assert bounds_drawn(columns, rows, ()) == ("TOTAL", UNDER)
    assert bounds_drawn(columns, rows, ("TOTAL",)) == ()
    assert bounds_drawn(columns, [Row(["x", "110", "4", Bound("≥$0.50")])], ()) == ("COST",)
