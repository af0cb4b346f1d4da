"""Frozen values of the hook tree: the events read back, and the nodes built from them.

``to_json`` methods produce exactly the ``agentscan.trace/1`` shapes of the
contract (plus the documented ``id``/``detail`` extensions on a node and
``summary`` on a turn); nothing else builds those dicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping

from agentscan.timeutil import to_iso

# Node kinds and provenances, as the contract spells them.
TOOL, SHELL, MCP, FILE, SUBAGENT, WAVE, THOUGHT, RESPONSE, EVENT = (
    "tool", "shell", "mcp", "file", "subagent", "wave", "thought", "response", "event",
)
NATIVE, CORRELATED, INFERRED, ORPHAN = "native", "correlated", "inferred", "orphan"

# Statuses a node can carry; ``None`` means not known (no completion seen).
OK, ERROR, TIMEOUT, DENIED, ABORTED = "ok", "error", "timeout", "denied", "aborted"


def iso_ns(value: int | None) -> str | None:
    if value is None:
        return None
    return to_iso(datetime.fromtimestamp(value / 1e9, timezone.utc))


@dataclass(frozen=True, slots=True)
class HookEvent:
    """One stored envelope.  ``seq`` is its position in the file (the tie-breaker)."""

    seq: int
    received_at_ns: int
    agent: str
    name: str
    session_id: str | None
    turn_id: str | None
    payload: Mapping[str, Any]
    #: the agent whose hook stored it when that is not ``agent`` (Cursor running Claude Code's hook)
    via: str | None = None

    def get(self, key: str, default: Any = None) -> Any:
        return self.payload.get(key, default)

    def text(self, key: str) -> str | None:
        value = self.payload.get(key)
        return value if isinstance(value, str) and value else None

    @property
    def sort_key(self) -> tuple[int, int]:
        return (self.received_at_ns, self.seq)


@dataclass(frozen=True, slots=True)
class Node:
    kind: str
    name: str
    input: Any
    status: str | None
    provenance: str
    started_ns: int | None
    ended_ns: int | None
    children: tuple[Node, ...] = ()
    #: the native id that placed this node (tool_use_id, subagent id), if any
    id: str | None = None
    #: per-kind extras: duration_ms, error, failure_type, exit_code, server, …
    detail: Mapping[str, Any] = field(default_factory=dict)

    def walk(self):  # type: ignore[no-untyped-def]
        yield self
        for child in self.children:
            yield from child.walk()

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "input": self.input,
            "status": self.status,
            "provenance": self.provenance,
            "started_at": iso_ns(self.started_ns),
            "ended_at": iso_ns(self.ended_ns),
            "children": [child.to_json() for child in self.children],
            "id": self.id,
            "detail": dict(self.detail),
        }


@dataclass(frozen=True, slots=True)
class Turn:
    id: str
    prompt: str | None
    nodes: tuple[Node, ...]
    started_ns: int
    ended_ns: int
    #: True when the turn id was derived from prompt/stop boundaries (no native turn id)
    derived: bool = False
    stop_status: str | None = None
    #: the token snapshot of the turn (Cursor `stop`, else first `afterAgentResponse`)
    tokens: Any = None  # agentscan.model.TokenUsage | None
    summary: Any = None  # agentscan.hooks.summary.Summary
    #: the model its events named (Cursor ``model_id`` or ``model``), else the latest one the
    #: session named before it (Claude's ``SessionStart``); not in the JSON (the contract's shape)
    model: str | None = None

    def walk(self):  # type: ignore[no-untyped-def]
        for node in self.nodes:
            yield from node.walk()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "prompt": self.prompt,
            "nodes": [node.to_json() for node in self.nodes],
            "summary": self.summary.to_json() if self.summary is not None else None,
        }


@dataclass(frozen=True, slots=True)
class SessionInfo:
    agent: str
    native_id: str
    workspace: str | None
    status: str
    started_ns: int | None
    ended_ns: int | None
    transcript_path: str | None
    #: the agentscan session id of that transcript (the cross-check)
    transcript_session_id: str | None
    #: whether that transcript file exists (agents delete old ones; their hook events stay)
    transcript_found: bool = False
    #: session-scoped nodes: sessionStart/End, Tab hooks, events with no turn
    nodes: tuple[Node, ...] = ()
    events_path: str | None = None

    @property
    def id(self) -> str:
        return f"{self.agent}:{self.native_id}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "agent": self.agent,
            "native_id": self.native_id,
            "workspace": self.workspace,
            "status": self.status,
            "started_at": iso_ns(self.started_ns),
            "ended_at": iso_ns(self.ended_ns),
            "transcript_path": self.transcript_path,
            "transcript_session_id": self.transcript_session_id,
            "transcript_found": self.transcript_found,
            "events_path": self.events_path,
            "nodes": [node.to_json() for node in self.nodes],
        }


@dataclass(frozen=True, slots=True)
class Trace:
    session: SessionInfo
    turns: tuple[Turn, ...]
    summary: Any  # agentscan.hooks.summary.Summary
    warnings: tuple[Any, ...] = ()  # agentscan.model.ScanWarning

    def body_json(self) -> dict[str, Any]:
        """The document without ``schema``/``warnings`` (the CLI's envelope adds them)."""
        return {
            "session": self.session.to_json(),
            "turns": [turn.to_json() for turn in self.turns],
            "summary": self.summary.to_json(),
        }
