"""The errors and interruptions a provider recorded in a session, as ``show`` prints them
(the card's ``errors`` lines, ``--full``'s items at their times)."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from agentscan.detailmodel import SessionDetail
from agentscan.timeutil import parse_iso


class ShownError(NamedTuple):
    """An error the provider recorded in the session, as ``show`` prints it."""

    timestamp: datetime | None
    text: str


def recorded_errors(detail: SessionDetail) -> list[ShownError]:
    """The errors the provider recorded (``errors`` among the detail's extras, oldest
    first: ``DetailCollector.errors``' ``{"text", "timestamp", …}``; Cursor's have no time)."""
    return _recorded(detail, "errors")


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
