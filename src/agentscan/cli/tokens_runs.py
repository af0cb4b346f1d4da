"""A summary's line of subagent runs (``tokens --by day|model|provider``), and its label.

Per period, model or provider there can be hundreds of runs: ``tokens_text.row_lines``
makes one line for all, ``  ↳ 250 subagent runs``, which a narrow terminal's table
shortens (``  ↳ 250 runs``, a bare ``  ↳``) before it leaves out a column.  A row made
only of delegated calls (every kind's row ``--by agent``) has no own part: that line
would say the row again, so its key says how many runs it adds up instead,
``Explore (3 runs)`` (``counted_row``), which a table that must keep a figure leaves
out too (``without_droppable_tail``).  By session each run has a line of its own, named as
``subagent_names`` shows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from agentscan.cli import render
from agentscan.cli.tableparts import Row
from agentscan.cli.term import width_of

if TYPE_CHECKING:
    from agentscan.cli.term import Terminal
    from agentscan.scan.tokenreport import TokenRow

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


def counted_row(key: str, count: int, values: list[str], span: tuple[int, int] | None) -> Row:
    """A grouped row whose key says how many runs make it up: ``Explore (3 runs)``."""
    return Row([f"{key} ({render.plural(count, 'run')})", *values], span=span, droppable_at=len(key))


def tail_at(lines: list[Row], at: int) -> list[Row]:
    """A row's ``lines`` with its key's text from ``at`` on (a week's Monday, ``2026-W36
    (Aug 31)``) marked droppable, as a runs' count is: left out where a table needs the room
    to keep a figure (``without_droppable_tail``).  A key that says its runs' count keeps that mark."""
    if not lines or lines[0].droppable_at is not None or len(lines[0].cells[0]) <= at:
        return lines
    return [lines[0]._replace(droppable_at=at), *lines[1:]]


def has_droppable_tail(row: Row) -> bool:
    """Whether ``row``'s key has a tail a table may drop to keep a figure (``Row.droppable_at``):
    its runs' count (``Explore (3 runs)``) or its week's Monday (``2026-W36 (Aug 31)``)."""
    return row.droppable_at is not None


def without_droppable_tail(row: Row) -> Row:
    """``row``'s key without its droppable tail (a runs' count, a week's Monday: ``has_droppable_tail``),
    as a table that needs the room to keep a figure shows it."""
    at = row.droppable_at
    return row if at is None else row._replace(cells=[row.cells[0][:at], *row.cells[1:]], droppable_at=None)


def runs_cut(rows: list[Row], width: int) -> bool:
    """Whether a label of subagent runs in ``rows`` is wider than its column's ``width``
    (``tokens --by model``'s MODEL is cut to fit: ``tableparts.Column.label``)."""
    return any(width_of(row.cells[0]) > width for row in rows if is_runs(row))


def droppable_tails_fitted(rows: list[Row], width: int) -> list[Row]:
    """``rows`` with each key whose droppable tail a label column ``width`` wide would cut
    (``haiku-4.5 (1…``: a count cut reads as a figure cut) shown without it (``without_droppable_tail``)."""
    return [without_droppable_tail(row) if has_droppable_tail(row) and width_of(row.cells[0]) > width else row
            for row in rows]


def relabelled(rows: list[Row], label: Callable[[str], str]) -> list[Row]:
    """``rows`` with each line of subagent runs labelled ``label(its label)``; with the
    bare label, each key's droppable tail (runs' count, week's Monday) left out too (``without_droppable_tail``)."""
    bare = label is bare_runs
    return [row._replace(cells=[label(row.cells[0]), *row.cells[1:]]) if is_runs(row)
            else without_droppable_tail(row) if bare and has_droppable_tail(row) else row for row in rows]


def subagent_names(token_row: TokenRow, term: Terminal) -> dict[str, str]:
    """By session, each subagent's id as its ``↳`` line shows it on a terminal: its shortest
    prefix no other run of the session, nor the session's own id, shares, never cut inside the
    word naming its kind (``sidechain-cd49a45d``: ``show`` opens it as printed) (``{}``: whole)."""
    if not term.tty:
        return {}
    from agentscan.scan.short_ids import child_prefixes

    parent = token_row.key.partition(":")[2] or None
    return child_prefixes((sub_id for sub_id, _ in token_row.subagents), parent)
