"""``tokens`` over unchanged files: the answer printed again instead of computed (``scan.answers``).

Without session ids or a time window, the answer depends only on the
providers' files (their census), the prices, the options and, for the text
table, the terminal (width, colour, whether stdout and stderr are
terminals) and ``$HOME`` (paths are shown as ``~/…``).  At a heavy user's
scale the text table costs seconds: 15,000 sessions summed and priced, and
each one's row read for its date, project and title.
"""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

from agentscan.cli import recorded, render
from agentscan.cli.state import end_progress, start_prices_on_a_first_run
from agentscan.scan import answers
from agentscan.scan.memo import MAX_WARNINGS


#: ``--cwd`` answers kept at most: each directory's is kept apart, and a user who visits many
#: must not grow the index for ever (nor push out the answers of every session: their slots
#: do not begin with ``CWD_SLOT``)
KEPT_DIRECTORIES = answers.KEPT_SLOTS
CWD_SLOT = "@"

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.groupby import GroupBy
    from agentscan.cli.tokens_text import Printed
    from agentscan.cli.tokens_sessions import TableSession
    from agentscan.scan.tokenreport import TokenReport
    from agentscan.cli.term import Terminal
    from agentscan.scan.short_ids import Known
    from agentscan.scan.tokensort import SortKey


def print_tokens(scanner: Scanner, *, ids: Sequence[str] = (), providers: list[str], since: datetime | None,
                 until: datetime | None, by: GroupBy, zone: tzinfo | None, as_json: bool, remember: bool,
                 cwd: str | None = None, sort: SortKey = "date", dated: bool = False, limit: int | None = None,
                 show_all: bool = False) -> None:
    """Print the report (``--json`` or the table) of ``ids`` (default: every session); ``remember``:
    it may come from, and go to, the index (only for every session: ``ids`` are not in its key).
    ``cwd``: an absolute directory, only the sessions in it or below it (``--cwd``); ``sort``:
    the rows' order (``--sort``; ``date``: the report's own); ``dated``: ``--sort date`` was
    given, and ``--json``'s sessions come by their DATE, newest first, as the table's do;
    ``limit``, ``show_all``: the table by session's ``--limit N`` and ``--all`` (``shown_at_most``)."""
    question: dict[str, Any] = {"by": by, "providers": sorted(providers), "tz": answers.zone_identity(zone)}
    # ``--json --sort date`` by session: its sessions in the table's order, by the date each
    # recorded last (``_by_date``), which reads each one's facts.  A plain ``--json`` keeps the
    # report's own order (newest file first): a cold one reads no facts (docs/performance.md).
    dated = dated and as_json and by == "session" and sort == "date"
    # Another order is another answer, kept in a slot of its own: never printed for the
    # default order's question (nor the default's for it), and ``tokens --sort cost`` does not
    # push out the plain ``tokens``' answer.  The default's question is as it ever was.
    ordered = f":{sort}" if sort != "date" or dated else ""
    if sort != "date" or dated:
        question["sort"] = sort
        question["slot"] = f"{by}{ordered}"
    if cwd is not None:
        question["cwd"] = cwd
        # Each directory's answer kept apart (``tokens --cwd .`` in one project, then another's).
        question["slot"] = f"{answers.slot_of(cwd, CWD_SLOT)}:{by}{ordered}"
    if not as_json:
        term = render.terminal()
        # The table's dates are in the zone "tz" names (--tz, else the local zone's makeup),
        # and its paths ~/-relative.
        question["text"] = recorded.terminal_facts(term)
        shown = shown_at_most(by, term, limit, show_all)
        if shown is not None:
            # A table that may be cut is another answer than the whole one (a pipe's, ``--all``'s):
            # never printed for it, nor patched from its basis (``patchable``), and kept in a
            # slot of its own, so that ``tokens`` and ``tokens --all`` do not push out each other's.
            question["shown"] = shown
            question["slot"] = f"{question.get('slot', by)}:cut"
    command = "tokens" if as_json else "tokens-text"
    start_prices_on_a_first_run(scanner)
    # The table's CWD column can come from another provider's sessions (a Gemini cwd), and
    # so can the directory ``--cwd`` and ``--by cwd`` choose by: every census counts then.
    witnesses = not as_json or cwd is not None or by == "cwd"
    key = answers.answer_key(scanner, command, question, providers, witnesses=witnesses) if remember else None
    known = answers.recall(scanner, command, question, key)
    again = recorded.printable(known.answer, as_json) if known is not None else None
    if known is not None and again is not None:
        recorded.print_again("tokens", again, scanner, known)
        return
    from agentscan.scan import priceahead

    priceahead.start(scanner)  # genai-prices imported by a helper while the sessions are read
    # Every session by session: patched from the last whole answer (``scan.answerpatch``).
    # Not under ``--cwd``: a patch starts from the kept answer of every session; nor in another
    # order: a patch keeps the rows where the kept answer had them.
    patchable = remember and by == "session" and cwd is None and sort == "date" and not dated
    with scanner.ctx.warnings.capture(MAX_WARNINGS) as raised:
        # One capture for both: discovery's warnings, raised once, belong to either answer.
        answer = None
        table: tuple[str, str] | None = None
        if patchable and "shown" in question:
            # Nor when the table may be cut (``--limit``, a terminal's 25): a basis is of every
            # row, and a cut table is made again from the kept sums.  One of no more sessions
            # than it shows, or one more (``tokenreport.first_rows`` sums two or more), never
            # is: its basis and a table patched from it are whole ones.
            from agentscan.scan.tokenreport import FEWEST_SUMMED

            patchable = len(scanner.refs(providers)) < question["shown"] + FEWEST_SUMMED
        if patchable and as_json:
            from agentscan.scan import answerpatch

            answer = answerpatch.patched(scanner, command, question, providers)  # ``None`` on any warning
        elif patchable:
            table = _patched_table(scanner, question, providers, zone)
        report: TokenReport | None = None
        printed: tuple[TokenReport, Printed, dict[str, TableSession]] | None = None
        if answer is None and table is None:
            from agentscan.scan.tokens import token_report

            # The JSON's rows in ``sort``'s order as the library gives them; the table's are put
            # in its own order (sessions by date) first, then sorted (``_table``).
            report = token_report(scanner, ids=ids, providers=providers, since=since, until=until, by=by, tz=zone,
                                  cwd=cwd, sort=sort if as_json else "date")
            if as_json:
                import orjson

                if dated:
                    report = _by_date(report, scanner)
                # Printed as a remembered answer is: rows taken back whole are not made again.
                document = report.to_json(fragments=True)
                if cwd is not None:
                    # A total of one project's sessions says so: without it, it read as the machine's.
                    document = {"by": document.pop("by"), "cwd": cwd, **document}
                focus = focus_json(report)
                if focus:
                    # A subagent's id totals its session: said, as ``show --json``'s ``focus`` says it,
                    # or a script took the session's total for the run's (stderr says so to a person).
                    lead: dict[str, Any] = {name: document.pop(name) for name in ("by", "cwd") if name in document}
                    document = {**lead, "focus": focus, **document}
                from agentscan.toolkit.legiblejson import dumps  # ``--cwd`` holds what was typed

                answer = dumps(document, orjson.OPT_INDENT_2)
            else:
                asked = Asked(ids, providers, since, until, zone, cwd, sort, question.get("shown"))
                table, printed = _table(report, scanner, asked)
    end_progress()
    if answer is not None:
        render.emit_json_body("tokens", answer, scanner.ctx.warnings.listed())
    else:
        assert table is not None
        out, err = table
        recorded.write(out, err)
    if key is not None:
        if patchable and report is not None and not raised and not len(scanner.ctx.warnings):
            if printed is not None:
                from agentscan.cli import tablebasis

                if report.rows:  # an empty table is made whole again: the note saying why goes with it
                    tablebasis.keep(scanner, question, *printed, render.terminal())
            else:
                from agentscan.scan import answerpatch

                answerpatch.keep(scanner, command, question, report, answer=answer)
        answer = answer if answer is not None else recorded.stored_text(out, err)
        answers.remember(scanner, command, question, key, answer, raised,
                         kept=KEPT_DIRECTORIES if cwd is not None else None, kept_under=CWD_SLOT)


def _patched_table(scanner: Scanner, question: dict[str, Any], providers: list[str],
                   zone: tzinfo | None) -> tuple[str, str] | None:
    """The text table of every session, patched (``cli.tablepatch``), as it would be printed;
    ``None``: it must be made whole."""
    from agentscan.cli import tablepatch

    done, out, err = recorded.recording(
        lambda: tablepatch.patched(scanner, question, providers, render.terminal(), zone))
    return (out, err) if done else None


def shown_at_most(by: GroupBy, term: Terminal, limit: int | None, show_all: bool) -> int | None:
    """How many sessions' rows the table by session shows at most, the others summed in one
    line (``tokens_sessions.cut_sessions``): ``--limit N``'s; on a terminal, as many as ``list``
    shows, unless ``--all``; ``None``: every one (a pipe's, as scripts read it, and a grouping's)."""
    if by != "session" or show_all:
        return None
    if limit is not None:
        return limit
    from agentscan.bounds import DEFAULT_LIMIT

    return DEFAULT_LIMIT if term.tty else None


def focus_json(report: TokenReport) -> list[dict[str, str]]:
    """Each id asked for that names a subagent's run (``TokenReport.selection``), as the
    ``tokens`` document's ``focus`` gives it: the text asked for, the session totalled for
    it and the run's id (``[]``: none did).  Only a report of ids asked for has any, and
    such a report is never remembered (``print_tokens``: ``remember`` is for every session)."""
    return [{"query": query.strip(), "session": ref.id, "subagent": run}
            for query, ref, run in report.selection.asked if run is not None]


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


def _table(report: TokenReport, scanner: Scanner, asked: Asked
           ) -> tuple[tuple[str, str], tuple[TokenReport, Printed, dict[str, TableSession]] | None]:
    """The text table and the notes under it, as they would be printed, and (by session)
    what it was made of: the report in the table's order, its rows' lines and the
    sessions' rows (``cli.tablepatch.keep``)."""
    from agentscan.cli.tokens_empty import NAMED
    from agentscan.cli.tokens_text import print_report
    from agentscan.scan.sessionids import known_ids_of

    term = render.terminal()
    shown = [row.key for row in report.rows if row.key in report.sessions]
    session_rows = _sessions_facts(report, scanner)
    if report.by == "session":
        report = _newest_first(report, session_rows)
    # Sorted after the table's own order: rows that tie keep it.
    report = _in_order(report, asked.sort)
    others = None
    if report.by == "session" and asked.shown is not None:
        from agentscan.cli.tokens_sessions import cut_sessions

        # The first sessions in that order, the others summed in one line (``--limit``).
        report, others = cut_sessions(report, asked.shown, session_rows, term, asked.zone)
    short_ids: dict[str, str] = {}
    if term.tty and (shown or report.unrecorded or report.unreadable):
        short_ids = scanner.short_ids() if shown else scanner.short_ids((*report.unrecorded[:NAMED],
                                                                         *report.unreadable[:NAMED]))
    notes = _left_out(scanner, report, asked)

    def print_all() -> Printed:
        for note in notes:
            render.note(note)
        printed = print_report(report, term, rows_of=session_rows.get, short_ids=short_ids, zone=asked.zone,
                               sort=asked.sort, cut=others, agents_of=lambda: _agents_of(scanner, report),
                               known=known_ids_of(scanner))
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


def _left_out(scanner: Scanner, report: TokenReport, asked: Asked) -> list[str]:
    """What a person is told on stderr about the ids asked for and the sessions the options
    left out (``TokenReport.selection``: found as the report was made, not looked up again):
    a subagent's id totals its session, the sessions asked for by id that ``--provider`` or
    ``--cwd`` drops, and, when no row is left, which filter took them."""
    from agentscan.cli.tokens_empty import cwd_drops_note, explain_empty, nearest_usage, provider_drops
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
    if not dropped and not report.rows:
        count = chosen.counted
        if asked.cwd is not None and not count and chosen.by_cwd:
            # As ``list --cwd`` says it (``list_text``).
            notes.append(render.none_under(render.path_text(asked.cwd, render.terminal()), len(chosen.by_cwd)))
            return notes
        # Sessions that recorded no usage at all are named under the table: when they are all
        # there is, no filter is to blame.  None where a root named explicitly
        # (``CLAUDE_CONFIG_DIR``) cannot be read: the error that follows says why.
        blamed = len(report.unrecorded) < count if count else not scanner.unreadable_explicit_roots()
        if blamed:
            why = explain_empty(count, asked_for=bool(asked.ids), providers=providers, since=asked.since,
                                until=asked.until, zone=asked.zone)
            if why is not None and count and (asked.since is not None or asked.until is not None):
                # A window no call fell in ("since 7d" on a home idle for months): when the
                # sessions were active, and the option that takes that in.
                why += nearest_usage(_last_active(scanner, report), since=asked.since, until=asked.until,
                                     zone=asked.zone)
            notes.extend([why] if why is not None else [])
    return notes


def _last_active(scanner: Scanner, report: TokenReport) -> list[datetime]:
    """When each session the report counted was last active (its DATE column's time), those
    that recorded usage at all (``report.unrecorded``: current Cursor builds' record none).
    From their facts (``scan.tablefacts``: kept in the index, or a few bytes of their
    files), as the default table reads them: their calls are not read again."""
    from agentscan.scan import tablefacts

    unrecorded = set(report.unrecorded)
    refs = [ref for ref in {ref.id: ref for ref in report.selection.covered}.values() if ref.id not in unrecorded]
    facts = tablefacts.gather(scanner, refs)
    # A naive time is local (``astimezone`` takes it so): compared with the window's bounds.
    return [fact.updated_at.astimezone() for fact in facts.values() if fact.updated_at is not None]


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


def _by_date(report: TokenReport, scanner: Scanner) -> TokenReport:
    """``report``'s sessions in the table's order (``_newest_first``), for ``--json --sort date``:
    each one's DATE read as the table reads it (``_sessions_facts``)."""
    return _newest_first(report, _sessions_facts(report, scanner))


def _sessions_facts(report: TokenReport, scanner: Scanner) -> dict[str, TableSession]:
    """The date, project and title of each of ``report``'s sessions, read quietly on every
    core: the provider's facts (``scan.tablefacts``: kept in the index), else the session's row.
    In a window, a session's date is its last call's in it (``TokenReport.last_calls``): the
    one it updated last may lie past ``--until``, a date the window leaves out."""
    from agentscan.cli.tokens_sessions import in_window
    from agentscan.scan import tablefacts

    shown = [report.sessions[row.key] for row in report.rows if row.key in report.sessions]
    progress = scanner.ctx.progress
    progress.finish()  # the sums are read: reading the facts is a phase of its own
    progress.expect(len(shown))
    found = tablefacts.gather(scanner, shown, told=True)
    return in_window(found, report.last_calls) if report.last_calls else found


def _newest_first(report: TokenReport, session_rows: dict[str, TableSession]) -> TokenReport:
    """The table's sessions by their DATE (what each recorded last), newest first: the
    report's order follows file times, only a bound of it (a copied home, the installed
    ``--demo``, has them all alike).  Sessions without a date go last, in their order."""
    from dataclasses import replace

    from agentscan.cli.tokens_sessions import sort_key

    return replace(report, rows=tuple(sorted(report.rows, key=lambda row: sort_key(session_rows.get(row.key)),
                                             reverse=True)))


def _in_order(report: TokenReport, sort: SortKey) -> TokenReport:
    """``report`` with its rows in ``sort``'s order (``scan.tokensort``); ``date``: as it is."""
    if sort == "date":
        return report
    from dataclasses import replace

    from agentscan.scan.tokensort import sorted_rows

    return replace(report, rows=sorted_rows(report.rows, sort))
