"""The errors and interruptions a provider recorded in a session, as ``show`` prints them
(the card's ``errors`` lines, ``--full``'s items at their times)."""

from __future__ import annotations

import re
from datetime import datetime, timezone, tzinfo
from typing import NamedTuple

from agentscan.detailmodel import SessionDetail
from agentscan.timeutil import parse_iso, shown_time

#: Claude Code's machine text for a usage limit: its words, ``|``, and when the limit resets
#: (Unix seconds), ``Claude AI usage limit reached|1765000000``
_LIMIT_RESETS = re.compile(r"(.*limit reached)\|([0-9]{9,11})", re.IGNORECASE | re.DOTALL)


class ShownError(NamedTuple):
    """An error the provider recorded in the session, as ``show`` prints it."""

    timestamp: datetime | None
    text: str


def recorded_errors(detail: SessionDetail) -> list[ShownError]:
    """The errors the provider recorded (``errors`` among the detail's extras, oldest
    first: ``DetailCollector.errors``' ``{"text", "timestamp", …}``; Cursor's have no time)."""
    return _recorded(detail, "errors")


def error_words(text: str, zone: tzinfo | None) -> str:
    """An error's text as a person reads it: Claude Code's usage limit with when it resets,
    in ``zone`` (``--tz``; ``None``: local) as the card's times are, ``Claude AI usage limit
    reached (resets 2025-12-06 05:46 CET)``, not its machine form (``…|1765000000``).
    ``--json`` keeps the text as recorded."""
    found = _LIMIT_RESETS.fullmatch(text.strip()) if "|" in text else None
    if found is None:
        return text
    try:
        resets = datetime.fromtimestamp(int(found.group(2)), timezone.utc)
    except (OverflowError, OSError, ValueError):
        return text
    return f"{found.group(1)} (resets {shown_time(resets, zone).named})"


def recorded_interruptions(detail: SessionDetail) -> list[ShownError]:
    """The times the user interrupted the agent, as the provider recorded them (``interruptions``
    among the detail's extras, oldest first: ``DetailCollector.interruptions``), each with the
    provider's words for it: the newest ``INTERRUPTIONS_KEPT`` (``interrupted_count`` counts all)."""
    return _recorded(detail, "interruptions")


def interrupted_count(detail: SessionDetail) -> int:
    """How many times the user interrupted the agent: the detail's ``interrupted`` (every one,
    kept or not), else as many as are listed (a detail built without it)."""
    total = detail.extra.get("interrupted")
    kept = len(recorded_interruptions(detail))
    return max(total, kept) if type(total) is int else kept


def _recorded(detail: SessionDetail, key: str) -> list[ShownError]:
    """The ``{"text", "timestamp", …}`` entries of the detail's extra ``key``, as ``show`` prints them."""
    found = []
    for entry in detail.extra.get(key) or ():
        if isinstance(entry, dict) and isinstance(entry.get("text"), str):
            found.append(ShownError(parse_iso(entry.get("timestamp")), entry["text"]))
    return found
