"""A table's parts: its columns (``Column``: a header and how it is laid out), its rows
(``Row``) and the gap between cells.  Fitted to a terminal by ``tablefit``, measured by
``tablewidths``, printed by ``table``."""

from __future__ import annotations

from typing import NamedTuple, Sequence

GAP = "  "


class Column(NamedTuple):
    """A column's header and how it is laid out (a named tuple: see ``cli.term.Terminal``)."""

    header: str
    right: bool = False  # numbers: right-aligned
    flex: bool = False  # free text: may be cut to fit the terminal
    min_width: int = 0  # a flex column is not cut below this; under it the column is dropped
    weight: int = 1  # a flex column with weight 2 keeps twice the width of one with 1
    drop: int = 0  # 0: always kept; when space runs out the highest value goes first
    keep_end: bool = False  # paths: cut the start, the end tells them apart
    style: str | None = None  # colour of the cells on a terminal
    #: a title, the column people read (as ``gh issue list``'s): kept this wide while a
    #: column that goes before it (a higher ``drop``) is left to drop; cut down to
    #: ``min_width`` only once none is
    wants: int = 0
    #: a row's name that is no id (a model): cut like free text down to ``min_width``, but only
    #: when no droppable column is left to go (a figure is never left out to keep it whole)
    label: bool = False


class Bound(str):
    """A cell whose figure is a lower bound, drawn ``≥…`` by the builder that decided it
    (``tokens_rows.number_cells``, ``tokens_runs.runs_cell``): the note under a ``tokens``
    table names where they are drawn from the cells' own word (``tokens_layout.bounds_drawn``),
    not from their text.  A ``str`` for everything else (widths, cuts, ``--json``)."""

    __slots__ = ()


class Row(NamedTuple):
    """A line of the table.  A named tuple, not a dataclass: made in C, and a heavy user's
    ``tokens`` table makes 40,000 of them (two layouts of 20,000 lines)."""

    cells: Sequence[str]
    style: str | None = None  # e.g. "bold" for a total, "dim" for a detail line
    #: (first, last) column indexes whose cells are printed as one: ``cells[first]``
    #: across them all ("not recorded" over a row's empty number columns), so one
    #: long word does not widen a column every other row keeps narrow
    span: tuple[int, int] | None = None
    #: where the text of the row's key may be dropped from, to keep a figure: a grouped
    #: row's runs' count (``Explore (3 runs)``: ``tokens_runs.counted_row``) or a week's
    #: Monday (``2026-W36 (Aug 31)``: ``tokens_runs.tail_at``); never read back from the
    #: text, which a recorded name ending in ``(2 runs)`` would fool
    droppable_at: int | None = None
    #: its key says how many runs make it up (``tokens_runs.counted_row``), still shown
    counted: bool = False


def spanned(row: Row, index: int) -> bool:
    return row.span is not None and row.span[0] <= index <= row.span[1]


#: the least a title is cut to while a column is left to drop (``Column.wants``): ``list``'s
#: and ``trace --list``'s TITLE, 25 characters, enough to tell most sessions apart
TITLE_WANTS = 25
