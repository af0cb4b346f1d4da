"""The text table of ``tokens`` patched by the sessions that changed since it was made whole.

An agent at work writes a session or two between two runs of ``agentscan
tokens``, and the remembered table (``scan.answers``) is a miss.  Made whole,
a heavy user's table takes back 15,000 kept rows of sums and 15,000 of
facts, checks every session's key hashes, and lays out 20,000 lines: 1.6 s.
``--json`` is patched (``scan.answerpatch``); this is the same for the table.

A whole table printed with no warning keeps a basis (``answerpatch.keep``)
whose extras hold, for each of the report's rows: when its session was last
active (the table's order), whether its provider may revise its row with no
file of it changed (``Provider.wants_refresh``: a Gemini cwd another
provider reveals), and its lines as ``tokens_text.row_lines`` made them,
with full numbers and, on a terminal, rounded ones.  A patch takes the
changes, rows and total from ``answerpatch.patch_of``, makes the lines of
the changed and new sessions anew, reads the revisable ones' rows again,
takes every session's shown id now, and lays the table out, notes and all,
with the code a whole table is laid out with (``tokens_text.print_lines``).
Tests compare patched tables with whole ones, byte for byte.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import orjson

from agentscan.cli.table import Row
from agentscan.cli.tokens_text import NOT_RECORDED, NUMBER_COLUMNS, Printed, print_lines, row_lines, session_facts
from agentscan.scan import answerpatch
from agentscan.scan.answerbasis import Damaged

if TYPE_CHECKING:
    from agentscan.cli.term import Terminal
    from agentscan.model import SessionRow
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.tokenreport import TokenReport

#: what a patched table is kept and looked up as (``answers.question_identity``'s command)
COMMAND = "tokens-text"
#: the cells of a line by session: its id, date, project, title, the numbers, the cost
_CELLS = 4 + len(NUMBER_COLUMNS) + 1
#: the styles ``row_lines`` gives a session's first line, and the lines after it
_STYLES = ((None,), ("dim",))
#: the columns "not recorded" is laid over (``row_lines``' span, by session)
_NOT_RECORDED_SPAN = (4, 4 + len(NUMBER_COLUMNS))


def keep(scanner: Scanner, question: Mapping[str, Any], report: TokenReport, printed: Printed,
         session_rows: Mapping[str, SessionRow], term: Terminal) -> None:
    """Keep the basis of a whole table (``report``, of every session, printed with no warning)."""
    extras = []
    for row, key, facts, lines in zip(report.rows, printed.keys, printed.facts, printed.lines):
        session = session_rows.get(row.key)
        ref = report.sessions.get(row.key)
        if session is None or ref is None:
            return  # a row with no session's facts: not one a patch can tell again
        # On a terminal a table may be rounded to fit: the rounded lines are kept too.
        rounded = row_lines(row, key, facts, term, compact=True) if term.tty else None
        revisable = scanner.provider(ref.provider).wants_refresh(session)
        extras.append(orjson.dumps([_updated(session), revisable, _lines(lines), _lines(rounded)]))
    answerpatch.keep(scanner, COMMAND, question, report, extras=extras)


def patched(scanner: Scanner, question: Mapping[str, Any], providers: list[str], term: Terminal) -> bool:
    """Print the table of every session of ``providers`` patched from the basis; ``False``
    (nothing printed): it must be made whole.  Inside a warnings capture: a warning makes
    it ``False``."""
    patch = answerpatch.patch_of(scanner, COMMAND, question, providers)
    if patch is None:
        return False
    made = _rows(scanner, patch, term)
    if made is None or len(scanner.warnings):
        return False
    updated, full, rounded, folded, keys = made
    # The table's sessions by their DATE, newest first, as ``tokens_answer._newest_first``
    # sorts a whole report's rows (stable: equal dates keep the report's order).
    order = sorted(range(len(full)), key=lambda index: updated[index], reverse=True)

    # Off a terminal a table is never fitted, so never rounded (``table.layout``).
    print_lines("session", [full[index] for index in order], lambda: [rounded[index] for index in order],
                (patch.total, patch.cost, patch.cost), [keys[index] for index in order if index in folded], [], term)
    return True


def _rows(scanner: Scanner, patch: answerpatch.Patch, term: Terminal) -> tuple[
        list[float], list[list[Row]], list[list[Row]], set[int], list[str]] | None:
    """Each session's date, lines (full and rounded), whether it is folded, and its shown
    id, in the report's order; ``None``: the basis cannot tell them."""
    short_ids = scanner.short_ids() if term.tty else {}
    changed = set(patch.changed)
    updated: list[float] = []
    full: list[list[Row]] = []
    rounded: list[list[Row]] = []  # on a terminal: off one, never asked for
    folded: set[int] = set()
    keys: list[str] = []
    index_of = patch.basis.index
    kept: dict[int, tuple[float | None, bool, list[Row], list[Row]]] = {}
    for position, (session_id, _) in enumerate(patch.now):
        if position not in changed:
            try:
                when, revisable, kept_full, kept_rounded = orjson.loads(patch.extras(index_of[session_id]))
            except (Damaged, ValueError, TypeError):
                return None  # a basis of another shape
            lines = _rows_of(kept_full)
            rounded_ones = _rows_of(kept_rounded) if term.tty else ([] if kept_rounded is None else None)
            if (not (when is None or type(when) is float) or type(revisable) is not bool or lines is None
                    or rounded_ones is None or (term.tty and len(rounded_ones) != len(lines))):
                return None
            if revisable and patch.refs[position].id != session_id:
                return None  # the sequence moved under us (as ``answerpatch._patch`` checks its changes)
            kept[position] = (when, revisable, lines, rounded_ones)
    # Read again in one query (as a whole table reads them): the rows of the changed sessions,
    # and those their providers may revise with none of their files changed.
    again = [position for position in range(len(patch.now)) if position in changed or kept[position][1]]
    scanner.prefetch_rows([patch.refs[position] for position in again], every=True)
    for position, (session_id, _) in enumerate(patch.now):
        key = short_ids.get(session_id, session_id) if term.tty else session_id
        keys.append(key)
        if position in changed:
            token_row = patch.new_rows[session_id]
            session = scanner.row(patch.refs[position])
            facts = session_facts(session, term)
            updated.append(_sort_key(session))
            full.append(row_lines(token_row, key, facts, term, compact=False))
            rounded.append(row_lines(token_row, key, facts, term, compact=True) if term.tty else [])
        else:
            when, revisable, lines, rounded_ones = kept[position]
            facts = None
            if revisable:
                # Its provider may revise its row with none of its files changed (a Gemini
                # cwd another provider reveals): read again.
                session = scanner.row(patch.refs[position])
                facts = session_facts(session, term)
                when = _updated(session)
            updated.append(_NO_DATE if when is None else when)
            full.append(_with(lines, key, facts))
            rounded.append(_with(rounded_ones, key, facts))
        if not full[-1]:
            folded.add(position)
    return updated, full, rounded, folded, keys


#: the sort key of a session with no date: last (``tokens_answer._newest_first``)
_NO_DATE = float("-inf")


def _updated(session: SessionRow) -> float | None:
    """When a session was last active, as kept (JSON has no infinity)."""
    return session.updated_at.timestamp() if session.updated_at is not None else None


def _sort_key(session: SessionRow) -> float:
    """What the table sorts a session by (``tokens_answer._newest_first``)."""
    when = _updated(session)
    return _NO_DATE if when is None else when


def _lines(rows: Sequence[Row] | None) -> list[list[Any]] | None:
    return None if rows is None else [[list(row.cells), row.style, row.span] for row in rows]


def _rows_of(kept: Any) -> list[Row] | None:
    """Lines as ``_lines`` kept them; ``None``: not lines ``tokens_text.row_lines`` makes."""
    if type(kept) is not list:
        return None
    rows = []
    try:
        for number, (cells, style, span) in enumerate(kept):
            if type(cells) is not list or len(cells) != _CELLS or style not in _STYLES[number > 0]:
                return None
            "".join(cells)  # a TypeError for a cell that is no string: one C loop, not a check a cell
            if span is not None:
                # Only "not recorded", over a session's number columns (``row_lines``).
                if number or span != list(_NOT_RECORDED_SPAN) or cells[_NOT_RECORDED_SPAN[0]] != NOT_RECORDED:
                    return None
                span = _NOT_RECORDED_SPAN
            rows.append(Row(cells, style, span))
    except (TypeError, ValueError):
        return None
    return rows


def _with(lines: list[Row], key: str, facts: list[str] | None) -> list[Row]:
    """``lines`` with the first one's id as shown now and, when read again, its session's facts."""
    if not lines or (facts is None and lines[0].cells[0] == key):
        return lines
    first = lines[0]
    cells = list(first.cells)
    cells[0] = key
    if facts is not None:
        cells[1:4] = facts
    return [first._replace(cells=cells), *lines[1:]]
