"""The ``tokens`` text table made from a report: its rows put in the table's order (sessions
by their DATE, newest first, then ``--sort``), cut to ``--limit``, printed with what stderr
says of the ids asked for and of the sessions the options left out (``_left_out``).

``cli.tokens_answer`` decides whether the table is made at all (a remembered answer, a
patched one) and keeps what it printed; this module makes it.
"""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, NamedTuple, Sequence

from agentscan.cli import recorded, render

if TYPE_CHECKING:
    from agentscan.cli.term import Terminal
    from agentscan.cli.tokens_sessions import TableSession
    from agentscan.cli.tokens_text import Printed
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.short_ids import Known
    from agentscan.scan.tokenreport import TokenReport
    from agentscan.scan.tokensort import SortKey


class Asked(NamedTuple):
    """What the report was asked for: the sessions (``ids``; none: every one), providers,
    window and zone, as the notes under a table name them."""

    ids: Sequence[str]
    providers: list[str]
    since: datetime | None
    until: datetime | None
    zone: tzinfo | None
    cwd: str | None = None
    #: the rows' order (``--sort``)
    sort: SortKey = "date"
    #: by session, how many sessions' rows at most (``shown_at_most``; ``None``: every one)
    shown: int | None = None
    #: the rows in the opposite order (``--reverse``), before a cut: ``--limit 5`` is the 5 first of it
    reverse: bool = False


def table(report: TokenReport, scanner: Scanner, asked: Asked
           ) -> tuple[tuple[str, str], tuple[TokenReport, Printed, dict[str, TableSession]] | None]:
    """The text table and the notes under it, as they would be printed, and (by session)
    what it was made of: the report in the table's order, its rows' lines and the
    sessions' rows (``cli.tablepatch.keep``)."""
    from agentscan.cli.tokens_empty import NAMED
    from agentscan.cli.tokens_text import print_report
    from agentscan.scan.sessionids import known_ids_of

    term = render.terminal()
    shown = [row.key for row in report.rows if row.key in report.sessions]
    session_rows = sessions_facts(report, scanner)
    if report.by == "session":
        report = newest_first(report, session_rows)
    report = unrecorded_newest_first(report, scanner)
    # The newest session before ``--sort`` and ``--reverse``: "as `agentscan show ID` says of
    # the newest" (``_left_out``) named the first row, the oldest under ``--reverse``.
    newest = report.rows[0].key if report.by == "session" and report.rows else next(iter(report.unrecorded), None)
    # Sorted after the table's own order: rows that tie keep it.
    report = in_order(report, asked.sort)
    if asked.reverse:
        from dataclasses import replace

        report = replace(report, rows=report.rows[::-1])
    others = None
    if report.by == "session" and asked.shown is not None:
        from agentscan.cli.tokens_sessions import cut_sessions

        # The first sessions in that order, the others summed in one line (``--limit``).
        report, others = cut_sessions(report, asked.shown, session_rows, term, asked.zone)
    short_ids: dict[str, str] = {}
    if term.tty and (shown or report.unrecorded or report.unreadable):
        short_ids = scanner.short_ids() if shown else scanner.short_ids((*report.unrecorded[:NAMED],
                                                                         *report.unreadable[:NAMED]))
    notes = _left_out(scanner, report, asked, short_ids.get(newest, newest) if newest is not None else None)
    # "none of the 7 Cursor sessions recorded any" said, the "(+ 7 sessions that recorded no
    # usage …)" line under no table said it again: left out where that note is seen.
    none_recorded = _none_recorded_said(report) and _note_seen(term)
    from agentscan.cli.tokens_sessions import skipped_sessions

    skipped = skipped_sessions(report, scanner.ctx.warnings.listed)

    def print_all() -> Printed:
        for note in notes:
            render.note(note)
        printed = print_report(report, term, rows_of=session_rows.get, short_ids=short_ids, zone=asked.zone,
                               sort=asked.sort, cut=others, agents_of=lambda: _agents_of(scanner, report),
                               known=known_ids_of(scanner), reverse=asked.reverse, none_recorded=none_recorded,
                               skipped=skipped)
        if report.rows and asked.until is not None:
            from agentscan.cli.tokens_cut import window_line

            # Every grouping's: a table by session, model or provider says nothing of its window.
            line = window_line(asked.since, asked.until, asked.zone)
            if line is not None:
                render.note(line)
        if report.rows and report.by in ("day", "week", "month") and (asked.since or asked.until):
            from agentscan.cli.tokens_cut import cut_periods

            # A row reads as its whole period's: one the window cuts is said to be cut.
            cut = cut_periods(report.by, (row.key for row in report.rows), asked.since, asked.until, asked.zone)
            if cut is not None:
                render.note(cut)
        return printed

    printed, out, err = recorded.recording(print_all)
    return (out, err), ((report, printed, session_rows) if report.by == "session" else None)


def _agents_of(scanner: Scanner, report: TokenReport) -> list[tuple[str, str]]:
    """(agent, model) of each model the report's sessions recorded: by model, which agents
    recorded two names that read alike (``tokens_models``), asked only then."""
    from agentscan.scan.recordedmodels import recorded_models

    return recorded_models(scanner, refs=report.selection.covered)


def _left_out(scanner: Scanner, report: TokenReport, asked: Asked, newest: str | None) -> list[str]:
    """What a person is told on stderr about the ids asked for and the sessions the options
    left out (``TokenReport.selection``: found as the report was made, not looked up again):
    a subagent's id totals its session, the sessions asked for by id that ``--provider`` or
    ``--cwd`` drops, and, when no row is left, which filter took them (``newest``: the newest
    session's id as a terminal shows it, whose ``show`` a report of no usage names)."""
    from agentscan.cli.tokens_empty import cwd_drops_note, explain_empty, nearest_usage, provider_drops, recorded_none
    from agentscan.scan.sessionids import known_ids_of

    chosen = report.selection
    providers = asked.providers
    # An id of a delegated run totals its session, as ``show`` opens it (``scan.resolve``):
    # said, or a user took the session's total for the run's.
    left_out = {ref.id for ref in chosen.by_provider} | {ref.id for ref, _ in chosen.by_cwd}
    notes = [run_note(query, ref.id, run, report, render.terminal(), counted=ref.id not in left_out,
                      known=known_ids_of(scanner))
             for query, ref, run in chosen.asked if run is not None]
    dropped = chosen.by_provider
    if dropped:
        notes.append(provider_drops([(ref.id, ref.provider) for ref in dropped], providers,
                                    every=len(dropped) == len(chosen.asked)))
    if chosen.asked and chosen.by_cwd and asked.cwd is not None:
        notes.append(cwd_drops_note(chosen.by_cwd, asked.cwd, render.terminal(), every=not chosen.counted))
        if not chosen.counted:
            return notes  # none left: the note says why ("no sessions under" would say it again)
    if _none_recorded_said(report):
        # Named only in the "(+ … recorded no usage)" line, on stderr in a pipe with nothing on
        # stdout: no line said what the answer is, as an empty window's does (a Cursor-only
        # home's whole report, too).
        from agentscan.scan.notfound import unread_stores

        notes.append(recorded_none(chosen.counted, asked_for=bool(chosen.asked), agents=_agents_named(report),
                                   newest=newest, unread=list(dict.fromkeys(
                                       label for label, _ in unread_stores(scanner, providers)))))
        return notes
    if not dropped and not report.rows:
        count = chosen.counted
        if asked.cwd is not None and not count and chosen.by_cwd:
            # As ``list --cwd`` says it (``list_text``).
            notes.append(render.none_under(render.path_text(asked.cwd, render.terminal()), len(chosen.by_cwd), asked.cwd))
            from agentscan.cli.cwdhint import near_cwd_hint

            near = near_cwd_hint(asked.cwd, (cwd for _, cwd in chosen.by_cwd))
            return [*notes, near] if near is not None else notes
        # Sessions that recorded no usage at all are named under the table: when they are all
        # there is, no filter is to blame.  None where a root named explicitly
        # (``CLAUDE_CONFIG_DIR``) cannot be read: the error that follows says why.
        # Nor to blame for the sessions that could not be read: their own line says so.
        unreadable = len(report.unreadable)
        blamed = len(report.unrecorded) + unreadable < count if count else not scanner.unreadable_explicit_roots()
        unread = None
        if not count and not asked.ids:
            from agentscan.scan.notfound import unread_stores_note

            unread = unread_stores_note(scanner, providers)
        if unread is not None:
            notes.append(unread)  # (in place of "doctor shows where agentscan looked")
        elif blamed:
            why = explain_empty(count, asked_for=bool(asked.ids), providers=providers, since=asked.since,
                                until=asked.until, zone=asked.zone, unread=unreadable)
            if why is not None and count and (asked.since is not None or asked.until is not None):
                # A window no call fell in ("since 7d" on a home idle for months): when the
                # sessions were active, and the option that takes that in.
                why += nearest_usage(_last_active(scanner, report), since=asked.since, until=asked.until,
                                     zone=asked.zone)
            notes.extend([why] if why is not None else [])
    return notes


def _none_recorded_said(report: TokenReport) -> bool:
    """Whether ``_left_out`` says that none of the report's sessions recorded any usage
    (``tokens_empty.recorded_none``): no id asked for was dropped by ``--provider``."""
    return not report.selection.by_provider and _recorded_none(report, report.selection.counted)


def _note_seen(term: Terminal) -> bool:
    """Whether a note on stderr (``render.note``) is seen where the "(+ 7 sessions that recorded
    no usage …)" line would be (stdout on a terminal, else stderr): not with ``--quiet``, which
    drops notes, nor on a terminal whose stderr goes elsewhere (``2>/dev/null``): left out
    there, nothing at all was printed."""
    from agentscan.cli import term as terminal

    return not terminal.quiet() and (not term.tty or terminal.stderr_is_tty())


def _recorded_none(report: TokenReport, count: int) -> bool:
    """Whether each of the ``count`` sessions the report covers recorded no usage at all: by
    session their rows say "not recorded" (folded under the table), grouped none has a row."""
    if not count or report.unreadable or any(row.tokens is not None for row in report.rows):
        return False
    keys = {row.key for row in report.rows} if report.by == "session" else set()
    return len(keys | set(report.unrecorded)) == count


def _agents_named(report: TokenReport) -> list[str]:
    """The agents' names (``Cursor``) of the sessions that recorded no usage, in order: by
    session their rows' keys (``cursor:<id>``), else ``report.unrecorded``'s."""
    from agentscan.providers import is_provider_name, label_of

    keys = [*(row.key for row in report.rows if report.by == "session"), *report.unrecorded]
    names = dict.fromkeys(key.partition(":")[0] for key in keys)
    return [label_of(name) for name in names if is_provider_name(name)]


def _last_active(scanner: Scanner, report: TokenReport) -> list[datetime]:
    """When each session the report counted was last active (its DATE column's time), those
    that recorded usage at all (``report.unrecorded``: current Cursor builds' record none).
    From their facts (``scan.tablefacts``: kept in the index, or a few bytes of their
    files), as the default table reads them: their calls are not read again."""
    from agentscan.scan import tablefacts

    from agentscan.model import SessionRow

    unrecorded = set(report.unrecorded)
    refs = [ref for ref in {ref.id: ref for ref in report.selection.covered}.values() if ref.id not in unrecorded]
    facts = tablefacts.gather(scanner, refs)
    # A naive time is local (``astimezone`` takes it so): compared with the window's bounds.
    # ``report.unrecorded`` holds only those active in the window: a session read as a row
    # (Cursor's, Gemini's) that recorded no usage at all, active before it, is left out too,
    # or the window offered took in its time and found no usage again.
    return [fact.updated_at.astimezone() for fact in facts.values() if fact.updated_at is not None
            and not (isinstance(fact, SessionRow) and fact.tokens is None)]


def run_note(query: str, session_id: str, run: str, report: TokenReport, term: Terminal, *, counted: bool,
             known: Known | None = None) -> str:
    """What stderr says of an id asked for (``query``) that is a subagent's (``run``) of
    ``session_id``: its session is totalled, and where the run's own part is, on a line the
    table shows (by session on a terminal: ``↳`` and its id as shown there) or else in
    ``--json``; ``counted``: no option left the session out (the note saying so follows);
    ``known``: as ``tokens_text.print_report``'s."""
    told = f"{query.strip()} is a subagent of {session_id}"
    if not counted:
        return told
    from agentscan.cli.term import clean_path
    from agentscan.cli.tokens_notes import shows_parts
    from agentscan.cli.tokens_runs import subagent_names

    # By session its part has a line of its own, on a terminal; grouped, a row's runs are
    # one line (or its key's count: ``tokens_runs``), a pipe has no part lines.
    by_session = report.by == "session"
    # Grouped, a run's id is ``<session id>/<run id>`` (its session's rows are merged).
    wanted = run if by_session else f"{session_id}/{run}"
    row = next((row for row in report.rows if (not by_session or row.key == session_id)
                and any(sub_id == wanted for sub_id, _ in row.subagents)), None)
    if row is None:
        return f"{told}: its session is totalled, and no call of the run's is in it"
    if by_session and shows_parts(term) and row.tokens is not None and row.tokens.total:
        shown = clean_path(subagent_names(row, term, known).get(run, run))
        return f"{told}: its session is totalled, the run's own part on its ↳ {shown} line"
    return f"{told}: its session is totalled, the run's own part in --json"


def sessions_facts(report: TokenReport, scanner: Scanner) -> dict[str, TableSession]:
    """The date, project and title of each of ``report``'s sessions, read quietly on every
    core: the provider's facts (``scan.tablefacts``: kept in the index), else the session's row.
    In a window, a session's date is its last call's in it (``TokenReport.last_calls``): the
    one it updated last may lie past ``--until``, a date the window leaves out.  Under
    ``--cwd``, a multi-root Cursor chat's CWD is the folder it matched
    (``TokenReport.matched_cwds``, as ``list`` shows it), not its workspace's first."""
    from agentscan.cli.tokens_sessions import in_window
    from agentscan.model import SessionRow
    from agentscan.progress import NAMING
    from agentscan.scan import tablefacts

    shown = [report.sessions[row.key] for row in report.rows if row.key in report.sessions]
    progress = scanner.ctx.progress
    progress.handover()  # the sums are read: reading the facts is a phase of its own, named at once
    with progress.named(NAMING):
        progress.expect(len(shown))
        found = tablefacts.gather(scanner, shown, told=True)
    for key, folder in report.matched_cwds.items():
        if (session := found.get(key)) is not None:
            found[key] = session.with_changes(cwd=folder) if isinstance(session, SessionRow) else session._replace(cwd=folder)
    return in_window(found, report.last_calls) if report.last_calls else found


def newest_first(report: TokenReport, session_rows: dict[str, TableSession]) -> TokenReport:
    """The table's sessions by their DATE (what each recorded last), newest first: the
    report's order follows file times, only a bound of it (a copied home, the installed
    ``--demo``, has them all alike).  Sessions without a date go last, in their order."""
    from dataclasses import replace

    from agentscan.cli.tokens_sessions import sort_key

    return replace(report, rows=tuple(sorted(report.rows, key=lambda row: sort_key(session_rows.get(row.key)),
                                             reverse=True)))


def unrecorded_newest_first(report: TokenReport, scanner: Scanner) -> TokenReport:
    """``report`` with the sessions that recorded no usage (named under the table) in one order
    whatever the grouping: newest first, by their dates as ``--by session`` (and ``list``) has
    its sessions, those without one last.  Grouped, they came in discovery's order (a file
    time, provider by provider), and ``--by model`` named them otherwise than ``--by session``."""
    if len(report.unrecorded) < 2:
        return report
    from dataclasses import replace

    from agentscan.cli.tokens_sessions import sort_key
    from agentscan.scan import tablefacts

    refs = report.selection.by_id(report.unrecorded)
    facts = tablefacts.gather(scanner, [refs[key] for key in dict.fromkeys(report.unrecorded) if key in refs])
    return replace(report, unrecorded=tuple(sorted(report.unrecorded, key=lambda key: sort_key(facts.get(key)),
                                                   reverse=True)))


def in_order(report: TokenReport, sort: SortKey) -> TokenReport:
    """``report`` with its rows in ``sort``'s order (``scan.tokensort``); ``date``: as it is."""
    if sort == "date":
        return report
    from dataclasses import replace

    from agentscan.scan.tokensort import sorted_rows

    return replace(report, rows=sorted_rows(report.rows, sort))
