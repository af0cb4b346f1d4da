"""The periods a window cuts: ``tokens --by week --since 2026-11-01`` counts only the Sunday
of ``2026-W44``, and its row reads as the whole week's unless the person is told.  And the
window's end, in words (``window_line``): ``--until 2026-11-27`` counts all of the 27th.

Said under the table (a hint: stderr, not with ``--quiet``), for the oldest and the newest
period only: a window's other periods are whole.  Imported only for a grouped table in a
window, as ``tokens --by day --since 1d`` is.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, tzinfo
from typing import Iterable

from agentscan.timeutil import shown_time, wall_time

#: the groupings whose rows are periods of time
PERIODS = ("day", "week", "month")


def cut_periods(by: str, keys: Iterable[str], since: datetime | None, until: datetime | None,
                zone: tzinfo | None) -> str | None:
    """What to say of the rows ``keys`` of a ``by`` table (a day's, week's or month's key,
    ``scan.rowkeys.period_key``'s) whose period ``since`` starts after its first instant or
    ``until`` ends before its last; ``None`` when the window cuts no row's period."""
    if by not in PERIODS or (since is None and until is None):
        return None
    shown = set(keys)
    first = last = None
    if since is not None:
        key, start, _ = _period_of(since, by, zone)
        if key in shown and since > start:
            first = key, shown_time(since, zone).text
    if until is not None:
        key, _, end = _period_of(until - timedelta(microseconds=1), by, zone)  # (``until`` is excluded)
        if key in shown and until < end:
            last = key, shown_time(until, zone).text
    if first is not None and last is not None and first[0] == last[0]:
        # A window within one period (``--since 2026-11-07 --until 2026-11-07 --by week``):
        # one row, cut at both ends, named once.
        return f"the {by} {first[0]} counts from {first[1]} up to {last[1]}: the window cuts it"
    said = []
    if first is not None:
        said.append(f"the first {by}, {first[0]}, counts from {first[1]}")
    if last is not None:
        said.append(f"{'the last,' if said else f'the last {by},'} {last[0]}, up to {last[1]}")
    return f"{'; '.join(said)}: the window cuts {'them' if len(said) > 1 else 'it'}" if said else None


def _period_of(moment: datetime, by: str, zone: tzinfo | None) -> tuple[str, datetime, datetime]:
    """The key of the ``by`` period ``moment`` falls in (in ``zone``; ``None``: the local
    one), and the instants it starts and ends (the next one's start)."""
    from agentscan.scan.rowkeys import period_key  # the rows' own keys, made as they are

    day = moment.astimezone(zone).date()
    if by == "day":
        first, after = day, day + timedelta(days=1)
    elif by == "week":
        first = day - timedelta(days=day.weekday())
        after = first + timedelta(days=7)
    else:
        first = day.replace(day=1)
        after = date(first.year + first.month // 12, first.month % 12 + 1, 1)
    return period_key(moment.timestamp(), by, zone, {}), _midnight(first, zone), _midnight(after, zone)


def _midnight(day: date, zone: tzinfo | None) -> datetime:
    return wall_time(datetime(day.year, day.month, day.day), zone)


def window_line(since: datetime | None, until: datetime | None, zone: tzinfo | None) -> str | None:
    """The window a table counts, on one line, when it has an end: ``--until 2026-11-27``
    includes that day (as ccusage's does), which no row says and a reader of a table by
    session, model or provider may take for its start (``window: from 2026-11-01 00:00
    through the whole of 2026-11-27 (UTC)``); an end that is no midnight is said excluded.
    ``None`` without ``until``, a start alone being what was typed, or for one past the years a
    record holds (``--until 9999-12-31``, ``farbounds``): no end to say."""
    if until is None or getattr(until, "shown", None) is not None:
        return None
    end = shown_time(until, zone)
    start = shown_time(since, zone) if since is not None else None
    zones = "/".join(dict.fromkeys(shown.zone or "UTC" for shown in (start, end) if shown is not None))
    local = until.astimezone(zone)
    if local.time() == time(0):
        # The end is excluded, so a midnight's day is the last one counted, whole.
        said = f"through the whole of {(local - timedelta(microseconds=1)).date().isoformat()}"
    else:
        said = f"up to {end.text}, not included"
    return f"window: {f'from {start.text} ' if start is not None else ''}{said} ({zones})"
