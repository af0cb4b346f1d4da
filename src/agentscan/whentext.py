"""``--since``/``--until`` (and ``prices --at``) as a person writes them: a date, ``today``
or ``yesterday``, an ISO week or month, an ISO time, or a duration back from now.

Apart from ``timeutil`` (which every provider imports to read its records' times): only
the commands that take a window read these forms.  Imports nothing ``timeutil`` does not.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, tzinfo
from typing import Sequence

from agentscan.errors import UsageProblem
from agentscan.timeutil import EARLIEST, LATEST, UTC, iso_datetime, wall_time
from agentscan.toolkit.words import close_names, either, quoted

# The units spelt out, not re.IGNORECASE: that would also take "ſ" (long s) for
# an "s", with no unit to match it, and it costs half a millisecond of every start.
# Not "M": to a person "1M" is a month, which is no fixed length (a minute is "m").
_DURATION = re.compile(r"^\s*(\d+)\s*([smhdwSHDW])\s*$")
# Months and years, which a duration cannot be: said so, not read as minutes or refused blind.
_NOT_A_UNIT = re.compile(r"^\s*\d+\s*(?:M|mo|mons?|months?|[yY]|yrs?|years?)\s*$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
#: a duration with its unit spelt out (``3days``, ``"12 hours"``): the unit's letter is offered
_SPELT = re.compile(r"^\s*(\d+)\s*(sec|secs|seconds?|min|mins|minutes?|hrs?|hours?|days?|wks?|weeks?)\s*$", re.IGNORECASE)
# What a date given alone can be, each a span of whole days: a day (2026-11-30; ccusage's
# 20261130; an ISO week day, 2026-W49-1 or 2026W491), an ISO week (2026-W49: the label
# ``tokens --by week`` prints) or a month (2026-11: ``--by month``'s).  ASCII digits:
# ``\d`` also takes other scripts' digits, which ``fromisoformat`` refuses.
_DAY_FORM = re.compile(r"[0-9]{4}(?:-[0-9]{2}-[0-9]{2}|[0-9]{4}|-W[0-9]{2}-[0-9]|W[0-9]{3})")
_WEEK_FORM = re.compile(r"[0-9]{4}-?W[0-9]{2}")
_MONTH_FORM = re.compile(r"([0-9]{4})-([0-9]{2})")
#: the days a word names, by how many days before today (in the ``--tz`` zone): each is read
#: as that day's date is, ``--until yesterday`` including yesterday.  ``--since 1d`` is the
#: last 24 hours, so ``tokens --by day --since 1d`` showed a part of yesterday as a day.
_DAY_WORDS = {"today": 0, "yesterday": 1}
#: every form a WHEN takes, said the same wherever one is asked for: ``--since``'s and
#: ``--until``'s help (``cli.options``, ``cli.commands``: read there only as a command's help
#: is built, not by the fast path), an empty option's error (``cli.state``) and an unread one's
WHEN_FORMS = ("a date (2026-11-01 or 20261101, today, yesterday), a week or month (2026-W49, 2026-11), an ISO time, "
              "or a duration (3d, 12h)")
#: how ``--until`` reads a WHEN (``end_of_day``), said in its help
UNTIL_READING = "any --since form; a date, week or month counts whole, a time or duration is excluded"
_WHEN_HINT = f"use {WHEN_FORMS}"


#: the words before a unit that name a window said aloud (``last week``), and the units they
#: take, as ``window_said`` reads them (``tokens last week``'s hint asks them too: ``cli.idwords``)
WINDOW_WORDS = ("this", "last", "past", "previous")
WINDOW_UNITS = ("day", "week", "month")
#: a window said aloud, as one option's value (``--since 'last week'``)
_WINDOW_PHRASE = re.compile(rf"\s*({'|'.join(WINDOW_WORDS)})\s+({'|'.join(WINDOW_UNITS)})\s*", re.IGNORECASE)


def window_said(word: str, unit: str, tz: tzinfo | None = None) -> tuple[str, str]:
    """The options of ``this week``, ``last month``, ``past day`` (``--since 2026-W49``), and
    the window said: a calendar one, in the ``tz`` zone (default: this machine's) as
    ``--since`` reads a week, or for ``past`` the time up to now.  ``word``: this, last, past
    or previous; ``unit``: day, week or month.  (``tokens last week``'s hint, ``cli.idwords``,
    and ``--since 'last week'``'s error.)"""
    if word == "past":
        return {"day": "--since 1d", "week": "--since 7d", "month": "--since 30d"}[unit], f"the past {unit}"
    today = datetime.now(tz).date() if tz is not None else datetime.now().astimezone().date()
    if word == "this":
        year, week, _weekday = today.isocalendar()
        return {"day": "--since today", "week": f"--since {year}-W{week:02}",
                "month": f"--since {today:%Y-%m}"}[unit], "today" if unit == "day" else f"this {unit}"
    earlier = today - timedelta(days=7) if unit == "week" else today.replace(day=1) - timedelta(days=1)
    year, week, _weekday = earlier.isocalendar()
    named = {"day": "yesterday", "week": f"{year}-W{week:02}", "month": f"{earlier:%Y-%m}"}[unit]
    # (``--until`` counts a day, week or month whole)
    return f"--since {named} --until {named}", "yesterday" if unit == "day" else f"last {unit}"


def read_when(word: str, text: str, tz: tzinfo | None) -> datetime:
    """``text`` as ``--since`` or ``--until`` (``word``; the library's ``since``, ``until``)
    reads it (``parse_when``; an ``until`` counts a date whole); a bare number (``tokens
    --since 3 days``, whose ``days`` ``tokens`` takes for an id) said to want its unit, which
    ``parse_when``'s forms leave to guess.  One reader for the CLI's options and the
    library's ``ListFilter``/``token_report`` strings (``scan.arguments.moment``)."""
    try:
        return parse_when(text, tz=tz, end_of_day=word.lstrip("-") == "until")
    except UsageProblem:
        number = text.strip()
        if number.lower() == "now":
            # Another tool's word for the open end (``--until now``): said, not a list of forms.
            raise UsageProblem(f"cannot read the time {quoted(text)}: leave {word} out, and the window runs up to now"
                               if word.lstrip("-") == "until" else
                               f"cannot read the time {quoted(text)}: nothing is recorded after now; for the latest "
                               f"calls give a duration ({word} 1h) or a day ({word} today)") from None
        phrase = _WINDOW_PHRASE.fullmatch(number)
        if phrase is not None and word.startswith("-"):  # (the CLI's: its answer is in options)
            # ``--since 'last week'``: the options that say it, not a list of forms
            window, said = window_said(phrase[1].casefold(), phrase[2].casefold(), tz)
            raise UsageProblem(f"cannot read the time {quoted(text)}: {said} is {window}") from None
        if number.isascii() and number.isdigit() and len(number) <= 3:
            hours, days = (f"{word} {number}h", f"{word} {number}d") if word.startswith("-") else \
                (f'{word}="{number}h"', f'{word}="{number}d"')
            raise UsageProblem(f"cannot read the time {quoted(text)}: a duration is one word, the number and its unit, "
                               f"s, m, h, d or w: {hours} for hours, {days} for days") from None
        raise


def parse_when(text: str, *, now: datetime | None = None, tz: tzinfo | None = None, end_of_day: bool = False) -> datetime:
    """Parse a ``--since``/``--until`` value: a date, ``today``, ``yesterday``, a week, a month,
    an ISO time, or ``3d``.

    A date or a time without an offset is read in ``tz`` (default: the local
    zone), as a person means it (``wall_time``).  A date, week or month means its
    first instant; with ``end_of_day`` its end, the first instant after it
    (``--until 2026-11-30`` includes the 30th, as in ccusage; ``--until 2026-W49``
    includes that Sunday).  ``today`` and ``yesterday`` (any case) are those dates in ``tz``
    as of ``now``.  A time outside the years a record can hold (``EARLIEST``,
    ``LATEST``) is taken as the nearest of them: it selects the same records, and a time
    near the year 1 or 9999 has no local form to print (``--since 9999-12-31T23:30Z`` east of UTC).
    """
    from agentscan.farbounds import Far, far  # (here: most commands name no time)

    found = _parse_when(text, now=now, tz=tz, end_of_day=end_of_day)
    if isinstance(found, Far) or EARLIEST <= found < LATEST:
        return found
    # Beyond the years a record holds (an ISO time with its offset): the nearest, standing for it.
    return far(min(max(found, EARLIEST), LATEST), found.timestamp())


def _parse_when(text: str, *, now: datetime | None, tz: tzinfo | None, end_of_day: bool) -> datetime:
    if not text.strip():
        # ``--since "$FROM"`` with the variable unset: every session would pass, silently.
        raise UsageProblem(f"an empty time: {_WHEN_HINT}, or leave the option out")
    now = now or datetime.now(UTC)
    match = _DURATION.match(text)
    if match:
        try:
            amount, unit = int(match.group(1)), match.group(2).lower()
            ago = timedelta(**{_UNITS[unit]: amount})
        except (OverflowError, ValueError):  # past timedelta, or past int()'s 4,300 digits
            raise UsageProblem(f"the duration {quoted(text.strip())} reaches back too far") from None
        if not ago:  # "now": nothing is recorded after it, and nothing before it would be left out
            raise UsageProblem(f"the duration {quoted(text.strip())} is zero: use one of 1 or more (1d, 12h, 30m)")
        try:
            return now - ago
        except OverflowError:  # before the year 1
            raise UsageProblem(f"the duration {quoted(text.strip())} reaches back too far") from None
    if _NOT_A_UNIT.match(text):
        raise UsageProblem(f"{quoted(text.strip())}: months and years have no fixed length, so are not durations "
                           "(30m is 30 minutes): use days or weeks (90d, 4w), or a month or a date (2026-11, 2026-11-01)")
    span = _days_named(text.strip(), now, tz) or _days_of(text.strip())
    if span is not None:
        day = span[1] if end_of_day else span[0]
        if day is None:
            from agentscan.farbounds import after_last_day

            return after_last_day(LATEST, tz)
        return _wall(datetime(day.year, day.month, day.day), tz)
    parsed = _parse_user_time(text, tz)
    if parsed is None:
        spelt = _SPELT.match(text)
        meant = f" (did you mean {spelt[1]}{'m' if spelt[2].lower().startswith('min') else spelt[2][0].lower()}?)" if spelt else ""
        dates = times_meant(text)
        if dates:
            meant = f" (did you mean {either(dates)}?)"
        raise UsageProblem(f"cannot read the time {quoted(text)}{meant}: {_WHEN_HINT}")
    return parsed


#: a date as other programs write it: ``2026/11/01``, ``2026.11.1``, ``2026-11-1`` (a time after
#: it, ``T9:00``, kept); ``25/11/2026``, ``11/25/2026``
_OTHER_DATE = re.compile(r"\s*([0-9]{4})[-/.]([0-9]{1,2})[-/.]([0-9]{1,2})(?:[T ]([0-9]{1,2}):([0-9]{2}))?\s*"
                         r"|\s*([0-9]{1,2})[/.]([0-9]{1,2})[/.]([0-9]{4})\s*")
#: an ISO week with one digit: ``2026-W7``
_SHORT_WEEK = re.compile(r"\s*([0-9]{4})-?[Ww]([1-9])\s*")


def times_meant(text: str) -> list[str]:
    """What ``text``, a time ``parse_when`` cannot read, may have been meant as: the ISO dates
    of a date written otherwise (``_dates_meant``), or a day's word misspelt (``yesterdy``)."""
    return _dates_meant(text) or close_names(text.strip(), _DAY_WORDS)


def _dates_meant(text: str) -> list[str]:
    """The ISO dates a date written otherwise may be, for an error to offer: one for year
    first (with its time, padded: ``2026-11-01T09:00``), or a day past 12 (``25/11/2026``);
    both readings of ``01/11/2026``, the 1st of November in Europe, the 11th of January in
    the US; ``2026-W07`` for ``2026-W7``."""
    week = _SHORT_WEEK.fullmatch(text)
    if week is not None:
        return [f"{week[1]}-W0{week[2]}"]
    found = _OTHER_DATE.fullmatch(text)
    if found is None:
        return []
    if found[1]:
        readings = [(int(found[1]), int(found[2]), int(found[3]))]
    else:
        first, second, year = int(found[6]), int(found[7]), int(found[8])
        readings = [(year, second, first), (year, first, second)]
    if found[4] and not (int(found[4]) < 24 and int(found[5]) < 60):
        return []  # (``T25:00``: no time to offer, and the date alone is not what was asked)
    at = f"T{int(found[4]):02}:{found[5]}" if found[4] else ""
    meant = []
    for year, month, day in readings:
        try:
            iso = date(year, month, day).isoformat() + at
        except ValueError:
            continue
        if iso not in meant:
            meant.append(iso)
    return meant


def _wall(naive: datetime, tz: tzinfo | None) -> datetime:
    """``wall_time``, or, for a wall time beyond the years a record holds (which it takes as
    the nearest of them), that nearest instant standing for the one asked (``farbounds``)."""
    moment = wall_time(naive, tz)
    if EARLIEST < moment < LATEST:
        return moment
    from agentscan.farbounds import far_wall

    return far_wall(min(max(moment, EARLIEST), LATEST), naive, tz)


def _days_of(text: str) -> tuple[date, date | None] | None:
    """The first day of a date, ISO week or month and the day after its last (``None``: after
    the year 9999); ``None`` for any other text.  ``fromisoformat`` alone would read a week
    or ccusage's 20261130 as its first instant, and refuse a month."""
    try:
        if _DAY_FORM.fullmatch(text):
            first = date.fromisoformat(text)
            return first, _days_after(first, 1)
        if _WEEK_FORM.fullmatch(text):
            first = date.fromisoformat(text)  # the Monday
            return first, _days_after(first, 7)
        month = _MONTH_FORM.fullmatch(text)
        if month is None:
            return None
        year, number = int(month[1]), int(month[2])
        first = date(year, number, 1)
        return first, (date(year + number // 12, number % 12 + 1, 1) if (year, number) < (9999, 12) else None)
    except ValueError:  # 2026-02-30, 2026-13, 2025-W53 (2025 has 52 weeks)
        raise UsageProblem(f"cannot read the time {quoted(text)}: there is no such day, week or month") from None


def _days_named(text: str, now: datetime, tz: tzinfo | None) -> tuple[date, date] | None:
    """The day ``today`` or ``yesterday`` names in ``tz`` (``None``: the local zone), and the
    day after it; ``None`` for any other text.  ``lower``, not ``casefold``: that reads "ſ" as "s"."""
    back = _DAY_WORDS.get(text.lower())
    if back is None:
        return None
    first = now.astimezone(tz).date() - timedelta(days=back)
    return first, first + timedelta(days=1)


def _days_after(first: date, days: int) -> date | None:
    try:
        return first + timedelta(days=days)
    except OverflowError:
        return None


def _parse_user_time(value: str, tz: tzinfo | None) -> datetime | None:
    """Like ``_parse_any_iso``, but a time without an offset is wall-clock time in ``tz``."""
    parsed = iso_datetime(value)
    if parsed is None:
        return None
    if parsed.tzinfo is None:
        try:
            return _wall(parsed, tz)
        except (ValueError, OverflowError):
            return None
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        # In UTC past the calendar (``0001-01-01T00:00+05:00`` is in the year 0): refused as a
        # time that could not be read.  The nearest instant a record holds, standing for it,
        # as a wall time's (``_wall``); said in UTC, as a time given with its offset is.
        offset = parsed.utcoffset() or timedelta(0)
        epoch = (parsed.replace(tzinfo=None) - datetime(1970, 1, 1) - offset).total_seconds()
        from agentscan.farbounds import far

        return far(EARLIEST if parsed.year < 1970 else LATEST, epoch)


def spaced_window(since: str | None, until: str | None, ids: Sequence[str], tz: tzinfo | None) -> str | None:
    """``tokens --since last week`` unquoted: the shell gave ``--since`` the word ``last``, and
    a command that takes session ids (``tokens``, ``otlp``) took ``week`` for one (``list``,
    taking none, says the words left over: ``cli.usagewords``).  Said as the window the two
    words name, as the quoted ``--since 'last week'``'s error says it (``read_when``), not as a
    time ``last`` is not; ``None`` when no ``--since``/``--until`` value and an id make such a
    phrase (the id need not be the first: ``tokens 7f3c9a12 --since last week``)."""
    for flag, value in (("--since", since), ("--until", until)):
        for word in ids if value else ():
            phrase = _WINDOW_PHRASE.fullmatch(f"{value} {word}")
            if phrase is not None:
                window, said = window_said(phrase[1].casefold(), phrase[2].casefold(), tz)
                return (f"cannot read the time {quoted(value)}: {flag} takes one word ({quoted(word)} was read as a session id); "
                        f"{said} is {window}")
    return None
