"""The wrappers Cursor puts around what a person typed.

A user record's text looks like::

    <timestamp>Friday, Jul 31, 2026, 11:12 PM (UTC+8)</timestamp>
    <user_query>
    fix the flaky test
    </user_query>

The ``<timestamp>`` wrapper is the only clock a transcript has (there are no
timestamp fields), and it is local time with a ``(UTC±h[:mm])`` label.  Its
day and month names are English whatever the locale, so it is parsed by
hand rather than with ``strptime`` (which follows ``LC_TIME``).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from agentscan.timeutil import UTC, plausible

_TIMESTAMP = re.compile(r"<timestamp>(.*?)</timestamp>", re.DOTALL | re.IGNORECASE)
_QUERY_OPEN = re.compile(r"<user_query>", re.IGNORECASE)
_QUERY_CLOSE = re.compile(r"</user_query>", re.IGNORECASE)
_CLOCK = re.compile(
    r"(?P<mon>[A-Za-z]{3})[A-Za-z]*\.?\s+(?P<day>\d{1,2}),?\s+(?P<year>\d{4}),?\s+"
    r"(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::(?P<second>\d{2}))?\s*(?P<ampm>[AaPp]\.?[Mm]\.?)?\s*"
    r"\(\s*(?:UTC|GMT)\s*(?:(?P<sign>[+\-\u2212])\s*(?P<oh>\d{1,2})(?::?(?P<om>\d{2}))?)?\s*\)"
)
_MONTHS = {name: index for index, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1
)}


def parse_clock(text: str) -> datetime | None:
    """``Friday, Jul 31, 2026, 11:12 PM (UTC+8)`` as an aware UTC time.

    Without the ``(UTC…)`` label the zone is unknown, and so is the time; so is
    one outside the years ``timeutil.plausible`` allows (year 1, 9999).
    """
    match = _CLOCK.search(text)
    if match is None:
        return None
    month = _MONTHS.get(match["mon"].lower())
    hour, minute = int(match["hour"]), int(match["minute"])
    if month is None or hour > 23 or minute > 59:
        return None
    ampm = (match["ampm"] or "").replace(".", "").lower()
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    offset = timedelta(hours=int(match["oh"] or 0), minutes=int(match["om"] or 0))
    if match["sign"] in ("-", "\u2212"):
        offset = -offset
    try:
        local = datetime(
            int(match["year"]), month, int(match["day"]), hour, minute, int(match["second"] or 0),
            tzinfo=timezone(offset),
        )
        # Year 1 east of UTC (or 9999 west of it) has no UTC form: OverflowError.
        moment = local.astimezone(UTC)
    except (ValueError, OverflowError):  # Feb 30, or an offset beyond ±24h
        return None
    # The years a record of any provider may have (Claude's ``parse_iso``); others are unknown.
    return plausible(moment)


def split_user_text(text: str) -> tuple[str, datetime | None]:
    """The typed prompt and the wrapper's time (``None`` when absent)."""
    when = None
    stamp = _TIMESTAMP.search(text)
    if stamp is not None:
        when = parse_clock(stamp.group(1))
    opened = _QUERY_OPEN.search(text)
    if opened is None:
        return _TIMESTAMP.sub("", text).strip(), when
    inner = text[opened.end():]
    closed = _QUERY_CLOSE.search(inner)
    # A torn record (file cut mid-write) has no closing tag: keep what is there.
    return (inner[: closed.start()] if closed else inner).strip(), when


#: the context Cursor sends as a ``user`` message of its own (the CLI's first row is
#: ``<user_info>``/``<rules>``/``<agent_transcripts>`` and no ``<user_query>``; a goal's
#: continuation is a ``<system_notification>``): no prompt, no title (docs/providers/cursor.md)
_INJECTED = re.compile(
    r"^\s*<(?:user_info|system_reminder|rules|git_status|agent_transcripts|system_notification)[\s>]",
    re.IGNORECASE,
)


def injected(text: str) -> bool:
    """Whether a user text, its wrappers removed (``split_user_text``), is context Cursor
    injected rather than something a person typed."""
    return _INJECTED.match(text) is not None


_WHITESPACE = re.compile(r"\s+")


def collapse(text: str, limit: int | None = None) -> str:
    text = _WHITESPACE.sub(" ", text).strip()
    if limit is not None and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def same_prompt(one: str, other: str) -> bool:
    """Whether two texts are the same prompt: one holds the other, whitespace collapsed (a
    ``Task`` call's prompt and its child's first text, ``delegation``; a transcript prompt
    and its user bubble's, ``ide.Turn``).  An empty text is the same as none."""
    one, other = collapse(one), collapse(other)
    return bool(one and other) and (one in other or other in one)
