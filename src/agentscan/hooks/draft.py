"""The mutable node the tree builder works on, frozen into a ``Node`` at the end.

Pairing needs to close calls, move them into waves and re-parent subagent
work as events arrive; doing that on frozen values would mean rebuilding the
tree on every event.  Nothing outside the builder ever sees a ``Draft``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from sys import intern
from types import MappingProxyType
from typing import Any, Mapping

from agentscan.hooks.evidence import canonical_json, json_read
from agentscan.hooks.model import ERROR, INFERRED, NATIVE, OK, TOOL, HookEvent, Node

MS = 1_000_000  # nanoseconds per millisecond
TEXT_LIMIT = 64 * 1024  # per string in a node, as `show` bounds a message


def bounded(value: Any) -> Any:
    """``value`` with every string cut to ``TEXT_LIMIT`` (a Write's content can be megabytes):
    ``value`` itself when nothing is cut (150,000 calls' inputs were copied whole at the end)."""
    if isinstance(value, str):
        return value if len(value) <= TEXT_LIMIT else value[: TEXT_LIMIT - 1] + "…"
    if isinstance(value, dict):
        changed = None
        for key, item in value.items():
            if type(item) in _PLAIN or (type(item) is str and len(item) <= TEXT_LIMIT):
                continue  # (most of them: looked at without a call)
            shown = bounded(item)
            if shown is not item:
                changed = dict(value) if changed is None else changed
                changed[key] = shown
        return value if changed is None else changed
    if isinstance(value, list):
        items = [bounded(item) for item in value]
        return value if all(new is old for new, old in zip(items, value)) else items
    return value


#: values ``bounded`` leaves as they are
_PLAIN = frozenset({int, float, bool, type(None)})


#: the fields of a tool's input that pairing reads (``inner.owner_evidence``, ``subagents``),
#: kept whole when the input shown is cut: a command longer than ``TEXT_LIMIT`` still pairs
EXACT_FIELDS = ("command", "working_directory", "cwd", "sandbox", "file_path", "path", "target_notebook",
                "subagent_type")
#: a pairing key longer than this is kept as its digest (``input_key``)
KEY_LIMIT = 256


def input_key(value: Any) -> str | None:
    """What two tool inputs are compared by: their canonical JSON (``evidence.canonical``), each
    string longer than ``TEXT_LIMIT`` in it by its length and digest (not written out: a Write's
    megabytes), the whole by its digest when still long; equal keys for equal inputs, whichever
    side was cut for the tree."""
    import hashlib

    if value is None:
        return None
    value = json_read(value)  # (before its long strings are digested)
    text = canonical_json(value)
    if len(text) > TEXT_LIMIT:
        # (Only then can a string in it be longer than ``TEXT_LIMIT``: its JSON is no shorter.)
        text = canonical_json(_digested(value))
    if len(text) <= KEY_LIMIT:
        return text
    return "#" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _digested(value: Any) -> Any:
    """``value`` with each string longer than ``TEXT_LIMIT`` replaced by its length and digest."""
    if isinstance(value, str):
        if len(value) <= TEXT_LIMIT:
            return value
        import hashlib

        return f"\x00#{len(value)}:{hashlib.sha256(value.encode('utf-8', 'surrogatepass')).hexdigest()}"
    if isinstance(value, dict):
        return {key: _digested(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_digested(item) for item in value]
    return value


@dataclass(eq=False, slots=True)
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
    #: when ``input`` is cut (``bounded``): the whole input's key and ``EXACT_FIELDS``, which
    #: pairing reads, whole; the rest (a Write's megabytes) is let go at once, not at the end
    whole: tuple[str | None, dict[str, Any]] | None = field(default=None, repr=False)
    #: ``(input, its input_key)`` once asked: pairing asks each open call for every completion
    #: (the input it was taken of, so that an input set anew is keyed anew); let go on ``close``
    keyed: tuple[Any, str | None] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.set_input(self.input)

    def set_input(self, value: Any) -> None:
        """``input`` as shown (``bounded``), what pairing reads of it kept whole (``whole``)."""
        shown = bounded(value)
        self.input = shown
        # The key of the input before is let go with it (an orphan's megabytes, when a request's
        # input is adopted).  ``keyed`` is checked by identity only: no input is changed in place,
        # each is set anew (here, or ``input`` assigned whole).
        self.keyed = None
        if shown is value:
            self.whole = None
        else:
            fields = {key: value[key] for key in EXACT_FIELDS if key in value} if isinstance(value, dict) else {}
            self.whole = (input_key(value), fields)

    def input_key(self) -> str | None:
        """``input_key`` of the whole input, however much of it is shown."""
        if self.whole is not None:
            return self.whole[0]
        keyed = self.keyed
        if keyed is None or keyed[0] is not self.input:
            keyed = self.keyed = (self.input, input_key(self.input))
        return keyed[1]

    def input_fields(self) -> dict[str, Any]:
        """The input's fields pairing reads, whole (an input that is no object has none)."""
        if self.whole is not None:
            return self.whole[1]
        return self.input if isinstance(self.input, dict) else {}

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
        self.keyed = None  # (a closed call is no candidate again: not 150,000 keys kept to the end)
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
            input=self.input,  # (bounded when set)
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
    kept = _shared(tuple((key, event.payload[key]) for key in keep if key in event.payload)) if keep else None
    # (field by field: quicker than ``dataclasses.replace``, and run for every call's request and completion)
    # Its names and ids interned: each event decoded its own copies, kept twice a call (its
    # request and completion): some 60 MB for 150,000 calls.
    return HookEvent(event.seq, event.received_at_ns, intern(event.agent), intern(event.name),
                     _interned(event.session_id), _interned(event.turn_id), kept or _NO_PAYLOAD, event.via)


@lru_cache(maxsize=256)
def _kept_mapping(items: tuple[tuple[str, Any], ...]) -> Mapping[str, Any]:
    return MappingProxyType(dict(items))


def _shared(items: tuple[tuple[str, Any], ...]) -> Mapping[str, Any] | None:
    """The fields an event keeps, read-only, one mapping for the many requests that keep the same
    ones (every call of a session its ``cwd``: a dict each, 37 MB for 150,000 calls)."""
    if not items:
        return None
    if all(type(value) is str for _, value in items):
        return _kept_mapping(items)
    return MappingProxyType(dict(items))  # (not shared: ``1`` and ``True`` are equal keys of a cache)


def _interned(text: str | None) -> str | None:
    return None if text is None else intern(text)


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
