"""A summary's line of subagent runs (``tokens --by day|model|provider``), and its label.

Per period, model or provider there can be hundreds of runs: ``tokens_text.row_lines``
makes one line for all, ``  ↳ 250 subagent runs``, which a narrow terminal's table
shortens (``  ↳ 250 runs``, a bare ``  ↳``) before it leaves out a column.
"""

from __future__ import annotations

from typing import Callable

from agentscan.cli import render
from agentscan.cli.tableparts import Row
from agentscan.cli.term import width_of

#: how a summary's line of subagent runs begins (``row_lines``); alone, its label where
#: even ``  ↳ 250 runs`` would leave out a figure (narrower than ``TOTAL``: it never
#: widens the column)
RUNS = "  ↳"


def runs_label(count: int) -> str:
    return f"{RUNS} {render.plural(count, 'subagent run')}"


def short_runs(label: str) -> str:
    """``  ↳ 250 subagent runs`` as a narrow terminal says it: ``  ↳ 250 runs``."""
    return label.replace(" subagent run", " run", 1)


def bare_runs(label: str) -> str:
    return RUNS


def is_runs(row: Row) -> bool:
    """Whether ``row`` is a summary's line of subagent runs (a key is never dim)."""
    return row.style == "dim" and row.cells[0].startswith(RUNS + " ")


def runs_cut(rows: list[Row], width: int) -> bool:
    """Whether a label of subagent runs in ``rows`` is wider than its column's ``width``
    (``tokens --by model``'s MODEL is cut to fit: ``tableparts.Column.label``)."""
    return any(width_of(row.cells[0]) > width for row in rows if is_runs(row))


def relabelled(rows: list[Row], label: Callable[[str], str]) -> list[Row]:
    """``rows`` with each line of subagent runs labelled ``label(its label)``."""
    return [row._replace(cells=[label(row.cells[0]), *row.cells[1:]]) if is_runs(row) else row for row in rows]
