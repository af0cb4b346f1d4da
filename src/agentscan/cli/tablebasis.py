"""The text table's basis as kept (``cli.tablepatch``), and read back checked.

``answerpatch.keep`` stores what every patch needs (each session's id,
fingerprint, tokens, cost and key hashes); the table adds:

- *extras*, a line for each of the report's rows (in the table's order):
  when its session was last active, whether its provider may revise its row
  with none of its files changed (``Provider.wants_refresh``: a Gemini cwd
  another provider reveals), and its lines as ``tokens_rows.row_lines`` made
  them, with full numbers and, on a terminal, rounded ones;
- ``table``: the layout the table was printed in, and how many cells of each
  width each column held (``tablewidths.WidthCounts``), full and rounded; the widths
  it was printed in, its CWD column fitted to its paths
  (``tablepaths.paths_fitted``), and how many rows showed each path;
- ``table-text``: the rows' lines as printed, a row's after another's;
  ``table-places``: where each row's are in it (none: folded, of 0 tokens, of a
  session that recorded no usage or of one that recorded nothing);
  ``table-nothing``: a byte a row, ``NOTHING`` for a session that recorded nothing
  (``tokens_sessions.recorded_nothing``: named in a line of its own), ``PARTS`` added for
  a row shown that has delegated calls (a pipe's table leaves their lines out and
  says so: ``tokens_notes.PARTS_NOTE``);
  ``table-when``: each row's date as the table sorts it; ``table-keys``
  (on a terminal): each row's id as shown.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, Sequence

import orjson

from agentscan.cli import tablefit
from agentscan.cli.tableparts import Row
from agentscan.cli.tablewidths import WidthCounts
from agentscan.cli.tokens_columns import NUMBER_COLUMNS
from agentscan.cli.tokens_sessions import NO_DATE, recorded_nothing, sort_key, updated_of
from agentscan.cli.tokens_rows import row_lines
from agentscan.cli.tokens_text import Printed
from agentscan.model import SessionRow
from agentscan.scan import answerpatch
from agentscan.scan.answerbasis import Basis, Damaged

if TYPE_CHECKING:
    from agentscan.cli.term import Terminal
    from agentscan.cli.tokens_sessions import TableSession
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.tokenreport import TokenReport

#: what a patched table is kept and looked up as (``answers.question_identity``'s command)
COMMAND = "tokens-text"
#: the cells of a line by session: its id, date, cwd, the numbers, the cost, its title
CELLS = 4 + len(NUMBER_COLUMNS) + 1
#: the styles ``row_lines`` gives a session's first line, and the lines after it
_STYLES = ((None,), ("dim",))
#: the column of a session's cwd (``tokens_sessions.session_facts``), fitted to its paths
CWD = 2
#: a row's ``table-nothing`` flags: its session recorded nothing; it is shown and has parts
NOTHING, PARTS = 1, 2


def count_paths(paths: dict[str, int], rows: Sequence[Row], sign: int = 1) -> None:
    """Count the CWD cells of ``rows`` in (``sign`` -1: out) of ``paths``: which paths a
    table shows is what fitting its CWD column takes (a blank one, none)."""
    for row in rows:
        path = row.cells[CWD]
        if path:
            paths[path] = paths.get(path, 0) + sign


def keep(scanner: Scanner, question: Mapping[str, Any], report: TokenReport, printed: Printed,
         session_rows: Mapping[str, TableSession], term: Terminal) -> None:
    """Keep the basis of a whole table (``report`` in the table's order, of every session,
    printed with no warning)."""
    try:
        _keep(scanner, question, report, printed, session_rows, term)
    except (TypeError, UnicodeError):
        pass  # an id orjson or UTF-8 cannot hold (a name that is no UTF-8): no basis, as for --json


def _keep(scanner: Scanner, question: Mapping[str, Any], report: TokenReport, printed: Printed,
          session_rows: Mapping[str, TableSession], term: Terminal) -> None:
    if printed.laid.unrecorded_only:
        return  # no number column to splice into: a table of "not recorded" alone is made whole
    if any(row.recovered for row in report.rows):
        return  # TOTAL a lower bound (``≥``), told from every row: made whole (a rare table)
    from agentscan.scan.sessionids import known_ids_of

    extras = []
    nothing = bytearray()
    full = WidthCounts.of(CELLS)
    rounded_counts = WidthCounts.of(CELLS) if term.tty else None
    revisable_ones = []
    paths: dict[str, int] = {}
    known = known_ids_of(scanner)  # (as the table named its runs: ``tokens_runs.subagent_names``)
    for index, (row, key, facts, lines) in enumerate(zip(report.rows, printed.keys, printed.facts, printed.lines)):
        session = session_rows.get(row.key)
        ref = report.sessions.get(row.key)
        if session is None or ref is None:
            return  # a row with no session's facts: not one a patch can tell again
        # On a terminal a table may be rounded to fit: the rounded lines are kept too.
        rounded = row_lines(row, key, facts, term, compact=True, session=session, known=known) if term.tty else None
        # Facts found without a row are never revised (``Provider.table_facts``: a file's own).
        revisable = isinstance(session, SessionRow) and scanner.provider(ref.provider).wants_refresh(session)
        if revisable:
            revisable_ones.append(index)
        # Copied to its size: orjson's buffer of a short document is several times larger
        # (6 MB for scale 1's 1,500 rows, 0.5 MB of JSON).
        extras.append(memoryview(orjson.dumps([updated_of(session), revisable, _lines(lines), _lines(rounded)])).tobytes())
        nothing.append((NOTHING if not lines and recorded_nothing(row, facts, session) else 0)
                       | (PARTS if lines and row.subagents else 0))
        full.add(lines)
        count_paths(paths, lines)
        if rounded_counts is not None and rounded is not None:
            rounded_counts.add(rounded)
    sections = _printed(printed, report, session_rows)
    if sections is None:
        return
    laid = printed.laid
    # The terminal as laid out for (the question's, unless it was resized meanwhile).
    layout = {"terminal": _terminal(term), "planned": [list(part) for part in laid.planned], "compact": laid.compact,
              "full": full.to_json(), "widths": laid.widths, "paths": paths,
              "rounded": rounded_counts.to_json() if rounded_counts is not None else None, "revisable": revisable_ones}
    sections["table"] = orjson.dumps(layout)
    sections["table-nothing"] = bytes(nothing)
    if term.tty:
        sections["table-keys"] = "\n".join(printed.keys).encode("utf-8", "surrogateescape")
    answerpatch.keep(scanner, COMMAND, question, report, extras=extras, sections=sections)


def _printed(printed: Printed, report: TokenReport, session_rows: Mapping[str, TableSession]) -> dict[str, bytes] | None:
    """The rows' lines as printed, where each row's are, and each row's date."""
    printed_lines = printed.laid.lines
    text: list[bytes] = []
    places = array("q")
    when = array("d")
    at, line = 0, 1  # the header first
    for row, lines in zip(report.rows, printed.lines):
        session = session_rows[row.key]
        when.append(sort_key(session))
        if not lines:
            places.extend((at, 0))
            continue
        chunk = "\n".join(printed_lines[line:line + len(lines)]).encode("utf-8", "surrogateescape")
        line += len(lines)
        places.extend((at, len(chunk)))
        text.append(chunk)
        at += len(chunk) + 1
    if line != len(printed_lines) - 1:
        return None  # not the lines of these rows and a total
    return {"table-text": b"\n".join(text), "table-places": places.tobytes(), "table-when": when.tobytes()}


class Kept(NamedTuple):
    """A basis row's lines (full and, on a terminal, rounded) and when it was last active."""

    when: float
    revisable: bool
    full: list[Row]
    rounded: list[Row]


def kept_row(basis: Basis, index: int, term: Terminal) -> Kept | None:
    """The basis row ``index``'s extras; ``None``: of another shape."""
    try:
        when, revisable, kept_full, kept_rounded = orjson.loads(basis.extras(index))
    except (Damaged, ValueError, TypeError):
        return None
    full = rows_of(kept_full)
    rounded = rows_of(kept_rounded) if term.tty else ([] if kept_rounded is None else None)
    if (not (when is None or type(when) is float) or type(revisable) is not bool or full is None
            or rounded is None or (term.tty and len(rounded) != len(full))):
        return None
    return Kept(NO_DATE if when is None else when, revisable, full, rounded)


class Spliceable(NamedTuple):
    """What a patch needs to print a table from the kept text: the layout it was printed
    in, how many cells of each width it held, its text and where each row's is."""

    planned: tablefit.Layout
    compact: bool
    widths: list[int]  # the layout's, its paths fitted (``tablepaths.paths_fitted``)
    paths: dict[str, int]  # how many rows show each path (``count_paths``)
    full: WidthCounts
    rounded: WidthCounts | None
    revisable: set[int]
    text: memoryview
    places: memoryview  # of int
    when: Any  # a memoryview of float
    keys: list[str] | None


def spliceable(basis: Basis, term: Terminal) -> Spliceable | None:
    """The basis's ``table`` sections, checked; ``None``: of another shape."""
    size = len(basis.ids)
    try:
        layout = orjson.loads(basis.section("table"))
        kept, widths = layout["planned"]
        compact = layout["compact"]
        fitted, paths = layout["widths"], layout["paths"]
        if (layout["terminal"] != _terminal(term) or type(layout["revisable"]) is not list
                or type(fitted) is not list or type(paths) is not dict):
            return None
        revisable = set(layout["revisable"])
        places = basis.section("table-places").cast("q")
        when = basis.section("table-when").cast("d")
        keys = (basis.section("table-keys").tobytes().decode("utf-8", "surrogateescape").split("\n")
                if term.tty else None)
        text = basis.section("table-text")
        full = WidthCounts.from_json(layout["full"], CELLS)
        rounded = WidthCounts.from_json(layout["rounded"], CELLS) if term.tty else None
    except (Damaged, ValueError, TypeError, KeyError):
        return None
    if (full is None or (term.tty and rounded is None) or type(compact) is not bool
            or not all(type(value) is int for value in (*kept, *widths, *fitted, *paths.values()))
            or len(kept) != len(widths) or len(fitted) != len(kept)
            or len(places) != 2 * size or len(when) != size or (keys is not None and len(keys) != size)
            or any(type(index) is not int or not 0 <= index < size for index in revisable)):
        return None
    at = 0
    for start, length in zip(places[0::2], places[1::2]):
        # Each row's lines after the last's, a newline between: a folded row's, none (past
        # the text's end when no row after it has lines).
        if start != at or length < 0 or (length and start + length > len(text)):
            return None
        if length:
            at = start + length + 1
    if at and at - 1 != len(text):
        return None
    return Spliceable((list(kept), list(widths)), compact, list(fitted), paths, full, rounded, revisable, text, places,
                      when, keys)


def recorded_nothing_rows(basis: Basis) -> memoryview | None:
    """Each basis row's flags: ``NOTHING`` for a session that recorded nothing (folded and
    named in its own line, not among those that recorded no usage), ``PARTS`` for a row
    shown with delegated calls; ``None``: of another shape."""
    try:
        flags = basis.section("table-nothing")
    except Damaged:
        return None
    return flags if len(flags) == len(basis.ids) and not flags.tobytes().translate(None, b"\0\1\2") else None


def _terminal(term: Terminal) -> list[Any]:
    return [term.tty, term.width, term.color]


def _lines(rows: Sequence[Row] | None) -> list[list[Any]] | None:
    return None if rows is None else [[list(row.cells), row.style, row.span] for row in rows]


def rows_of(kept: Any) -> list[Row] | None:
    """Lines as ``_lines`` kept them; ``None``: not lines ``tokens_rows.row_lines`` makes."""
    if type(kept) is not list:
        return None
    rows = []
    try:
        for number, (cells, style, span) in enumerate(kept):
            if type(cells) is not list or len(cells) != CELLS or style not in _STYLES[number > 0]:
                return None
            "".join(cells)  # a TypeError for a cell that is no string: one C loop, not a check a cell
            if span is not None:
                return None  # a session that recorded no usage has no lines (``row_lines``): no span
            rows.append(Row(cells, style))
    except (TypeError, ValueError):
        return None
    return rows
