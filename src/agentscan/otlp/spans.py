"""The spans agentscan exports, independent of any wire format.

Both sources (transcripts and hook trees) produce these values; the JSON and
protobuf encoders only translate them.  Ids are derived, never random: a
trace id hashes ``provider | session | turn`` and a span id hashes the trace
id plus a key naming the thing the span stands for (a tool call id, an API
request id, a subagent id…).  Re-exporting a session therefore yields the
same ids, which is what lets a collector or backend deduplicate, and lets
live spans sent by ``agentscan hook`` line up with a later batch export.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence, Union

# Span kinds and status codes: OTLP enums are integers on the wire.
KIND_INTERNAL, KIND_CLIENT = 1, 3
STATUS_UNSET, STATUS_OK, STATUS_ERROR = 0, 1, 2

#: attribute values we emit: scalars, or homogeneous lists of strings
AttributeValue = Union[str, bool, int, float, Sequence[str]]


def trace_id(provider: str, session: str, turn: str) -> str:
    """32 hex chars; the same turn of the same session always gets the same id."""
    return _digest(f"agentscan|trace|{provider}|{session}|{turn}", 16)


def span_id(trace: str, key: str) -> str:
    """16 hex chars, unique within its trace as long as ``key`` is."""
    return _digest(f"agentscan|span|{trace}|{key}", 8)


def _digest(text: str, size: int) -> str:
    raw = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:size]
    if not any(raw):  # an all-zero id is invalid in OTLP; astronomically unlikely, but cheap to rule out
        raw = b"\x01" + raw[1:]
    return raw.hex()


@dataclass(frozen=True, slots=True)
class SpanEvent:
    name: str
    time_ns: int
    attributes: Mapping[str, AttributeValue] = field(default_factory=dict)


@dataclass(slots=True)
class Span:
    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    kind: int
    start_ns: int
    end_ns: int
    attributes: dict[str, AttributeValue] = field(default_factory=dict)
    events: list[SpanEvent] = field(default_factory=list)
    status_code: int = STATUS_UNSET
    status_message: str | None = None

    def set(self, key: str, value: Any) -> None:
        """Set an attribute unless the value is unknown (``None``): unknowns are left out, never invented."""
        if value is not None:
            self.attributes[key] = value

    def cover(self, start_ns: int, end_ns: int) -> None:
        """Widen the span so a child's interval fits inside it."""
        self.start_ns = min(self.start_ns, start_ns)
        self.end_ns = max(self.end_ns, end_ns)


@dataclass(slots=True)
class ExportTrace:
    """One turn: its spans, root first, and the resource (the agent) they ran in."""

    resource: dict[str, AttributeValue]
    spans: list[Span]
    #: agentscan session id (``claude:…``): for reports and warnings only
    session: str = ""
