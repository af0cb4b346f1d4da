"""A grouped row's subagent runs (``tokens --by day|model|provider|…``), in a column of their own.

Per period, model or provider there can be hundreds of runs: a grouped table shows them
all together, their tokens in the row's ``SUBAGENTS`` cell (``subagents_cell``, after
TOTAL: the own part is TOTAL less it), a line a row, as ccusage's tables are; ``--json``
has each run.  A row made only of delegated calls (every kind's row ``--by agent``) has
no own part: its key says how many runs it adds up, ``Explore (3 runs)`` (``counted_row``),
which a table that must keep a figure leaves out (``without_droppable_tail``), as a week's
Monday.  By session each run has a line of its own, named as ``subagent_names`` shows it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from agentscan.cli import render
from agentscan.cli.tableparts import Bound, Row
from agentscan.cli.term import width_of
from agentscan.model import sum_usage

if TYPE_CHECKING:
    from agentscan.cli.term import Terminal
    from agentscan.scan.tokenreport import TokenRow
    from agentscan.model import TokenUsage
    from agentscan.scan.short_ids import Known


def subagents_cell(token_row: TokenRow, shown: Callable[[int], str], term: Terminal) -> str:
    """A grouped row's SUBAGENTS cell: its runs' tokens together, as ``shown`` shows a
    number (TOTAL's form, compact or not); ``-``: it has none; empty where its usage was
    not recorded (its "not recorded" is laid over the number columns); ``≥N`` on a terminal
    when a run was recovered from progress records (``runs_cell``)."""
    runs = sum_usage(usage for _, usage in token_row.subagents) if token_row.subagents else None
    return runs_cell(runs, token_row.tokens is not None, shown, term, short=bool(token_row.recovered))


def runs_cell(runs: TokenUsage | None, recorded: bool, shown: Callable[[int], str], term: Terminal, *,
              short: bool = False) -> str:
    """A SUBAGENTS cell (a row's, TOTAL's): ``runs``' tokens as ``shown`` shows a number;
    ``-`` for none, or runs that recorded no usage (a cell all the same: a pipe's fields
    hold); empty where the row itself recorded none (``recorded``: its "not recorded" is
    laid over the number columns).  ``short``: ``runs`` hold one recovered from progress
    records, its final call not in them: ``≥N`` on a terminal, as TOTAL is; a pipe's cell
    stays a number for ``awk``.  Decided here from ``term``, as ``tokens_rows.number_cells``
    decides TOTAL's: each caller had to pass ``short=… and term.tty``, and one that forgot
    put a ``≥`` in a pipe."""
    if runs is not None:
        return Bound("≥" + shown(runs.total)) if short and term.tty else shown(runs.total)
    return "-" if recorded else ""


def with_subagents(values: list[str], cell: str) -> list[str]:
    """A grouped row's number cells and cost (``values``) with its SUBAGENTS ``cell``
    between TOTAL and COST, in the columns' order (``tokens_columns.columns_of``)."""
    return [*values[:-1], cell, values[-1]]


def counted_row(key: str, count: int, values: list[str], span: tuple[int, int] | None) -> Row:
    """A grouped row whose key says how many runs make it up: ``Explore (3 runs)``; a week
    dated on a terminal in the one parenthesis, ``2026-W15 (Apr 6, 1 run)`` (two in a row,
    ``2026-W15 (Apr 6) (1 run)``, read badly), both dropped together where a table needs the room."""
    runs = render.plural(count, "run")
    if _DATED_WEEK.fullmatch(key):
        at = key.index(" (")
        return Row([f"{key[:-1]}, {runs})", *values], span=span, droppable_at=at, counted=True)
    return Row([f"{key} ({runs})", *values], span=span, droppable_at=len(key), counted=True)


def says_runs(rows: list[Row]) -> bool:
    """Whether a row of ``rows`` shows its count of runs (``counted_row``; not dropped to fit)."""
    return any(row.counted for row in rows)


#: a week's key as a terminal dates it (``tokens_columns.dated_week``): ``2026-W15 (Apr 6)``
_DATED_WEEK = re.compile(r"[0-9]{4}-W[0-9]{2} \([A-Z][a-z]{2} [0-9]{1,2}\)")


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
    return row if at is None else row._replace(cells=[row.cells[0][:at], *row.cells[1:]], droppable_at=None,
                                                 counted=False)


def droppable_tails_fitted(rows: list[Row], width: int) -> list[Row]:
    """``rows`` with each key whose droppable tail a label column ``width`` wide would cut
    (``haiku-4.5 (1…``: a count cut reads as a figure cut) shown without it (``without_droppable_tail``)."""
    return [without_droppable_tail(row) if has_droppable_tail(row) and width_of(row.cells[0]) > width else row
            for row in rows]


def tails_dropped(rows: list[Row]) -> list[Row]:
    """``rows`` with each key's droppable tail (runs' count, week's Monday) left out (``without_droppable_tail``)."""
    return [without_droppable_tail(row) for row in rows]


def subagent_names(token_row: TokenRow, term: Terminal, known: Known | None = None) -> dict[str, str]:
    """By session, each subagent's id as its ``↳`` line shows it on a terminal: its shortest
    prefix no other run of the session, nor the session's own id, shares, nor any id of
    ``known`` (every session's and run's the scan knows: ``sessionids.known_ids_of``), never
    cut inside the word naming its kind (``sidechain-cd49a45d``: ``show`` opens it as printed)
    (``{}``: whole)."""
    if not term.tty or not token_row.subagents:
        return {}
    from agentscan.scan.short_ids import child_prefixes

    parent = token_row.key.partition(":")[2] or None
    return child_prefixes((sub_id for sub_id, _ in token_row.subagents), parent,
                          known=known() if known is not None else ())
