"""Laying out a ``tokens`` table's lines and printing them, with the notes under them: the
layout that keeps the most figures (rounded numbers, a key's droppable tail), the columns
fitted to the terminal, and which of them drew a lower bound (``bounds_drawn``).  A whole
table's lines are made in ``tokens_text.print_report`` (and ``tokens_rows``); a patched
table's (``cli.tablepatch``) are laid out here too."""

from __future__ import annotations

from datetime import tzinfo
from typing import TYPE_CHECKING, Callable, Collection, Iterable, NamedTuple, Sequence

from agentscan.cli import render, table, tablefit, tablepaths
from agentscan.cli.tableparts import Bound, Column, Row
from agentscan.cli.tablewidths import natural as natural_widths
from agentscan.cli.term import Terminal, width_of, write_out
from agentscan.cli.term import cut as cut_text
from agentscan.cli import tokens_models
from agentscan.cli.tokens_columns import FIGURES, columns_of, zero_first, zero_headers, zoned
from agentscan.cli.tokens_folds import Folded
from agentscan.cli.tokens_notes import UNDER, Drawn, Unpriced, print_notes
from agentscan.cli.tokens_rows import Total, total_row
from agentscan.cli.unknownkey import unknown_note
from agentscan.cli.tokens_runs import (droppable_tails_fitted, has_droppable_tail, says_runs, tails_dropped,
                                       without_droppable_tail)
from agentscan.model import TokenUsage

if TYPE_CHECKING:
    from agentscan.cli.tokens_sessions import Cut
    from agentscan.scan.tokensort import SortKey


class Laid(NamedTuple):
    """How a table was laid out: its layout, whether its numbers were rounded, its lines as
    printed (the header first, the total last), the widths they were printed in (the
    layout's, its paths fitted: ``tablepaths.paths_fitted``), and whether its number columns
    were one (``_unrecorded_only``)."""

    planned: tablefit.Layout
    compact: bool
    lines: list[str]
    widths: list[int]
    unrecorded_only: bool = False


def choose_layout(columns: list[Column], natural: list[int], rounded_natural: Callable[[], list[int] | None],
                  term: Terminal) -> tuple[tablefit.Layout, bool] | None:
    """The layout of rows whose natural widths are ``natural``, or (``True``) of their rounded
    numbers (``rounded_natural``) when those keep more of the figures that make up a total;
    ``None``: those cannot be told."""
    # Rounded numbers (75.4k) are narrower: taken if they keep more of those figures (the
    # layouts compared before either is drawn: 15,000 rows are drawn once).  Never to keep
    # a title or a project: exact numbers are what ``tokens`` is for.
    # (A column of nothing in every row is no figure worth rounding the others for: ``zero_first``.)
    chosen = tablefit.least_lost(columns, ([(lambda: natural, False)], [(rounded_natural, False)]), term, FIGURES - zero_headers(columns))
    if chosen is None:
        return None
    rounded, _, planned = chosen
    return planned, rounded == 1


def print_lines(by: str, full: list[list[Row]], compact_lines: Callable[[], list[list[Row]]], total: Total,
                folded: list[str], models: Sequence[str], term: Terminal, *, unrecorded: Sequence[str] = (),
                unknown: Collection[str] = (), empty: Sequence[str] = (), parts: bool = False,
                zone: tzinfo | None = None, sort: SortKey = "date", cut: Cut | None = None,
                runs: TokenUsage | None = None, tails: dict[str, int] | None = None,
                unreadable: Sequence[str] = (), damaged: Sequence[str] = (), unreported: bool = False,
                mixed: bool = False, breakdown: bool = False, reverse: bool = False, short: bool = False) -> Laid:
    """The table of rows' ``full`` lines (or their ``compact_lines``, when rounded numbers keep
    more columns; in a summary, its keys' droppable tails left out when that keeps a figure), the
    ``total`` (tokens, cost, cost priced; grouped, ``runs``: its subagent runs'), and the notes under it: the
    ``folded`` rows' keys (0 tokens), the ``empty`` sessions' (they recorded nothing), the
    ``unrecorded`` sessions (in no row), the ``unreadable`` ones and those read only up to their
    ``damaged`` part (in no row either) and the ``models`` without a price (``unknown``: how
    the costs they leave unknown show, ``no_price``); ``parts``: a row shown has delegated calls
    (by session, its parts' lines, left out of a pipe: ``row_lines``); ``zone``: ``--tz``, the dates' zone;
    ``sort``: the rows' order (``--sort``; ``reverse``: its opposite); ``cut``: the last of ``full`` sums the sessions
    left out (``tokens_sessions.Cut``), which a note says; ``tails``: the model names whose
    agents a cut keeps (``tokens_models``); ``unreported``: TOTAL's REASONING is ``-`` (``total_row``);
    ``mixed``: its REASONING a lower bound, the table's agents mixing those that record it apart and those
    that do not (``reasoning_partial``), which a note says; ``short``: a row's tokens are a lower
    bound (a subagent's recovered from progress records: ``row_lines``), and so TOTAL's, said so too."""
    named = Folded(folded, empty, unrecorded, unreadable, damaged)
    if not any(full):
        # No row (an empty home, a window no call fell in: stderr says why, ``tokens_empty``,
        # as ccusage says "No usage data found"), or every row folded (each of 0 tokens, or a
        # session that recorded no usage): the lines naming them are all there is to say; a
        # header over a TOTAL of 0 (and the columns it "left out to fit") said nothing.
        print_notes(by, term, named, Unpriced(models, unknown))
        return Laid(([], []), False, [], [])
    rows = [row for group in full for row in group] + [total_row(by, total, term, compact=False, runs=runs,
                                                                                 unreported=unreported, partial=mixed,
                                                                                 short=short)]
    shown_rows = sum(map(bool, full))  # the rows with lines (a folded one is named under the table)
    # Its CWD no narrower than the names of the paths it shows, as ``list``'s (or left out):
    # the rows' own (``--by cwd``'s key; a part's line, by session, names none).
    # A period's heading names the zone its rows are cut in (``DAY (CET)``), as ``list``'s UPDATED.
    columns = tablepaths.named_floors(zoned(columns_of(by), by, _keys(rows), zone),
                                      table.cells_of([group[0] for group in full if group]))
    # (``breakdown``: the rows have model lines; a session's part lines are dim too, so the
    # style alone cannot tell them)
    broken = term.tty and breakdown
    if by == "cwd" and breakdown and not term.tty:
        # ``--breakdown``'s model lines (``tokens_breakdown``) are names, never cut from their
        # start as a path is (``…onnet-4.5``): the column no narrower than they are.
        widest = max(width_of(row.cells[0]) for row in rows if row.style == "dim")
        columns[0] = columns[0]._replace(min_width=max(columns[0].min_width, widest))
    elif broken and not (columns[0].label or columns[0].flex):
        # A day's (a session's) model lines are names, cut as ``--by model``'s are once no
        # column is left to go, never shorter than the rows' own keys, which are never cut:
        # ``  gemini-3.1-pro-preview`` held a 30-column terminal's table at 34 (a pipe: whole).
        own = max(width_of(without_droppable_tail(row).cells[0]) for row in rows if row.style != "dim")
        columns[0] = columns[0]._replace(label=True, min_width=max(columns[0].min_width, own))
    # A part that is nothing in every row goes first to fit (TOTAL's cell tells: ``zero_first``).
    columns = zero_first(columns, list(rows[-1].cells))
    if columns[0].label:
        # Its models' names cut (``Column.label``) no shorter than reads them apart.
        columns[0] = (tokens_models.told_apart(columns[0], [group[0] for group in full if group], tails) if tails
                      else tablefit.told_apart(columns[0], (group[0].cells[0] for group in full if group)))
    if all(row.span is not None for row in rows):
        return _print_unrecorded_only(by, rows, named, term, _dates(by, full), zone)
    rounded: list[Row] = []

    def rounded_rows() -> list[Row]:
        if not rounded:
            rounded[:] = [row for group in compact_lines() for row in group] + [
                total_row(by, total, term, compact=True, runs=runs, unreported=unreported, partial=mixed, short=short)]
        return rounded

    # The rows told with exact numbers, then rounded ones (taken only to keep a figure of
    # the total, as ever); and in a summary, each key with its droppable tail (``Explore
    # (3 runs)``, ``2026-W36 (Aug 31)``), or without it to keep a figure: a key's tail never
    # costs a figure.
    forms = 2 if by != "session" and any(has_droppable_tail(row) for row in rows) else 1
    told: dict[tuple[bool, int], list[Row]] = {}

    def way(compact: bool, form: int) -> tablefit.Way:
        def natural() -> list[int]:
            base = rounded_rows() if compact else rows
            told[compact, form] = tails_dropped(base) if form else base
            return natural_widths(columns, told[compact, form])
        return natural, form == 1

    chosen = tablefit.least_lost(columns, [[way(compact, form) for form in range(forms)]
                                        for compact in (False, True)], term, FIGURES - zero_headers(columns),
                                  names_whole=columns[0].label)
    assert chosen is not None  # (every way tells its widths)
    group, form, planned = chosen
    compact = group == 1
    # A path shows its last folder's name whole, as ``list``'s CWD does (``…/weather-app``,
    # not ``…weather-app``): one longer than ``NAMED_CAP`` takes from the title what it
    # needs (a patch fits its paths alike: ``tablepatch``).
    rows = told[compact, form]
    if columns[0].label:  # a model's name (a kind's) cut to fit: never its count of runs
        rows = droppable_tails_fitted(rows, planned[1][0])
        rows = tokens_models.tails_fitted(rows, planned[1][0], tails) if tails else rows  # never ``(cu…``
    shown = tablepaths.paths_fitted(columns, planned, term, table.cells_of(rows))
    # Cut at as many characters as fitted, ``…/wei/repo/claude-code`` above ``…/VibeCodingTracker``
    # read as paths of different depths.  Off a terminal no path is cut: nothing to even.
    if by == "cwd" and term.tty:
        even = tablepaths.even_cuts([row.cells[0] for row in rows if row.style != "dim"], shown[1][0])
        rows = [row._replace(cells=[even[row.cells[0]], *row.cells[1:]]) if row.cells[0] in even and row.style != "dim"
                else row for row in rows]
    if broken and by == "cwd":
        # A CWD's model lines cut from their end, as a name is, where the path beside them is
        # cut from its start (``tokens_breakdown``): a narrow terminal's table fits, as without them.
        rows = [row._replace(cells=[cut_text(row.cells[0], shown[1][0]), *row.cells[1:]]) if row.style == "dim" else row
                for row in rows]
    lines, hidden = table.render(columns, rows, term, shown)
    write_out("\n".join(lines) + "\n")
    if term.tty and (said := unknown_note(by, [row.cells[0] for row in rows if row.style != "dim"])) is not None:
        render.note(said, tty_only=True)
    print_notes(by, term, named, Unpriced(models, unknown),
                Drawn(hidden, compact, total[0], parts, sessions=shown_rows, dates=_dates(by, full), zone=zone,
                      sort=sort, reverse=reverse, cut=cut, runs=runs, zero=zero_headers(columns), partial=mixed,
                      short=bounds_drawn(columns, rows, hidden) if short and term.tty else (),
                      counted_runs=by != "session" and says_runs(rows)))
    return Laid(planned, compact, lines, shown[1])


def bounds_drawn(columns: Sequence[Column], rows: Iterable[Row], hidden: Collection[str]) -> tuple[str, ...]:
    """Where ``rows`` drawn in ``columns`` (those not ``hidden``) show a lower bound (a ``Bound``
    cell, as its builder made it: ``number_cells``' ``short``), for the note under them to name:
    the columns (not REASONING's, a note of its own), then ``tokens_notes.UNDER`` when a line
    under a row (``dim``: a run's, a ``--breakdown`` model's) has one."""
    figures = {at: column.header for at, column in enumerate(columns)
               if column.right and column.header not in hidden and column.header != "REASONING"}
    marked = {(at, row.style == "dim") for row in rows for at, cell in enumerate(row.cells)
              if at in figures and isinstance(cell, Bound)}
    return (*(figures[at] for at in sorted(figures) if any(place[0] == at for place in marked)),
            *((UNDER,) if any(under for _, under in marked) else ()))


def _dates(by: str, full: list[list[Row]]) -> list[str]:
    """By session, the DATE of each row shown (``session_cells``' second cell)."""
    return [group[0].cells[1] for group in full if group] if by == "session" else []


def _keys(rows: list[Row]) -> list[str]:
    """The rows' keys, a week's without its Monday (``2026-W48 (Nov 23)``), TOTAL's too."""
    return [row.cells[0].split(" ", 1)[0] for row in rows]


def _print_unrecorded_only(by: str, rows: list[Row], named: Folded, term: Terminal, dates: list[str],
                           zone: tzinfo | None) -> Laid:
    """A table no line of which has a number (each says "not recorded", the total too): one
    column says so, and the text keeps its room (five empty number columns left out a
    title, a project and a date at 80 columns)."""
    columns = zoned(columns_of(by), by, _keys(rows), zone)
    first, last = rows[0].span or (0, 0)  # the number and cost columns, every row's span
    columns = [*columns[:first], Column("TOKENS"), *columns[last + 1:]]
    rows = [Row([*row.cells[:first + 1], *row.cells[last + 1:]], row.style) for row in rows]
    columns = tablepaths.named_floors(columns, table.cells_of(rows))
    planned = tablefit.layout(columns, rows, term)
    shown = tablepaths.paths_fitted(columns, planned, term, table.cells_of(rows))
    lines, hidden = table.render(columns, rows, term, shown)
    write_out("\n".join(lines) + "\n")
    print_notes(by, term, named, drawn=Drawn(hidden, sessions=len(dates), dates=dates, zone=zone))
    return Laid(planned, False, lines, shown[1], unrecorded_only=True)
