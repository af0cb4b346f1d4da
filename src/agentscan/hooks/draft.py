"""The mutable node the tree builder works on, frozen into a ``Node`` at the end.

Pairing needs to close calls, move them into waves and re-parent subagent
work as events arrive; doing that on frozen values would mean rebuilding the
tree on every event.  Nothing outside the builder ever sees a ``Draft``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from agentscan.hooks.model import ERROR, INFERRED, NATIVE, OK, TOOL, HookEvent, Node

MS = 1_000_000  # nanoseconds per millisecond
TEXT_LIMIT = 64 * 1024  # per string in a node, as `show` bounds a message


def bounded(value: Any) -> Any:
    """``value`` with every string cut to ``TEXT_LIMIT`` (a Write's content can be megabytes)."""
    if isinstance(value, str):
        return value if len(value) <= TEXT_LIMIT else value[: TEXT_LIMIT - 1] + "…"
    if isinstance(value, dict):
        return {key: bounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [bounded(item) for item in value]
    return value


@dataclass(eq=False)
class Draft:
    kind: str
    name: str
    input: Any
    provenance: str
    started_ns: int | None
    ended_ns: int | None = None
    status: str | None = None
    id: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    children: list[Draft] = field(default_factory=list)
    #: the event that opened this node (a preToolUse, a before…, a subagentStart)
    opened_by: HookEvent | None = None
    #: the event that closed it (postToolUse/Failure, after…, subagentStop)
    closed_by: HookEvent | None = None
    #: True for a tool-call request (a pre event): the only nodes completions pair with
    request: bool = False
    #: Claude's agent_id: a call inside a subagent pairs only within it
    scope: str | None = None
    #: comparable fields for inner-event scoring (command, cwd, path, server, …)
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def in_flight(self) -> bool:
        return self.request and self.closed_by is None

    @property
    def completed(self) -> bool:
        return self.request and self.closed_by is not None

    def holds(self, kind: str) -> bool:
        return any(child.kind == kind for child in self.children)

    def close(self, event: HookEvent, status: str | None, at_ns: int) -> None:
        self.closed_by = payload_free(event)  # a Claude PostToolUse holds the tool's whole response
        self.ended_ns = at_ns
        self.status = status
        duration = event.get("duration_ms", event.get("duration"))
        if isinstance(duration, (int, float)) and not isinstance(duration, bool) and duration >= 0:
            self.detail["duration_ms"] = duration
            if self.started_ns is None:
                self.started_ns = at_ns - int(duration * MS)

    def interval(self) -> tuple[int, int]:
        """[start, end] of a call: end = completion time, else start + duration, else start."""
        start = self.started_ns if self.started_ns is not None else self.ended_ns or 0
        if self.ended_ns is not None:
            return start, self.ended_ns
        duration = self.detail.get("duration_ms")
        return start, start + int(duration * MS) if isinstance(duration, (int, float)) else start

    def freeze(self) -> Node:
        return Node(
            kind=self.kind,
            name=self.name,
            input=bounded(self.input),
            status=self.status,
            provenance=self.provenance,
            started_ns=self.started_ns,
            ended_ns=self.ended_ns,
            children=tuple(child.freeze() for child in self.children),
            id=self.id,
            detail=dict(self.detail),
        )


def payload_free(event: HookEvent, keep: tuple[str, ...] = ()) -> HookEvent:
    """``event`` without its payload (but the fields of ``keep``), for a node that keeps only
    that it came (and its order): a completion's payload (a ``Read``'s whole file) is read
    once, when it comes, not kept."""
    kept = {key: event.payload[key] for key in keep if key in event.payload}
    # (field by field: quicker than ``dataclasses.replace``, and run for every call's request and completion)
    return HookEvent(event.seq, event.received_at_ns, event.agent, event.name, event.session_id, event.turn_id,
                     kept or _NO_PAYLOAD, event.via)


#: what a call keeps of the request that opened it (``opened_by``): ``inner.owner_evidence``
#: reads its ``cwd``; the rest (``tool_input`` is the node's own ``input``) is let go, as 150,000
#: small calls kept a copy of each request's whole payload
OPENER_KEPT = ("cwd",)
#: read-only: one shared mapping that no node may change for the others
_NO_PAYLOAD: Mapping[str, Any] = MappingProxyType({})


def is_call(draft: Draft) -> bool:
    return draft.kind == TOOL and draft.request


def aggregate_status(members: list[Draft]) -> str | None:
    statuses = {member.status for member in members}
    if statuses == {OK}:
        return OK
    if statuses - {OK, None}:
        return ERROR
    return None


@dataclass(eq=False)
class TurnDraft:
    """A turn while it is being built (also used for the session-level bucket)."""

    id: str | None
    derived: bool = False
    prompt: str | None = None
    nodes: list[Draft] = field(default_factory=list)
    #: every tool-call request of the turn, wherever it sits (waves, subagents)
    requests: list[Draft] = field(default_factory=list)
    #: the requests not closed when last asked (``in_flight``), in the order they opened
    _open: list[Draft] = field(default_factory=list, repr=False)
    #: "shell"/"mcp" -> before… nodes still waiting for their after…
    open_inner: dict[str, list[Draft]] = field(default_factory=dict)
    #: Claude PostToolBatch nodes, applied after wave formation
    batches: list[Draft] = field(default_factory=list)
    first_ns: int | None = None
    last_ns: int | None = None
    stop_status: str | None = None
    #: when its prompt came (a later prompt with no stop before it: the turn was interrupted)
    prompted_ns: int | None = None
    tokens: Any = None  # agentscan.model.TokenUsage | None
    #: the model the turn ran on (``hooks.tree.event_model``): its own events', else the session's
    model: str | None = None

    def add_request(self, draft: Draft) -> None:
        self.requests.append(draft)
        self._open.append(draft)

    def in_flight(self) -> list[Draft]:
        """The requests still open, in the order they opened (as ``requests`` filtered by
        ``Draft.in_flight``): a turn of thousands of calls was searched whole for each
        completion; the open ones are a few, and a closed one never opens again."""
        still = [request for request in self._open if request.closed_by is None]
        self._open = still
        return still

    @property
    def placement(self) -> str:
        """Provenance of a node placed in this turn: a derived turn is itself an inference."""
        return INFERRED if self.derived else NATIVE

    def touch(self, at_ns: int) -> None:
        self.first_ns = at_ns if self.first_ns is None else min(self.first_ns, at_ns)
        self.last_ns = at_ns if self.last_ns is None else max(self.last_ns, at_ns)
