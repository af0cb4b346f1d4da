"""A session as ``tokens``' table by session shows it beside its sums: its DATE, CWD and
TITLE cells (``session_facts``), the order of its rows, newest first (``sort_key``), and
whether it recorded nothing at all, to be named under the table instead of a row of dashes
(``recorded_nothing``).  A whole table (``tokens_text``) and a patched one
(``tablepatch``, ``tablebasis``) tell them alike.  And a cut table's line of the sessions it
sums, as worded (``cut_sessions``: the library sums them, ``scan.tokenreport.first_rows``)."""

from __future__ import annotations

from datetime import datetime, timezone, tzinfo
from typing import TYPE_CHECKING, Callable, Collection, Iterable, Mapping, NamedTuple, Sequence

from agentscan.cli import render
from agentscan.cli.term import Terminal, clean_path, title_text
from agentscan.model import SessionRow

if TYPE_CHECKING:
    from typing import TypeAlias

    from agentscan.model import SessionRef, TableFacts
    from agentscan.scan.tokenreport import TokenReport, TokenRow
    from agentscan.scan.tokensort import SortKey
    from agentscan.warningsink import SinkWarning

    #: what the table knows of a session beside its sums: its row, or its facts alone
    #: (``scan.tablefacts``)
    TableSession: TypeAlias = "SessionRow | TableFacts"


#: the sort key of a session with no date: last (``sort_key``)
NO_DATE = float("-inf")


def updated_of(session: TableSession) -> float | None:
    """When a session was last active (a patched table's basis keeps it: JSON has no infinity)."""
    return session.updated_at.timestamp() if session.updated_at is not None else None


def sort_key(session: TableSession | None) -> float:
    """What the table sorts a session by, newest first (``tokens_table.newest_first``,
    ``cli.tablepatch``): sessions without a date go last."""
    when = updated_of(session) if session is not None else None
    return NO_DATE if when is None else when


def recorded_nothing(token_row: TokenRow, facts: list[str], session: TableSession | None) -> bool:
    """A session with no usage, no project and no title: an empty transcript, one of bad
    lines or of another session's summaries (the stubs Claude Code leaves), which ``list``
    leaves out.  Its date is its file's (new: it topped the table) and its row all dashes,
    so the table names it in one line under it; ``--json`` keeps its row (``null``).
    A session read as a row is judged as ``list`` judges it: a Cursor session of tool
    calls alone has no project or title, yet ``list`` and ``show`` tell its calls."""
    return token_row.tokens is None and not token_row.subagents and says_nothing(facts, session)


def files_empty(ref: SessionRef | None) -> bool:
    """Whether every file of the session ``ref`` is empty (an aborted start: ``list`` leaves it
    out, and a warning under the table names each such file).  Asked of the sessions that
    recorded nothing alone: a few ``stat`` calls."""
    from agentscan.scan.leftout import every_file_empty
    from agentscan.toolkit.fsutil import stat_now

    return ref is not None and every_file_empty(ref.read_files, stat_now)


def says_nothing(facts: list[str], session: TableSession | None) -> bool:
    """``session`` has no project and no title, nor any record ``list`` shows (such a session's
    facts are its row: ``scan.tablefacts.gather``)."""
    return facts[1:] == ["-", "-"] and (not isinstance(session, SessionRow) or session.recorded_nothing)


def session_facts(session: TableSession | None, term: Terminal, zone: tzinfo | None = None) -> list[str]:
    """A session's DATE, CWD and TITLE cells; the date in ``zone`` (``--tz``; ``None``:
    the local zone), the zone ``--by day`` counts its days in."""
    if session is None:
        return ["-", "-", "-"]
    # (archived) as ``list``'s TITLE has it (``list_text``): Codex's facts know it as its row does
    return [date_in(session.updated_at, zone), render.path_text(clean_path(session.cwd), term),
            ("(archived) " if session.archived else "") + (title_text(session.title) or "-")]


def in_window(sessions: Mapping[str, TableSession], last_calls: Mapping[str, float]) -> dict[str, TableSession]:
    """``sessions``' facts with, for a date, each one's last call in a window (``--since``,
    ``--until``: ``TokenReport.last_calls``), where its last update may lie past the window."""
    return {key: _dated(session, last_calls.get(key)) for key, session in sessions.items()}


def _dated(session: TableSession, last_call: float | None) -> TableSession:
    if last_call is None:
        return session
    at = datetime.fromtimestamp(last_call, timezone.utc)
    if isinstance(session, tuple):  # ``TableFacts``
        return session._replace(updated_at=at)
    from dataclasses import replace

    return replace(session, updated_at=at)


def said_unrecorded(report: TokenReport, skipped: Collection[str] = ()) -> list[str]:
    """The sessions that recorded no usage named under a table (``TokenReport.unrecorded``),
    but those of empty files: an aborted start, named by its warning alone, as ``list``
    leaves it out (``tokens_folds.EMPTY_FILES``); and those ``skipped`` (``skipped_sessions``)."""
    if not report.unrecorded:
        return []
    refs = report.selection.by_id(report.unrecorded)
    return [key for key in report.unrecorded if key not in skipped and not files_empty(refs.get(key))]


def skipped_sessions(report: TokenReport, warnings: Callable[[], Iterable[SinkWarning]]) -> frozenset[str]:
    """The sessions of no usage a bug in agentscan cost (``context.internal_error``), named by
    their warning alone: "recorded no usage" they did not, as its "agentscan could not read this
    session" says.  ``warnings``: the run's, as listed (asked only when a session has no usage)."""
    ids = [row.key for row in report.rows if row.tokens is None and row.key in report.sessions] \
        if report.by == "session" else list(report.unrecorded)
    if not ids:
        return frozenset()
    from agentscan.context import skipped_where
    from agentscan.warningwords import SKIPPED_SESSION

    said = {warning.path for warning in warnings() if warning.message.startswith(SKIPPED_SESSION)}
    if not said:
        return frozenset()
    refs = report.selection.by_id(ids)
    return frozenset(key for key, ref in refs.items() if skipped_where(ref) in said)


def date_in(value: datetime | None, zone: tzinfo | None) -> str:
    """``value``'s date in ``zone``, ``2026-11-29``; ``None``: the local zone (``render.short_date``)."""
    if value is None or zone is None:
        return render.short_date(value)
    # A naive time is local already, as ``astimezone`` takes it.
    return value.astimezone(zone).strftime("%Y-%m-%d")


class Cut(NamedTuple):
    """A table by session cut to its first ``shown`` sessions' rows (``--limit N``; on a
    terminal 25, unless ``--all``), the ``summed`` others in one line (``row``: their sums,
    as a row's are shown, parts apart not: ``scan.tokenreport.first_rows``); ``dates``: the
    DATEs of the newest and the oldest of every session with a row, and ``-`` when one has
    none, for the note under it (``tokens_notes.fewer_sessions``)."""

    row: TokenRow
    shown: int
    summed: int
    dates: Sequence[str]


def cut_sessions(report: TokenReport, shown: int, sessions: Mapping[str, TableSession], term: Terminal,
                 zone: tzinfo | None = None) -> tuple[TokenReport, Cut | None]:
    """``report`` (by session, in the table's order) with the rows of its first ``shown``
    sessions that have one, and the others' sums (``None``: none summed: no more than
    ``shown`` have a row, or one more, whose row takes the line a sum would); the folded rows
    stay, named under the table as ever (``scan.tokenreport.first_rows``).  ``sessions``:
    each session's row or facts (their dates); ``term``: the line's key, ``+1,475 more`` on a
    terminal (grouped as the table's numbers are), ``others`` in a pipe (``OTHERS``: one word,
    as ``awk`` reads a line's fields; ``+6 more`` was two, and moved INPUT to CACHE READ's
    field; skipped by name as TOTAL is)."""
    from agentscan.scan.tokenreport import OTHERS, first_rows, spent

    cut = first_rows(report.rows, shown)
    if cut.rest is None:
        return report, None
    from dataclasses import replace

    key = f"+{render.full_numbers(term)(len(cut.summed))} more" if term.tty else OTHERS
    ends = [sessions.get(row.key) for row in (*(row for row in cut.rows if spent(row)), *cut.summed)]
    dated = [session for session in ends if session is not None and session.updated_at is not None]
    dates = [date_in(session.updated_at, zone) for session in (max(dated, key=sort_key), min(dated, key=sort_key))
             ] if dated else []
    dates += ["-"] if len(dated) < len(ends) else []
    # Its agents, the summed sessions' (by their ids): its REASONING is ``-`` where none of them
    # records it apart, as their rows' is (it read 0 under Claude's ``-`` rows).
    agents = tuple(sorted({row.key.partition(":")[0] for row in cut.summed}))
    return replace(report, rows=cut.rows), Cut(replace(cut.rest, key=key, providers=agents), shown, len(cut.summed),
                                               dates)


def summary_title(sort: SortKey, reverse: bool = False) -> str:
    """The TITLE cell of a cut table's line of the others' sums (``Cut``): ``older`` when the
    rows are newest first, ``newer`` when oldest first (``--reverse``), ``other`` in another order."""
    which = ("newer" if reverse else "older") if sort == "date" else "other"
    return f"{which} sessions, summed (--all lists each)"
