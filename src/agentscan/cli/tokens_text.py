"""Human-readable ``tokens`` output: one aligned table, numbers right-aligned.

``--by session`` rows say what the session was (date, cwd, then its title last, as
``list`` has it) beside its id.  Rows with no tokens at all (``<synthetic>`` models,
empty sessions) are folded into one line; so are the sessions whose provider recorded no
usage (current Cursor builds'), however grouped: a line under the table names them
(``--json`` keeps their rows, ``null``).  A pipe gets the header, a line a row and the
TOTAL alone: the ``(+ …)`` lines go to stderr there (``tokens_notes``), and a row's parts
(own, subagents') are a terminal's by session (``tokens_notes.shows_parts``); grouped, the
subagents' part is a column, SUBAGENTS, a line a row on a terminal and in a pipe alike.  The number columns are listed in
``NUMBER_COLUMNS`` so a cost column can join them.  What stderr says when the options
left a session out is worded in ``tokens_empty``.
"""

from __future__ import annotations

from datetime import tzinfo
from decimal import Decimal
from operator import attrgetter
from functools import partial
from typing import TYPE_CHECKING, Callable, Collection, Iterable, NamedTuple, Sequence

from agentscan.cli import render
from agentscan.cli import table, tablefit, tablepaths
from agentscan.cli.tableparts import Column, Row
from agentscan.cli.tablewidths import natural as natural_widths
from agentscan.cli.term import Terminal, clean_path, write_out
from agentscan.cli import tokens_models
from agentscan.cli.tokens_columns import (FIGURES, NOT_RECORDED, NUMBER_COLUMNS, REASONING_AT, SESSION_LEAD, columns_of,
                                          dated_week, reasoning_unreported, session_cells, zero_first, zero_headers,
                                          zoned)
from agentscan.cli.tokens_notes import (Drawn, Folded, Unpriced, fold_kind, named_folds, names_nothing, no_price,
                                        print_notes, shows_parts)
from agentscan.cli.tokens_sessions import files_empty, recorded_nothing, said_unrecorded, session_facts, summary_title
from agentscan.cli.tokens_runs import (counted_row, droppable_tails_fitted, has_droppable_tail, runs_cell,
                                      subagent_names, subagents_cell, tail_at, tails_dropped, with_subagents)
from agentscan.model import TokenUsage, sum_usage
from agentscan.scan.tokenreport import TokenReport, TokenRow

if TYPE_CHECKING:
    from agentscan.cli.tokens_sessions import Cut, TableSession
    from agentscan.scan.short_ids import Known
    from agentscan.scan.tokensort import SortKey

#: a usage's numbers in ``NUMBER_COLUMNS``' order, in one call (a heavy user's table has 15,000 rows)
_VALUES = attrgetter(*(name for _, name, _ in NUMBER_COLUMNS))


def _numbers(usage: TokenUsage | None, cost: Decimal | None, term: Terminal, *, compact: bool,
             part: bool = False, at_least: Decimal | None = None, unreported: bool = False) -> list[str]:
    """The number cells and the cost; a session with no recorded usage says so, a part with none is ``-``.

    ``compact``: ``75.4k`` instead of ``75,433``, when that keeps columns a narrow terminal would lose.
    ``at_least``: for an unknown cost, what its priced calls cost (shown ``≥$…``).
    ``unreported``: its agents never record reasoning apart (``reasoning_unreported``): REASONING is ``-``.
    """
    if usage is None and part:
        return [""] * (len(NUMBER_COLUMNS) - 1) + ["-", ""]
    if usage is None:  # laid over the row's number and cost columns (``Row.span``)
        return [NOT_RECORDED] + [""] * len(NUMBER_COLUMNS)
    cells = [*map(number_form(term, compact), _VALUES(usage)), render.human_usd(cost, at_least, grouped=term.tty)]
    if unreported and not usage.reasoning:
        cells[REASONING_AT] = "-"
    return cells


def number_form(term: Terminal, compact: bool) -> Callable[[int], str]:
    """How a table's numbers are shown: ``75.4k`` when ``compact``, else ``75,433`` on a
    terminal and ``75433`` in a pipe."""
    return render.compact_number if compact else render.full_numbers(term)


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


class Printed(NamedTuple):
    """What ``print_report`` made of each of the report's rows (the text table's basis,
    ``cli.tablepatch``): its key as shown, its date, project and title (``[]`` but by
    session), and its lines, the numbers in full (``[]``: a row of 0 tokens, folded); and
    how the table was laid out."""

    keys: list[str]
    facts: list[list[str]]
    lines: list[list[Row]]
    laid: Laid


def print_report(report: TokenReport, term: Terminal, *, rows_of: Callable[[str], TableSession | None],
                 short_ids: dict[str, str], zone: tzinfo | None = None, sort: SortKey = "date",
                 cut: Cut | None = None, agents_of: tokens_models.AgentsOf | None = None,
                 known: Known | None = None) -> Printed:
    """Print the table; ``short_ids``: the ids a terminal shows (of the rows' sessions and of
    the ``unrecorded`` ones named under it); ``zone``: ``--tz``, the sessions' dates' zone;
    ``sort``: the order the report's rows are in (``--sort``), which a long table names;
    ``cut``: by session, the line of the sessions left out (``tokens_sessions.cut_sessions``),
    after the report's rows; ``agents_of``: by model, who recorded which (``tokens_models``);
    ``known``: every id a run's ``↳`` label must begin none of (``tokens_runs.subagent_names``)."""
    by_session = report.by == "session"
    if cut is not None:
        from dataclasses import replace

        # The others' line is a row as a session's is, its parts not apart: the table still
        # adds up to its TOTAL, and its unknown cost shows its bound as a row's does.
        report = replace(report, rows=(*report.rows, cut.row))
    keys = shown_keys((row.key for row in report.rows), short_ids, term)
    tails: dict[str, int] = {}
    if report.by == "model" and term.tty:
        # As ``list`` shows them (``opus-4.5``): ``claude-sonnet-4-5-20250929`` took a narrow
        # terminal's CACHE WRITE column.  Where two would read alike, with their agents or longer.
        keys, tails = tokens_models.model_names(keys, term, agents_of)
    elif report.by == "cwd":
        # As ``list`` shows a CWD: ``~/src/app`` on a terminal, whole in a pipe.
        keys = [render.path_text(key, term) for key in keys]
    dated = report.by == "week" and term.tty
    if dated:
        # ``2026-W36`` told no one which days it was: its Monday beside it (``dated_week``).
        keys = [dated_week(key) for key in keys]
    # Each session's date, project and title: made once for both layouts.
    sessions = [rows_of(row.key) if by_session else None for row in report.rows]
    facts = [session_facts(session, term, zone) if by_session else [] for session in sessions]
    if cut is not None:
        # What it is, where a session's title goes; no DATE or CWD: blank on a terminal, and
        # ``-`` in a pipe, as a session's unknown one is, so that ``awk`` finds INPUT in its field.
        facts[-1] = [*(["", ""] if term.tty else ["-", "-"]), summary_title(sort)]
    # A day's, month's or provider's key is agentscan's own text; the others as shown (a week's dated).
    own_keys = report.by not in ("session", "model", "cwd", "agent", "week")

    # REASONING ``-`` where no agent behind the figure records it apart (``reasoning_unreported``):
    # a session's, a provider's by its key; any other row's, and TOTAL, when none of the table's does.
    unreported = reasoning_unreported(ref.provider for ref in report.selection.covered)
    row_unreported = [reasoning_unreported((row.key,)) if report.by == "provider" else None if by_session
                      else unreported for row in report.rows]
    if cut is not None:
        row_unreported[-1] = unreported  # (the sessions left out, summed)

    def lines(compact: bool) -> list[list[Row]]:
        made = [row_lines(row, row.key if own_keys else key, row_facts, term, compact=compact, session=session,
                          unreported=silent, known=known)
                for row, key, row_facts, session, silent in zip(report.rows, keys, facts, sessions, row_unreported)]
        # A week's Monday goes before a figure does, as a runs' count (``tokens_runs.tail_at``).
        return [tail_at(group, len(row.key)) for group, row in zip(made, report.rows)] if dated else made

    full = lines(False)
    total = (report.total, report.cost, report.cost_priced)
    # By session the sessions that recorded no usage are folded as a grouping folds them
    # (hundreds of Cursor sessions' "not recorded" rows buried the others); --json keeps their rows.
    # (A folded week is named by its label alone: its date inside the note's parentheses read badly.)
    folded, empty, unrecorded = named_folds(
        (row.key if dated else key, fold_kind(bool(shown), recorded_nothing(row, row_facts, session), row.tokens is None,
                                              partial(files_empty, report.sessions.get(row.key))))
        for row, key, shown, row_facts, session in zip(report.rows, keys, full, facts, sessions)
        # A row of 0 tokens whose key names nothing is left out beside rows that tell something.
        if shown or row.tokens is None or not (any(full) and names_nothing(report.by, row.key)))
    # Grouped, a row's parts are no lines of their own: its runs' tokens are a column (SUBAGENTS).
    models, unknown = no_price(report, with_parts=by_session and shows_parts(term))
    parts = by_session and any(row.subagents for row, shown in zip(report.rows, full) if shown)
    runs = None if by_session else sum_usage(usage for row in report.rows for _, usage in row.subagents)
    laid = print_lines(report.by, full, lambda: lines(True), total, folded, models, term,
                       unrecorded=shown_keys(said_unrecorded(report), short_ids, term) + unrecorded, unknown=unknown,
                       empty=empty, unreadable=shown_keys(report.unreadable, short_ids, term), parts=parts, zone=zone,
                       sort=sort, cut=cut, runs=runs, tails=tails, unreported=unreported)
    return Printed(keys, facts, full, laid)


def shown_keys(keys: Iterable[str], short_ids: dict[str, str], term: Terminal) -> list[str]:
    """Each row's key as the table shows it: a session's id short on a terminal (whole in a
    pipe), and, as every key is a provider's text (a model, a session id from a file's
    name), its control characters as U+FFFD: an escape sequence in one is shown, not obeyed
    (``clean_path``: a key's spaces kept).  A plain key costs one ``isprintable``, called
    here: 15,000 calls of ``clean_path`` cost a millisecond more."""
    shown = [short_ids.get(key, key) for key in keys] if term.tty else list(keys)
    return [key if key.isprintable() else clean_path(key) for key in shown]


Total = tuple[TokenUsage | None, Decimal | None, Decimal | None]
"""A table's total: its tokens, cost and cost priced."""


def total_row(by: str, total: Total, term: Terminal, *, compact: bool, runs: TokenUsage | None = None,
              unreported: bool = False) -> Row:
    """The TOTAL line; grouped, ``runs``: the subagent runs' tokens of every row (its SUBAGENTS);
    ``unreported``: no session of the table's agents records reasoning apart (REASONING ``-``)."""
    usage, cost, priced = total
    values = _numbers(usage, cost, term, compact=compact, at_least=priced, unreported=unreported)
    lead = SESSION_LEAD if by == "session" else 1
    # "not recorded" laid over the number columns, as a row's is (in INPUT alone it widened it).
    span = (lead, lead + len(NUMBER_COLUMNS) + (by != "session")) if usage is None else None
    if by != "session":
        values = with_subagents(values, runs_cell(runs, usage is not None, number_form(term, compact)))
    cells = session_cells("TOTAL", ["", "", ""], values) if by == "session" else ["TOTAL", *values]
    return Row(cells, style="bold", span=span)


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
                unreadable: Sequence[str] = (), unreported: bool = False) -> Laid:
    """The table of rows' ``full`` lines (or their ``compact_lines``, when rounded numbers keep
    more columns; in a summary, its keys' droppable tails left out when that keeps a figure), the
    ``total`` (tokens, cost, cost priced; grouped, ``runs``: its subagent runs'), and the notes under it: the
    ``folded`` rows' keys (0 tokens), the ``empty`` sessions' (they recorded nothing), the
    ``unrecorded`` sessions (in no row), the ``unreadable`` ones (in no row either) and the ``models`` without a price (``unknown``: how
    the costs they leave unknown show, ``no_price``); ``parts``: a row shown has delegated calls
    (by session, its parts' lines, left out of a pipe: ``row_lines``); ``zone``: ``--tz``, the dates' zone;
    ``sort``: the rows' order (``--sort``); ``cut``: the last of ``full`` sums the sessions
    left out (``tokens_sessions.Cut``), which a note says; ``tails``: the model names whose
    agents a cut keeps (``tokens_models``); ``unreported``: TOTAL's REASONING is ``-`` (``total_row``)."""
    named = Folded(folded, empty, unrecorded, unreadable)
    if not any(full):
        # No row (an empty home, a window no call fell in: stderr says why, ``tokens_empty``,
        # as ccusage says "No usage data found"), or every row folded (each of 0 tokens, or a
        # session that recorded no usage): the lines naming them are all there is to say; a
        # header over a TOTAL of 0 (and the columns it "left out to fit") said nothing.
        print_notes(by, term, named, Unpriced(models, unknown))
        return Laid(([], []), False, [], [])
    rows = [row for group in full for row in group] + [total_row(by, total, term, compact=False, runs=runs,
                                                                                 unreported=unreported)]
    shown_rows = sum(map(bool, full))  # the rows with lines (a folded one is named under the table)
    # Its CWD no narrower than the names of the paths it shows, as ``list``'s (or left out):
    # the rows' own (``--by cwd``'s key; a part's line, by session, names none).
    # A period's heading names the zone its rows are cut in (``DAY (CET)``), as ``list``'s UPDATED.
    columns = tablepaths.named_floors(zoned(columns_of(by), by, _keys(rows), zone),
                                      table.cells_of([group[0] for group in full if group]))
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
                total_row(by, total, term, compact=True, runs=runs, unreported=unreported)]
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
                                        for compact in (False, True)], term, FIGURES - zero_headers(columns))
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
    lines, hidden = table.render(columns, rows, term, shown)
    write_out("\n".join(lines) + "\n")
    print_notes(by, term, named, Unpriced(models, unknown),
                Drawn(hidden, compact, total[0], parts, sessions=shown_rows, dates=_dates(by, full), zone=zone,
                      sort=sort, cut=cut, runs=runs, zero=zero_headers(columns)))
    return Laid(planned, compact, lines, shown[1])


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


def row_lines(token_row: TokenRow, key: str, facts: list[str], term: Terminal, *, compact: bool,
              session: TableSession | None = None, unreported: bool | None = None,
              known: Known | None = None) -> list[Row]:
    """A row's lines: its own, then, by session on a terminal, its parts (own and each
    subagent's; a pipe gets a line a row, as ``awk`` sums them: ``--json`` has the parts);
    grouped, one line, its runs' tokens in its SUBAGENTS cell (``tokens_runs.subagents_cell``;
    a row of delegated calls alone, its key saying how many runs: ``tokens_runs.counted_row``); none for a row of 0 tokens,
    nor, by session, for a session that recorded no usage (named in a line under the table,
    as a grouping names them; one that recorded nothing at all in one of its own:
    ``recorded_nothing``).  ``key``: its first cell; ``facts``: a session's date, project
    and title (``[]`` but by session), of ``session``; ``unreported``: its agents never record
    reasoning apart (REASONING ``-``; ``None``: by session, told by its id's agent); ``known``:
    as ``print_report``'s."""
    if token_row.tokens is not None and token_row.tokens.total == 0:
        return []  # nothing spent: folded into one line after the table
    by_session = bool(facts)
    if by_session and token_row.tokens is None:
        return []  # named in one line after the table
    if unreported is None:
        unreported = by_session and reasoning_unreported((token_row.key.partition(":")[0],))

    def numbers(usage: TokenUsage | None, cost: Decimal | None, *, part: bool = False,
                at_least: Decimal | None = None) -> list[str]:
        return _numbers(usage, cost, term, compact=compact, part=part, at_least=at_least, unreported=unreported)

    def cells(first: str, numbers: list[str], title: str = "") -> list[str]:
        return session_cells(first, ["", "", title], numbers) if by_session else [first, *numbers]

    unrecorded = token_row.tokens is None
    values = numbers(token_row.tokens, token_row.cost, at_least=token_row.cost_priced)
    # "not recorded" (a grouping's row of calls with no usage) is laid over the empty number
    # columns, not in TOTAL alone.
    span = (1, len(NUMBER_COLUMNS) + 2) if unrecorded else None
    if not by_session:
        # One line a row (ccusage's tables are): its runs' part a column of its own.
        # A row made only of delegated calls (each kind's ``--by agent``), on a terminal: its
        # key says how many runs it adds up (a pipe's key stays one field for ``awk``).
        counted = token_row.own is None and bool(token_row.subagents) and shows_parts(term) and numbers(
            sum_usage(usage for _, usage in token_row.subagents), token_row.subagents_cost,
            at_least=token_row.subagents_cost_priced) == values
        values = with_subagents(values, subagents_cell(token_row, number_form(term, compact)))
        if counted:
            return [counted_row(key, len(token_row.subagents), values, span)]
        return [Row([key, *values], span=span)]
    lines = [Row(session_cells(key, facts, values), span=span)]
    if not token_row.subagents or not shows_parts(term):
        return lines
    if token_row.own is not None:  # a group made only of delegated calls has no own part to show
        lines.append(Row(cells("  own", numbers(token_row.own, token_row.own_cost, part=True,
                                                at_least=token_row.own_cost_priced)), style="dim"))
    costs = token_row.subagent_costs or (None,) * len(token_row.subagents)
    # A part's unknown cost shows its lower bound as its group's does (``≥$0.43``), not ``-``.
    bounds = token_row.subagent_costs_priced or (None,) * len(token_row.subagents)
    names = subagent_names(token_row, term, known)
    recovered = dict(token_row.recovered)
    for (sub_id, usage), cost, bound in zip(token_row.subagents, costs, bounds):
        # No transcript: its calls were recovered from its parent's progress records,
        # which hold no copy of its final reply: a count short of it (docs/providers/claude.md).
        # Said where the title goes, so the id column stays narrow.
        note = recovered_note(recovered[sub_id]) if sub_id in recovered else ""
        lines.append(Row(cells(f"  ↳ {clean_path(names.get(sub_id, sub_id))}",
                               numbers(usage, cost, part=True, at_least=bound), note), style="dim"))
    return lines


def recovered_note(origin: str) -> str:
    """A subagent line's TITLE cell when its transcript is gone and its calls were found in
    its parent's ``origin`` records (``progress``), worded as ``show`` words it.  What it is
    comes first: a narrow TITLE keeps ``(no transcript:…``, where ``(from progress …`` said
    nothing; a wide one shows it all."""
    return f"(no transcript: from {origin} records, final reply not in them)"
