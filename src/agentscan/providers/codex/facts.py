"""What every pass over a rollout notes from each line, whatever else it does.

Both the bounded tail summary (``list``) and the full transcript reader
(``show``) need the same running facts: the time span, how many lines of
each kind, the model of the latest ``turn_context`` (the model of a reply;
a row's ``model`` is the most used one, ``modeluse``), the latest rate
limits and the latest name of each thread (``names``).  Keeping them in one
place keeps the two passes in agreement.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping

from agentscan.model import Counts
from agentscan.providers.codex.names import RolloutNames, frozen, note_name
from agentscan.providers.codex.messages import add_kind, counts_of, line_kind
from agentscan.providers.codex.records import as_str, enveloped, payload_of, rate_limits_of
from agentscan.timeutil import parse_iso


class LineFacts:
    """The running facts of one pass.  A plain class, not a dataclass: a cold ``list``
    imports it, and a dataclass costs about a millisecond to create on import."""

    __slots__ = ("first_ts", "last_ts", "model", "rate_limits", "kinds", "names", "own")

    def __init__(self, own: str | None = None) -> None:
        """``own``: the id of the thread whose lines these are, if known: its names are always
        kept (``names.note_name``)."""
        self.first_ts: datetime | None = None
        self.last_ts: datetime | None = None
        self.model: str | None = None
        self.rate_limits: dict[str, Any] | None = None  # the latest, from token_count events
        self.kinds: dict[str, int] = {}
        self.names: dict[str, tuple[str, datetime | None]] = {}  # thread id -> its latest name, when
        self.own = own.lower() if own else None

    def note(self, record: Mapping[str, Any]) -> tuple[datetime | None, str | None, Any, Mapping[str, Any]]:
        """Record one line's facts; returns (timestamp, kind, type, payload) for the caller's own work."""
        if "payload" not in record:
            record = enveloped(record)  # a pre-envelope rollout's bare item
        timestamp = parse_iso(record.get("timestamp"))
        if timestamp is not None:
            # ``oldest`` and ``newest``, inline: this runs on every line of a rollout.
            if self.first_ts is None or timestamp < self.first_ts:
                self.first_ts = timestamp
            if self.last_ts is None or timestamp > self.last_ts:
                self.last_ts = timestamp
        payload = payload_of(record)
        kind = line_kind(record, payload)
        if kind is not None:
            add_kind(self.kinds, kind)
        rtype = record.get("type")
        if rtype == "turn_context":
            self.model = as_str(payload.get("model")) or self.model
        elif rtype == "event_msg":
            ptype = payload.get("type")
            if ptype == "token_count":
                limits = rate_limits_of(payload)
                if limits is not None:
                    self.rate_limits = limits
            elif ptype == "thread_name_updated":
                note_name(self.names, payload, timestamp, self.own)
        return timestamp, kind, rtype, payload

    def note_rename(self, record: Mapping[str, Any]) -> None:
        """Only the rename a line may be, of a line whose other facts do not count (past a
        reverted segment's cut-off: a rollback leaves the thread's name as it is)."""
        if record.get("type") == "event_msg":
            payload = payload_of(record)
            if payload.get("type") == "thread_name_updated":
                note_name(self.names, payload, parse_iso(record.get("timestamp")), self.own)

    def counts(self) -> Counts:
        return counts_of(self.kinds)

    def thread_names(self) -> RolloutNames:
        return frozen(self.names)
