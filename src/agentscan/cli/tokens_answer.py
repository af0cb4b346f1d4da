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
from typing import TYPE_CHECKING, Any, Sequence

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
    from agentscan.scan.tokensort import SortKey


def print_tokens(scanner: Scanner, *, ids: Sequence[str] = (), providers: list[str], since: datetime | None,
                 until: datetime | None, by: GroupBy, zone: tzinfo | None, as_json: bool, remember: bool,
                 cwd: str | None = None, sort: SortKey = "date", dated: bool = False, limit: int | None = None,
                 show_all: bool = False, breakdown: bool = False, reverse: bool = False) -> None:
    """Print the report (``--json`` or the table) of ``ids`` (default: every session); ``remember``:
    it may come from, and go to, the index (only for every session: ``ids`` are not in its key).
    ``cwd``: an absolute directory, only the sessions in it or below it (``--cwd``); ``sort``:
    the rows' order (``--sort``; ``date``: the report's own); ``dated``: ``--sort date`` was
    given, and ``--json``'s sessions come by their DATE, newest first, as the table's do;
    ``limit``, ``show_all``: the table by session's ``--limit N`` and ``--all`` (``shown_at_most``);
    ``breakdown``: each row's models too (``--breakdown``); ``reverse``: the rows in the
    opposite order (``--reverse``: ``--by day``'s newest day first), in the table and the JSON."""
    question: dict[str, Any] = {"by": by, "providers": sorted(providers), "tz": answers.zone_identity(zone)}
    if breakdown:
        # Another answer, in a slot of its own (never printed for the plain report's question,
        # nor pushing its answer out), and the plain report's question as it ever was.
        question["breakdown"] = True
        by_slot = f"{by}:models"
    else:
        by_slot = by
    # ``--json --sort date`` by session: its sessions in the table's order, by the date each
    # recorded last (``_by_date``), which reads each one's facts.  A plain ``--json`` keeps the
    # report's own order (newest file first): a cold one reads no facts (docs/performance.md).
    # ``--json --limit N``: the first N of the table's rows, in its order too.
    dated = (dated or limit is not None) and as_json and by == "session" and sort == "date"
    # Another order is another answer, kept in a slot of its own: never printed for the
    # default order's question (nor the default's for it), and ``tokens --sort cost`` does not
    # push out the plain ``tokens``' answer.  The default's question is as it ever was.
    ordered = f":{sort}" if sort != "date" or dated else ""
    if reverse:
        # (a slot of its own too: the default order's answer is never printed for it)
        ordered += ":reversed"
        question["reverse"] = True
    if sort != "date" or dated or reverse:
        question["sort"] = sort
        question["slot"] = f"{by_slot}{ordered}"
    if cwd is not None:
        question["cwd"] = cwd
        # Each directory's answer kept apart (``tokens --cwd .`` in one project, then another's).
        question["slot"] = f"{answers.slot_of(cwd, CWD_SLOT)}:{by_slot}{ordered}"
    if breakdown and "slot" not in question:
        question["slot"] = by_slot
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
            question["slot"] = f"{question.get('slot', by_slot)}:cut"
    elif limit is not None and by == "session":
        # ``--json --limit N``: the page of the first N rows, as ``list --json --limit N``
        # gives one (``more`` says whether rows were left out), kept apart from the whole one.
        question["shown"] = limit
        question["slot"] = f"{question.get('slot', by_slot)}:cut"
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
    patchable = (remember and by == "session" and cwd is None and sort == "date" and not dated and not breakdown
                 and not reverse and not (as_json and limit is not None))
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
        # Grouped by period, model or agent: patched from the last whole report (``scan.grouppatch``).
        regroupable = (remember and by != "session" and not ids and cwd is None and since is None and until is None
                       and not breakdown)
        if answer is None and table is None:
            from agentscan.scan.tokens import GROUPED_USAGE, token_report

            if regroupable:
                from agentscan.scan import grouppatch

                report = grouppatch.patched_report(scanner, command, question, providers, by, zone,
                                                   sort if as_json else "date")
                regroupable = report is None  # a whole report, below, keeps a basis: its usage is asked for
                if regroupable:
                    scanner.ctx.memo[GROUPED_USAGE] = None
            # The JSON's rows in ``sort``'s order as the library gives them; the table's are put
            # in its own order (sessions by date) first, then sorted (``tokens_table.table``).
            if report is None:
                report = token_report(scanner, ids=ids, providers=providers, since=since, until=until, by=by, tz=zone,
                                      cwd=cwd, sort=sort if as_json else "date", breakdown=breakdown)
            if as_json:
                import orjson

                if dated:
                    report = _by_date(report, scanner)
                if reverse:
                    from dataclasses import replace

                    report = replace(report, rows=report.rows[::-1])
                # Printed as a remembered answer is: rows taken back whole are not made again.
                document = report.to_json(fragments=True)
                if limit is not None and by == "session":
                    # (``total`` and the costs stay every row's, as the table's TOTAL line does)
                    rows = document.pop("rows")
                    document = {"by": document.pop("by"), "rows": rows[:limit], "more": len(rows) > limit, **document}
                if cwd is not None:
                    # A total of one project's sessions says so: without it, it read as the machine's.
                    document = {"by": document.pop("by"), "cwd": cwd, **document}
                if since is not None or until is not None or by in ("day", "week", "month"):
                    # A kept monthly report (``--since 2026-11 --until 2026-11 --json > nov.json``)
                    # said neither its period nor the zone its days and months were cut in.
                    lead: dict[str, Any] = {name: document.pop(name) for name in ("by", "cwd") if name in document}
                    document = {**lead, "window": window_json(since, until, zone), **document}
                focus = focus_json(report)
                if focus:
                    # A subagent's id totals its session: said, as ``show --json``'s ``focus`` says it,
                    # or a script took the session's total for the run's (stderr says so to a person).
                    first: dict[str, Any] = {name: document.pop(name) for name in ("by", "cwd", "window") if name in document}
                    document = {**first, "focus": focus, **document}
                from agentscan.toolkit.legiblejson import dumps  # ``--cwd`` holds what was typed

                answer = dumps(document, orjson.OPT_INDENT_2)
            else:
                from agentscan.cli.tokens_table import Asked, table as made_table

                asked = Asked(ids, providers, since, until, zone, cwd, sort, question.get("shown"), reverse)
                table, printed = made_table(report, scanner, asked)
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
        elif regroupable and report is not None and not raised and not len(scanner.ctx.warnings):
            from agentscan.scan import groupbasis

            groupbasis.keep(scanner, command, question, report, zone)
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


def window_json(since: datetime | None, until: datetime | None, zone: tzinfo | None) -> dict[str, str | None]:
    """``--json``'s ``window``: its bounds as instants (ISO 8601, UTC; ``until`` excluded,
    ``None`` when open) and the zone they were cut in (``zone_name``)."""
    from agentscan.farbounds import Far
    from agentscan.localzone import zone_name
    from agentscan.timeutil import to_iso

    def instant(moment: datetime | None) -> str | None:
        if isinstance(moment, Far):  # beyond the years a record holds: the instant asked, not the clamp
            return moment.asked
        # As every other time in the JSON (``…T04:00:00.000Z``): ``isoformat`` wrote a whole
        # second bare and a ``--since 3d`` to the microsecond, which a reader's parse of one
        # fixed form (or a string comparison with a row's time) tripped on.
        return to_iso(moment)

    return {"since": instant(since), "until": instant(until), "tz": zone_name(zone)}


def focus_json(report: TokenReport) -> list[dict[str, str]]:
    """Each id asked for that names a subagent's run (``TokenReport.selection``), as the
    ``tokens`` document's ``focus`` gives it: the text asked for, the session totalled for
    it and the run's id (``[]``: none did).  Only a report of ids asked for has any, and
    such a report is never remembered (``print_tokens``: ``remember`` is for every session)."""
    return [{"query": query.strip(), "session": ref.id, "subagent": run}
            for query, ref, run in report.selection.asked if run is not None]


def _by_date(report: TokenReport, scanner: Scanner) -> TokenReport:
    """``report``'s sessions in the table's order (``tokens_table.newest_first``), for ``--json --sort date``:
    each one's DATE read as the table reads it (``tokens_table.sessions_facts``)."""
    from agentscan.cli.tokens_table import newest_first, sessions_facts

    return newest_first(report, sessions_facts(report, scanner))
