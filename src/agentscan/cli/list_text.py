"""Human-readable ``list`` output: the table, the "25 of 2,031" hint, and why nothing matched."""

from __future__ import annotations

from datetime import date, datetime, timedelta, tzinfo
from typing import Callable, Sequence

from agentscan.cli import render
from agentscan.cli.table import cells_of, left_out_note, left_out_text, print_table
from agentscan.cli.tablefit import Layout, hidden, layout, overflows
from agentscan.cli.tableparts import TITLE_WANTS, Column, Row
from agentscan.cli.tablepaths import named_floors
from agentscan.cli.tablewidths import natural
from agentscan.cli.term import Terminal, clean, clean_path, title_text
from agentscan.fsview import legible
from agentscan.scan.listfilter import ListFilter
from agentscan.scan.listing import SessionPage
from agentscan.model import SessionRow
from agentscan.timeutil import Shown, shown_time, zone_names
from agentscan.toolkit.words import quoted

COLUMNS = (
    Column("ID", style="yellow"),
    # On a narrow terminal columns go rather than an id, a time or a number being cut: MODEL
    # first (``show`` has it), then CWD (a project's name whole, ``…/billing-service``, or
    # not at all: ``tablepaths.named_floors``), COST (six columns: at 80 it stays beside the
    # tokens it prices), TITLE (a dozen characters still tell sessions apart), UPDATED (the
    # rows are in its order), and TOKENS last (under 23 columns the ids alone are left).
    # The title is what people read (as in ``gh issue list``): it keeps 25 characters while
    # MODEL, CWD or COST is left to go; then UPDATED is shortened (``compact_time``: five
    # columns back), and only then is the title cut below 25 (``print_list``).
    Column("UPDATED", drop=2),
    Column("TOKENS", right=True, drop=1),
    Column("COST", right=True, drop=4),
    Column("MODEL", flex=True, min_width=10, drop=6),
    Column("CWD", flex=True, min_width=10, keep_end=True, drop=5),
    Column("TITLE", flex=True, min_width=12, weight=2, drop=3, wants=TITLE_WANTS),
)

#: UPDATED's place among ``COLUMNS``
_UPDATED = next(index for index, column in enumerate(COLUMNS) if column.header == "UPDATED")
#: TOKENS' place among ``COLUMNS``
_TOKENS = next(index for index, column in enumerate(COLUMNS) if column.header == "TOKENS")


def with_zone(columns: Sequence[Column], times: list[Shown]) -> list[Column]:
    """``columns`` with UPDATED's heading naming the zone of ``times`` once (``UPDATED (CET)``),
    when one is not UTC's time too (``timeutil.zone_names``): ``list``'s and ``trace --list``'s."""
    named = zone_names(times)
    return [column._replace(header=f"UPDATED ({named})") if named and column.header == "UPDATED" else column
            for column in columns]


def print_list(sessions: list[SessionRow], short_ids: dict[str, str], term: Terminal, zone: tzinfo | None = None) -> None:
    """``zone``: ``--tz``, the zone of UPDATED (``None``: the local zone).  Its heading names
    the zone once (``UPDATED (CET)``, ``UPDATED (CEST/CET)`` across a clock change), not each
    row, and only when a time is not UTC's too: ``git log``'s offset, said once a table.

    On a terminal too narrow for the whole UPDATED and a title of 25 characters (once
    MODEL, CWD and COST are gone), UPDATED is shortened (``compact_time``) when that
    widens the title or keeps a column."""
    times = [shown_time(row.updated_at, zone) for row in sessions]
    columns = with_zone(COLUMNS, times)
    rows: list[Row] = []
    for row, updated in zip(sessions, times):
        # A pipe gets whole ids (a prefix could become ambiguous later); a person the short one.
        # An id from a file's name: an escape sequence in it shown as U+FFFD, as in the other columns.
        shown = clean_path(short_ids.get(row.id, row.id) if term.tty else row.id)
        if term.tty and row.running:
            shown += "*"
        rows.append(Row([
            shown,
            updated.text,
            render.human_tokens(row.tokens, term),
            render.human_usd(row.cost, row.cost_priced, grouped=term.tty),
            render.model_text(clean(row.model), term),
            render.path_text(clean_path(row.cwd), term),
            # Archived (a Codex thread, a Cursor chat): said before the title, as a word, where a cut never hides it;
            # not known (``None``: a Cursor chat read without its state DB) as ``(archived?)``, not as a plain row.
            _ARCHIVED_MARK[row.archived] + (title_text(row.title) or "-"),
        ]))
    rows, floored, planned = _timed(columns, rows, sessions, term, zone)
    rounded = False
    if term.tty and (hidden(floored, planned) or overflows(planned, term)):
        # Whole numbers (``75,433``), as ``tokens`` prints them, unless rounding them
        # (``75.4k``) keeps a column the whole ones would leave out (``tokens``' rule): the
        # same session read 75.4k here and 75,433 there.
        short = [row._replace(cells=[*row.cells[:_TOKENS], _rounded(session), *row.cells[_TOKENS + 1:]])
                 for row, session in zip(rows, sessions)]
        short, short_floored, short_planned = _timed(columns, short, sessions, term, zone)
        if ((overflows(short_planned, term), len(hidden(short_floored, short_planned)))
                < (overflows(planned, term), len(hidden(floored, planned)))):
            rows, floored, planned, rounded = short, short_floored, short_planned, True
    left_out = print_table(floored, rows, term=term, planned=planned)
    if rounded:  # said as ``tokens`` says it (``tokens_notes.print_notes``)
        said = (f"{left_out_text(left_out, columns, term.width)}; numbers rounded" if left_out
                else f"numbers rounded to fit {term.width} columns")
        render.note(f"{said}; widen the terminal or use --json", tty_only=True)
    else:
        left_out_note(left_out, columns, term)
    if any(row.archived is None for row in sessions):
        # What the mark means, once, as ``show``'s ``? = …`` line does (the warning names the DB and why).
        render.note(f"{_ARCHIVED_MARK[None].strip()} = whether the chat is archived is not known: "
                    "Cursor's state DB could not be read this run")


#: TITLE's prefix for a row's ``archived``
_ARCHIVED_MARK = {True: "(archived) ", False: "", None: "(archived?) "}


def _rounded(session: SessionRow) -> str:
    """A session's TOKENS rounded (``75.4k``), for a terminal too narrow for whole numbers."""
    return "-" if session.tokens is None else render.compact_number(session.tokens.total)


def _timed(columns: Sequence[Column], rows: list[Row], sessions: list[SessionRow], term: Terminal,
           zone: tzinfo | None) -> tuple[list[Row], list[Column], Layout]:
    """``rows`` laid out on ``term``, their UPDATED shortened (``compact_time``) when the
    whole one would cut the title below 25 characters or leave a column out, and the short
    one widens the title or keeps a column."""
    return timed_rows(columns, rows, [session.updated_at for session in sessions], term, zone, laid_out)


def timed_rows(columns: Sequence[Column], rows: list[Row], updated: Sequence[datetime | None], term: Terminal,
               zone: tzinfo | None, laid: Callable[[Sequence[Column], list[Row], Terminal], tuple[list[Column], Layout]]
               ) -> tuple[list[Row], list[Column], Layout]:
    """``rows`` (UPDATED their second cell, of the times ``updated``) as ``laid`` lays them out,
    UPDATED shortened (``compact_time``) when the whole one cramps the title and the short one
    widens it or keeps a column: ``list``'s rule, and ``trace --list``'s."""
    floored, planned = laid(columns, rows, term)
    if term.tty and _cramped(floored, rows, planned):
        today = render.today(zone)
        short = [row._replace(cells=[*row.cells[:_UPDATED], compact_time(when, zone, today),
                                     *row.cells[_UPDATED + 1:]]) for row, when in zip(rows, updated)]
        short_floored, short_planned = laid(columns, short, term)
        if (len(short_planned[0]) > len(planned[0])
                or _title_width(short_floored, short_planned) > _title_width(floored, planned)):
            return short, short_floored, short_planned
    return rows, floored, planned


#: how far back UPDATED's short form (``compact_time``) gives a time's day and minute; an
#: older time is given by its date alone, as ``ls -l`` gives a file's
RECENT = timedelta(days=182)


def compact_time(value: datetime | None, zone: tzinfo | None, today: date) -> str:
    """UPDATED on a terminal too narrow for both it and a title of 25 characters: ``11-28 09:02``
    (five columns fewer than ``2026-11-28 09:02``) for a time in the ``RECENT`` days up to
    ``today`` (a day after it too: a clock a little ahead), the year a person knows; an
    older one (or one further ahead) ``2025-03-14``, its year what tells it apart.  Both
    in ``zone`` (``None``: local), as the whole form is."""
    if value is None:
        return "-"
    local = value.astimezone(zone)
    if today - RECENT <= local.date() <= today + timedelta(days=1):
        return local.strftime("%m-%d %H:%M")
    return local.strftime("%Y-%m-%d")


def laid_out(columns: Sequence[Column], rows: list[Row], term: Terminal) -> tuple[list[Column], Layout]:
    """``rows``' columns, CWD no narrower than its names (``tablepaths.named_floors``), and
    their layout on ``term``."""
    floored = named_floors(columns, cells_of(rows))
    return floored, layout(floored, rows, term)


def _title_width(columns: Sequence[Column], planned: Layout) -> int:
    """How wide ``planned`` keeps TITLE (0: left out)."""
    kept, widths = planned
    return next((width for index, width in zip(kept, widths) if columns[index].wants), 0)


def _cramped(columns: Sequence[Column], rows: list[Row], planned: Layout) -> bool:
    """Whether ``planned`` leaves TITLE out or cuts it below what it ``wants`` (or below its
    own width, when that is less): a shorter UPDATED would give it room."""
    title = next(index for index, column in enumerate(columns) if column.wants)
    wanted = min(columns[title].wants, natural(columns, rows)[title])
    return _title_width(columns, planned) < wanted


def more_hint(page: SessionPage, filters: ListFilter, *, reverse: bool = False) -> str | None:
    """"25 of 2,031 sessions; …" when more sessions match than were shown; ``reverse``
    (``--reverse``): which they are, the newest, printed oldest first."""
    if not page.more:
        return None
    which = " (the newest, oldest first)" if reverse else ""
    if not filters.active_stages:
        return f"{len(page.rows):,} of {page.discovered:,} sessions{which}; --limit N or --all for more"
    return f"{len(page.rows):,} shown{which}, more match; --limit N or --all for more"


def explain_empty(page: SessionPage, filters: ListFilter, *, others: int, cwd_text: str | None,
                  since_text: str | None, running_supported: bool, zone: tzinfo | None = None,
                  until_text: str | None = None) -> str:
    """Why ``list`` printed nothing, naming the filter that left no session; its times in
    ``zone`` (``--tz``; ``None``: local)."""
    if page.discovered == 0:
        if page.blank:
            files = "1 session file holds" if page.blank == 1 else f"{page.blank:,} session files hold"
            return (f"no session recorded anything: {files} no conversation (empty, unreadable lines, "
                    "or only snapshots and other sessions' summaries)")
        from agentscan.invocation import doctor_command
        from agentscan.invocation import program_word

        if filters.providers and others:
            from agentscan.providers import label_of

            names = ", ".join(label_of(name) for name in filters.providers)
            return (f"no {names} sessions found ({render.plural(others, 'session')} from other providers; "
                    f"`{doctor_command()}` shows where agentscan looked for {names})")
        return f"no sessions found; `{doctor_command()}` shows where agentscan looked (or try `{program_word()} --demo list`)"
    stage = page.emptied_by
    count = page.reached.get(stage, page.discovered) if stage else page.discovered
    of = f"of {render.plural(count, 'session')}" if stage else ""
    if stage == "running":
        # The sessions whose ``running`` is null are left out with a line saying why, for each
        # provider (``Liveness.unknown_counts``: ``--json``'s ``running_unknown``); here, how many.
        if not running_supported:
            return "--running and --pid could check no session here (`running` is null)"
        # Sessions whose ``running`` is null were not seen to run: not taken for idle (a Claude
        # Code older than its registry, ``~/.claude/sessions/``, or a Gemini chat). This line
        # says only what was told; the lines after it say, per provider, how many could not be
        # and why (``--json``'s ``running_unknown``): said here too, they read twice.
        if page.untold >= count > 0:
            if filters.pid is not None:
                return f"no session found that process {filters.pid} writes or runs"
            return "no running sessions found"
        if page.untold:
            told = count - page.untold
            if filters.pid is not None:
                if told == 1:
                    return f"process {filters.pid} does not write or run the only session it could tell"
                return f"process {filters.pid} writes or runs none of the {told:,} sessions it could tell"
            if told == 1:
                return "no running sessions: no live process writes or runs the only session it could tell"
            return f"no running sessions: no live process writes or runs any of the {told:,} sessions it could tell"
        if filters.pid is not None:
            return f"process {filters.pid} writes or runs no session (none {of})"
        # (A process that only reads a transcript runs nothing; Claude Code's registry names its own.)
        return f"no running sessions: no live process writes or runs any {of}"
    if stage == "since":
        newest = f"; the newest was updated {shown_time(page.newest, zone).named}" if page.newest else ""
        if until_text is not None:  # (said as the range was asked, as ``tokens`` says it)
            return f"no sessions updated between {since_text} and {until_text} ({count:,} before{newest})"
        return f"no sessions updated since {since_text} ({count:,} older{newest})"
    if stage == "until":
        if since_text is not None:
            # Both bounds: the sessions ``--since`` left out are not "later", and all of them
            # (not just those past ``--until``) say where the sessions are.
            before = page.reached.get("since", 0) - page.passed.get("since", 0)
            return f"no sessions updated between {since_text} and {until_text} ({before:,} before, {count:,} after)"
        return f"no sessions last updated before {until_text} ({count:,} updated later)"
    if stage == "cwd":
        return render.none_under(cwd_text, count, filters.cwd)
    if stage == "grep":
        return f"no session's title, cwd, model or path contains {quoted(legible(filters.grep or ''))} ({count:,} searched)"
    if stage == "archived":
        # (only Codex threads and Cursor chats are archived: Claude's and Gemini's sessions never are)
        unknown = sum(entry["sessions"] for entry in page.archived_unknown or ())
        if unknown:  # (a Cursor chat listed without its state DB: not known either way, said below)
            known = "none archived" if filters.archived else f"{count - unknown:,} archived"
            which = "archived sessions" if filters.archived else "sessions known not to be archived"
            return f"no {which} ({render.plural(count, 'session')}: {known}, {unknown:,} not known)"
        if filters.archived:
            return f"no archived sessions ({render.plural(count, 'session')}, none archived)"
        from agentscan.invocation import running_command

        return f"every session is archived ({count:,}; `{running_command('list --archived')}` lists them)"
    return "no sessions match"
