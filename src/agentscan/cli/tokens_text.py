"""Human-readable ``tokens`` output: one aligned table, numbers right-aligned.

``--by session`` rows say what the session was (date, cwd, then its title last, as
``list`` has it) beside its id.  Rows with no tokens at all (``<synthetic>`` models,
empty sessions) are folded into one line; so are the sessions whose provider recorded no
usage (current Cursor builds'), however grouped: a line under the table names them
(``--json`` keeps their rows, ``null``).  A pipe gets the header, a line a row and the
TOTAL alone: the ``(+ …)`` lines go to stderr there (``tokens_notes``), and a row's parts
(own, subagents') are a terminal's by session (``tokens_notes.shows_parts``); grouped, the
subagents' part is a column, SUBAGENTS, a line a row on a terminal and in a pipe alike.  The
rows' lines are made in ``tokens_rows`` (the number columns are listed in
``NUMBER_COLUMNS`` so a cost column can join them).  What stderr says when the options
left a session out is worded in ``tokens_empty``.
"""

from __future__ import annotations

from datetime import tzinfo
from functools import partial
from typing import TYPE_CHECKING, Callable, Collection, Iterable, NamedTuple, Sequence

from agentscan.cli import render
from agentscan.cli import table, tablefit, tablepaths
from agentscan.cli.tableparts import Column, Row
from agentscan.cli.tablewidths import natural as natural_widths
from agentscan.cli.term import Terminal, clean_path, width_of, write_out
from agentscan.cli.term import cut as cut_text
from agentscan.cli import tokens_breakdown, tokens_models
from agentscan.cli.tokens_columns import (FIGURES, columns_of, dated_week, reasoning_partial, reasoning_unreported, total_agents,
                                          zero_first, zero_headers, zoned)
from agentscan.cli.tokens_notes import (UNDER, Drawn, Folded, Unpriced, fold_kind, named_folds, names_nothing, no_price,
                                        print_notes, shows_parts)
from agentscan.cli.tokens_rows import Total, row_lines, total_row
from agentscan.cli.tokens_sessions import files_empty, recorded_nothing, said_unrecorded, session_facts, summary_title
from agentscan.cli.tokens_runs import (droppable_tails_fitted, has_droppable_tail, says_runs, tail_at, tails_dropped,
                                       without_droppable_tail)
from agentscan.model import TokenUsage, sum_usage
from agentscan.scan.tokenreport import TokenReport, TokenRow

if TYPE_CHECKING:
    from agentscan.cli.tokens_sessions import Cut, TableSession
    from agentscan.scan.short_ids import Known
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
                 known: Known | None = None, reverse: bool = False) -> Printed:
    """Print the table; ``short_ids``: the ids a terminal shows (of the rows' sessions and of
    the ``unrecorded`` ones named under it); ``zone``: ``--tz``, the sessions' dates' zone;
    ``sort``: the order the report's rows are in (``--sort``; ``reverse``: its opposite), which a long table names;
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
        facts[-1] = [*(["", ""] if term.tty else ["-", "-"]), summary_title(sort, reverse)]
    # A day's, month's or provider's key is agentscan's own text; the others as shown (a week's dated).
    own_keys = report.by not in ("session", "model", "cwd", "agent", "week")

    # REASONING ``-`` where no agent behind the figure records it apart (``reasoning_unreported``):
    # a session's, a provider's by its key; any other row's, and TOTAL, when none of the table's does.
    covered = report.selection.providers()
    agents = [_row_agents(row, by_session, cut is not None and at == len(report.rows) - 1)
              for at, row in enumerate(report.rows)]
    if by_session and report.rows:
        # By session, the table's agents are its sessions' (the others' line's among them): a table
        # of Claude sessions read ``-`` in each row and 0 in TOTAL, a home with Codex sessions too.
        covered = {agent for said in agents for agent in said or ()}
    unreported = reasoning_unreported(covered)
    # TOTAL's by the agents of the rows it adds up (it read ``0`` under rows of ``-``, as a
    # terminal's ``≥0`` did not).
    counted = total_agents(zip(agents, (row.tokens is not None and bool(row.tokens.total) for row in report.rows)),
                           covered)
    total_unreported = reasoning_unreported(counted)
    # A grouped row by its own agents (``TokenRow.providers``): a day of Claude calls alone
    # is ``-``, a day of Claude's and Codex's a lower bound (``reasoning_partial``).
    row_unreported = [reasoning_unreported((row.key,)) if report.by == "provider" else None if by_session
                      else reasoning_unreported(row.providers) if row.providers else unreported
                      for row in report.rows]
    row_partial = [not by_session and report.by != "provider" and reasoning_partial(row.providers or covered)
                   for row in report.rows]
    if cut is not None:
        row_unreported[-1] = reasoning_unreported(report.rows[-1].providers or covered)  # (the sessions left out, summed)
        row_partial[-1] = reasoning_partial(report.rows[-1].providers or covered)
    mixed = reasoning_partial(counted)
    # ``--breakdown``: each row's models on lines under it (``tokens_breakdown``), before a
    # session's own and ``↳`` parts.
    broken = any(row.models is not None for row in report.rows)
    names = tokens_breakdown.model_names(report, term, agents_of) if broken else {}

    def lines(compact: bool) -> list[list[Row]]:
        made = [row_lines(row, row.key if own_keys else key, row_facts, term, compact=compact, session=session,
                          unreported=silent, known=known, partial=row_mixed)
                for row, key, row_facts, session, silent, row_mixed in zip(report.rows, keys, facts, sessions,
                                                                        row_unreported, row_partial)]
        if broken:
            made = [[*group[:1], *tokens_breakdown.model_lines(row, names, term, compact=compact, by_session=by_session,
                                                               unreported=bool(silent)), *group[1:]] if group else group
                    for group, row, silent in zip(made, report.rows, row_unreported)]
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
    unread, damaged = read_to_damage(report)
    laid = print_lines(report.by, full, lambda: lines(True), total, folded, models, term,
                       unrecorded=shown_keys(said_unrecorded(report), short_ids, term) + unrecorded, unknown=unknown,
                       empty=empty, unreadable=shown_keys(unread, short_ids, term), damaged=shown_keys(damaged, short_ids, term),
                       parts=parts, zone=zone,
                       sort=sort, cut=cut, runs=runs, tails=tails, unreported=total_unreported, mixed=mixed,
                       breakdown=broken, reverse=reverse, short=any(row.recovered for row in report.rows))
    return Printed(keys, facts, full, laid)


def _row_agents(row: TokenRow, by_session: bool, cut_row: bool) -> tuple[str, ...] | None:
    """The agents whose calls ``row`` counts: a session's by its id, a group's (and a cut
    table's line of the sessions left out, ``cut_row``) by ``TokenRow.providers``; ``None``
    where that does not say."""
    if by_session and not cut_row:
        return (row.key.partition(":")[0],)
    return tuple(row.providers) or None


def read_to_damage(report: TokenReport) -> tuple[list[str], list[str]]:
    """``report.unreadable`` parted: those that could not be read, and those read only up to
    their damage, before any usage (a legacy Gemini chat cut short: ``SessionRow.usage_cut``,
    its cause worded as its warning is, ``settling.shown_message``)."""
    from agentscan.settling import cut_short

    damaged = {session_id for session_id, _, why in report.unread_causes if cut_short(why)}
    return ([key for key in report.unreadable if key not in damaged],
            [key for key in report.unreadable if key in damaged])


def shown_keys(keys: Iterable[str], short_ids: dict[str, str], term: Terminal) -> list[str]:
    """Each row's key as the table shows it: a session's id short on a terminal (whole in a
    pipe), and, as every key is a provider's text (a model, a session id from a file's
    name), its control characters as U+FFFD: an escape sequence in one is shown, not obeyed
    (``clean_path``: a key's spaces kept).  A plain key costs one ``isprintable``, called
    here: 15,000 calls of ``clean_path`` cost a millisecond more."""
    shown = [short_ids.get(key, key) for key in keys] if term.tty else list(keys)
    return [key if key.isprintable() else clean_path(key) for key in shown]


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
    if broken and by == "cwd":
        # A CWD's model lines cut from their end, as a name is, where the path beside them is
        # cut from its start (``tokens_breakdown``): a narrow terminal's table fits, as without them.
        rows = [row._replace(cells=[cut_text(row.cells[0], shown[1][0]), *row.cells[1:]]) if row.style == "dim" else row
                for row in rows]
    lines, hidden = table.render(columns, rows, term, shown)
    write_out("\n".join(lines) + "\n")
    print_notes(by, term, named, Unpriced(models, unknown),
                Drawn(hidden, compact, total[0], parts, sessions=shown_rows, dates=_dates(by, full), zone=zone,
                      sort=sort, reverse=reverse, cut=cut, runs=runs, zero=zero_headers(columns), partial=mixed,
                      short=bounds_drawn(columns, rows, hidden) if short and term.tty else (),
                      counted_runs=by != "session" and says_runs(rows)))
    return Laid(planned, compact, lines, shown[1])


def bounds_drawn(columns: Sequence[Column], rows: Iterable[Row], hidden: Collection[str]) -> tuple[str, ...]:
    """Where ``rows`` drawn in ``columns`` (those not ``hidden``) show a lower bound's ``≥`` (``number_cells``'
    ``short``), for the note under them to name: the columns (not REASONING's ``≥``, a note of its own),
    then ``tokens_notes.UNDER`` when a line under a row (``dim``: a run's, a ``--breakdown`` model's) has one."""
    figures = {at: column.header for at, column in enumerate(columns)
               if column.right and column.header not in hidden and column.header != "REASONING"}
    marked = {(at, row.style == "dim") for row in rows for at, cell in enumerate(row.cells)
              if at in figures and cell.startswith("≥")}
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
