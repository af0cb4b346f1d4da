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
``NUMBER_COLUMNS`` so a cost column can join them), laid out and printed in ``tokens_layout``.
What stderr says when the options left a session out is worded in ``tokens_empty``.
"""

from __future__ import annotations

from datetime import tzinfo
from functools import partial
from typing import TYPE_CHECKING, Callable, Collection, Iterable, NamedTuple

from agentscan.cli import render
from agentscan.cli.tableparts import Row
from agentscan.cli.term import Terminal, clean_path
from agentscan.cli import tokens_breakdown, tokens_models
from agentscan.cli.tokens_columns import dated_week, reasoning_partial, reasoning_unreported, total_agents
from agentscan.cli.tokens_folds import fold_kind, named_folds, names_nothing
from agentscan.cli.tokens_notes import no_price, shows_parts
from agentscan.cli.tokens_rows import row_lines
from agentscan.cli.tokens_sessions import files_empty, recorded_nothing, said_unrecorded, session_facts, summary_title
from agentscan.cli.tokens_runs import tail_at
from agentscan.model import sum_usage
from agentscan.scan.tokenreport import TokenReport, TokenRow
from agentscan.cli.tokens_layout import Laid, print_lines

if TYPE_CHECKING:
    from agentscan.cli.tokens_sessions import Cut, TableSession
    from agentscan.scan.short_ids import Known
    from agentscan.scan.tokensort import SortKey


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
                 known: Known | None = None, reverse: bool = False, none_recorded: bool = False,
                 skipped: Collection[str] = ()) -> Printed:
    """Print the table; ``short_ids``: the ids a terminal shows (of the rows' sessions and of
    the ``unrecorded`` ones named under it); ``zone``: ``--tz``, the sessions' dates' zone;
    ``sort``: the order the report's rows are in (``--sort``; ``reverse``: its opposite), which a long table names;
    ``cut``: by session, the line of the sessions left out (``tokens_sessions.cut_sessions``),
    after the report's rows; ``agents_of``: by model, who recorded which (``tokens_models``);
    ``known``: every id a run's ``↳`` label must begin none of (``tokens_runs.subagent_names``);
    ``none_recorded``: no session recorded usage, which a line said (``tokens_empty.recorded_none``):
    they are not named again; ``skipped``: sessions of no usage a bug in agentscan cost, named by
    their warning alone (``tokens_sessions.skipped_sessions``)."""
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
        if (shown or row.tokens is None or not (any(full) and names_nothing(report.by, row.key)))
        and (shown or row.key not in skipped))
    # Grouped, a row's parts are no lines of their own: its runs' tokens are a column (SUBAGENTS).
    models, unknown = no_price(report, with_parts=by_session and shows_parts(term))
    parts = by_session and any(row.subagents for row, shown in zip(report.rows, full) if shown)
    runs = None if by_session else sum_usage(usage for row in report.rows for _, usage in row.subagents)
    unread, damaged = read_to_damage(report)
    laid = print_lines(report.by, full, lambda: lines(True), total, folded, models, term,
                       unrecorded=[] if none_recorded else shown_keys(said_unrecorded(report, skipped), short_ids, term) + unrecorded,
                       unknown=unknown,
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
