"""The columns of ``tokens``' text table: their order, and which go first on a narrow terminal."""

from __future__ import annotations

import re
from datetime import date, tzinfo
from typing import Collection, Iterable

from agentscan.cli.tableparts import Column

#: (header, ``TokenUsage`` attribute, drop order on a narrow terminal: higher goes first; 0 never).
#: REASONING goes first, a part of OUTPUT never added again (then a grouped table's SUBAGENTS,
#: ``SUBAGENTS``); then, by session, DATE and CWD (``columns_of``); then the cache's parts, which
#: ccusage's narrow table leaves out first too (it keeps Input, Output and Cost): CACHE WRITE
#: (Claude's alone), then CACHE READ; a session's TITLE outlasts them (an id alone told no one
#: which session it was: at 80 and 100 columns the table was ids and numbers); INPUT and OUTPUT,
#: the figures a user reads a table of tokens for, last (at 60 columns they went before CACHE
#: READ, which the TOTAL beside it nearly always is most of).  TOTAL stays, and COST goes only
#: when nothing else is left.
NUMBER_COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("INPUT", "input", 2),
    ("CACHE READ", "cache_read", 6),
    ("CACHE WRITE", "cache_write", 7),
    ("OUTPUT", "output", 3),
    ("REASONING", "reasoning", 10),
    ("TOTAL", "total", 0),
)
NOT_RECORDED = "not recorded"
#: where REASONING is among the number cells (``tokens_rows.number_cells``)
REASONING_AT = [header for header, _, _ in NUMBER_COLUMNS].index("REASONING")
#: where TOTAL is (a lower bound's ``≥``: ``tokens_rows.number_cells``)
TOTAL_AT = [header for header, _, _ in NUMBER_COLUMNS].index("TOTAL")


def reasoning_unreported(providers: Iterable[str]) -> bool:
    """Whether ``providers`` (one at least) all never record reasoning apart
    (``providers.REASONING_NOT_REPORTED``): their REASONING cell is ``-`` in the text table,
    not ``0``, which read as "no thinking" (``--json`` keeps 0)."""
    from agentscan.providers import REASONING_NOT_REPORTED

    seen = False
    for provider in providers:
        if provider not in REASONING_NOT_REPORTED:
            return False
        seen = True
    return seen


def total_agents(rows: Iterable[tuple[Collection[str] | None, bool]], table: Collection[str]) -> set[str]:
    """The agents TOTAL's REASONING goes by (``reasoning_unreported``, ``reasoning_partial``):
    those of the rows it adds up that counted a call; the table's own (``table``) when none
    did, or one that did does not say whose calls it counted (a cut table's line of the
    sessions left out, summed).  ``rows``: each row's agents (``None``: not said) and whether
    it counted a call: a whole table's rows with tokens (``tokens_text``), a patched table's
    sessions it does not fold (``tablepatch``).  A window's Claude and Cursor days alone
    total ``-`` in a pipe too, though Codex sessions outside the window are covered."""
    agents: set[str] = set()
    for said, counted in rows:
        if not counted:
            continue  # (no call of its agent in the table: a session idle in the window)
        if not said:
            return set(table)
        agents.update(said)
    return agents or set(table)


def reasoning_partial(providers: Iterable[str]) -> bool:
    """Whether ``providers`` mix agents that record reasoning apart with agents that never do
    (Claude Code, Cursor: their thinking is inside OUTPUT): a figure for them is a lower bound."""
    from agentscan.providers import REASONING_NOT_REPORTED

    kinds = {provider in REASONING_NOT_REPORTED for provider in providers}
    return len(kinds) == 2


#: a grouped table's column of its rows' subagent runs' tokens, after TOTAL (``tokens_runs.subagents_cell``):
#: the part of TOTAL delegated, shown apart on the row's one line (the own part is TOTAL less it;
#: by session each run has a line of its own instead).  A part shown again, as REASONING is: left
#: out to fit just after it, before any of TOTAL's parts.
SUBAGENTS = ("SUBAGENTS", 9)


def session_columns() -> list[Column]:
    """The columns of the table by session."""
    return columns_of("session")


def columns_of(by: str) -> list[Column]:
    """The columns of the table grouped ``by``, in their order."""
    # A model's name is a label, no id: cut (``gemini-3-flash-previ…``) once no column is left
    # to go, rather than the TOTAL beside it (``371,6…``); a session's id and a date never are.
    # A working directory is fitted as ``list``'s CWD (``…/weather-app``, ``tablepaths``): the
    # key, never left out, but cut from its start before a figure goes.
    if by in ("model", "agent"):  # a kind of agent is a label as a model's name is
        columns = [Column(by.upper(), label=True, min_width=10)]
    elif by == "cwd":
        columns = [Column("CWD", flex=True, min_width=12, keep_end=True)]
    elif by == "session":
        # ``ID``, as ``list`` and ``trace --list`` head a session's id (``SESSION`` here read as
        # another thing than the ids ``list`` gave): the same id, to give ``show``.
        columns = [Column("ID", style="yellow")]
    else:
        columns = [Column(by.upper())]
    if by == "session":
        columns += [
            Column("DATE", drop=9),
            # Named as in ``list``, and fitted alike: a project's name whole or the column left
            # out (``tablepaths.named_floors``).
            Column("CWD", flex=True, min_width=12, keep_end=True, drop=8),
        ]
    columns += [Column(header, right=True, drop=drop) for header, _, drop in NUMBER_COLUMNS]
    if by != "session":
        columns.append(Column(SUBAGENTS[0], right=True, drop=SUBAGENTS[1]))
    # Rounded to the cent (--json has it exact); left out only when nothing else is left to go.
    columns.append(Column("COST", right=True, drop=1))
    if by == "session":
        # Last, as ``list``'s: a title is as long as its prompt (180 characters in a pipe, a
        # CJK one twice as wide), and before the numbers it pushed them to column 400 and
        # moved awk's fields.  A dozen characters still tell sessions apart (``list``'s
        # title's least width); it keeps 16 while DATE, CWD or a part that goes before it is
        # left to go (``Column.wants``), and goes only before OUTPUT and INPUT (``NUMBER_COLUMNS``).
        columns.append(Column("TITLE", flex=True, min_width=12, weight=2, drop=4, wants=16))
    return columns


#: what a part's column shows in a row that has none of it: a zero, or ``-`` (not reported)
_NOTHING = frozenset({"0", "-"})
#: added to the ``drop`` of a part that is nothing in every row (``zero_first``): above any other's
_ZERO_FIRST = 100


def zero_first(columns: list[Column], total_cells: list[str]) -> list[Column]:
    """``columns`` with each part of TOTAL (and a grouped table's SUBAGENTS) that is ``0`` or
    ``-`` in every row left out first on a narrow terminal, in the fixed order among them
    (``NUMBER_COLUMNS``), before any column that has a figure: a Cursor table at 60 columns
    kept an empty CACHE READ and left INPUT and OUTPUT out.  Told by the TOTAL line's cells
    (``total_cells``, in ``columns``' order): parts are never negative, so a part is nothing
    in TOTAL only when it is nothing in every row (a kept table patched has no other cells)."""
    parts = {header for header, _, drop in NUMBER_COLUMNS if drop} | {SUBAGENTS[0]}
    return marked_zero(columns, {column.header for column, cell in zip(columns, total_cells)
                                 if column.header in parts and cell in _NOTHING})


def marked_zero(columns: list[Column], headers: Collection[str]) -> list[Column]:
    """``columns`` with those of ``headers`` (nothing in every row) going first, in their order."""
    return [column._replace(drop=column.drop + _ZERO_FIRST) if column.header in headers else column
            for column in columns]


def zero_headers(columns: list[Column]) -> frozenset[str]:
    """The headers ``zero_first`` marked: nothing in every row."""
    return frozenset(column.header for column in columns if column.drop >= _ZERO_FIRST)


#: the cells of a ``--by session`` line before its numbers (id, date, cwd); the title is
#: after its cost: ``session_cells`` lays a session's facts out so
SESSION_LEAD = 3


def session_cells(key: str, facts: list[str], numbers: list[str]) -> list[str]:
    """A ``--by session`` line's cells in the columns' order: the id, date and cwd, the
    numbers and cost, then the title (``facts``: date, cwd and title)."""
    date, cwd, title = facts
    return [key, date, cwd, *numbers, title]


#: a ``--by week`` key, an ISO week (``scan.tokens``); ``unknown`` is not one
_WEEK_KEY = re.compile(r"([0-9]{4})-W([0-9]{2})")
_MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def dated_week(key: str) -> str:
    """``--by week``'s key as a terminal shows it, its Monday's month and day beside it:
    ``2026-W36 (Aug 31)``.  The label alone does not say which days it is (ccusage prints a
    week's first date); a month's name, as ``08-31`` read as a range of days.  A pipe keeps
    the label alone, one awk field that ``--since``/``--until`` read back (``tokens_text.print_report``)."""
    week = _WEEK_KEY.fullmatch(key)
    try:
        monday = date.fromisocalendar(int(week[1]), int(week[2]), 1) if week else None
    except ValueError:  # (no such week: never a key ``scan.tokens`` makes)
        monday = None
    # (Named here, not by ``strftime``'s ``%b``: the C library's locale may name it otherwise.)
    return key if monday is None else f"{key} ({_MONTH_NAMES[monday.month - 1]} {monday.day})"


#: a ``--by month`` key (``scan.tokens``)
_MONTH_KEY = re.compile(r"([0-9]{4})-([0-9]{2})")


def period_zone(by: str, keys: Iterable[str], zone: tzinfo | None) -> str | None:
    """The zone ``--by day``, ``week`` or ``month``'s rows (``keys``) are cut in, for its
    heading (``DAY (CET)``), as ``list``'s ``UPDATED (CET)`` names it: each period's zone at
    its start and at its end (``CEST/CET`` for a month of a clock change), ``None`` when
    each is UTC's time too (docs/cli.md: time zones) or the rows are no periods.  ``zone``:
    ``--tz``'s (``None``: the local zone)."""
    from datetime import datetime, timedelta

    from agentscan.timeutil import shown_time, wall_time, zone_names

    if by not in ("day", "week", "month"):
        return None
    times = []
    for key in keys:
        start = _period_start(by, key)
        if start is None:
            continue  # (``unknown``: no period)
        if by == "day":
            end = start + timedelta(days=1)
        elif by == "week":
            end = start + timedelta(days=7)
        else:
            end = (start.replace(day=28) + timedelta(days=4)).replace(day=1)
        for day, before in ((start, timedelta(0)), (end, timedelta(microseconds=1))):
            instant = wall_time(datetime(day.year, day.month, day.day), zone) - before
            times.append(shown_time(instant, zone))
    return zone_names(times) if times else None


def _period_start(by: str, key: str) -> date | None:
    """The first day of a period's key (``2026-11-28``, ``2026-W48``, ``2026-11``)."""
    try:
        if by == "day":
            return date.fromisoformat(key)
        week = _WEEK_KEY.fullmatch(key) if by == "week" else None
        if week:
            return date.fromisocalendar(int(week[1]), int(week[2]), 1)
        month = _MONTH_KEY.fullmatch(key) if by == "month" else None
        return date(int(month[1]), int(month[2]), 1) if month else None
    except ValueError:  # (no such date: never a key ``scan.tokens`` makes)
        return None


def zoned(columns: list[Column], by: str, keys: Iterable[str], zone: tzinfo | None) -> list[Column]:
    """``columns`` with a period's heading naming its zone (``period_zone``): ``DAY (CET)``."""
    named = period_zone(by, keys, zone)
    return [columns[0]._replace(header=f"{columns[0].header} ({named})"), *columns[1:]] if named else columns


#: the columns worth rounding every number to keep: a total's parts, TOTAL and COST
#: (REASONING is a part of OUTPUT, shown again)
FIGURES = frozenset(header for header, _, _ in NUMBER_COLUMNS if header != "REASONING") | {"COST"}
