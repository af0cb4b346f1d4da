"""Subagents and compactions: the two start/stop pairs that are not tool calls.

Subagents pair by id: Cursor ``subagentStart.subagent_id``, Claude
``agent_id`` on both ends.  Cursor's documented ``subagentStop`` has no
``subagent_id``; it then pairs with the unique open start of the same
``subagent_type`` (a different type rules a start out, an equal ``task``
scores).  Placement: Cursor's start names the Task call that spawned it
(``tool_call_id`` = its ``tool_use_id``); Claude's does not, so it goes under
the unique in-flight ``Agent``/``Task`` call asking for that agent type.
Claude's ``PostToolUse`` of that call names the agent it ran
(``tool_response.agentId`` = ``agent_id``): that id places the subagent under
its call (``native``), whenever it comes: after the stop (parallel calls of
one type, which tie by type), or before the start (a background Task's
result comes at launch).  A start captured after its own stop (the hooks run
asynchronously) is the same subagent, by its id: one node, not two.  A start whose call is not found either way stays
under its turn as an ``orphan``; arrival order never decides.  Claude hooks
fired inside a subagent carry its ``agent_id`` and are nested under it.

A Claude ``SubagentStop`` with ``agent_type`` "" and no start is one of Claude
Code's internal agents (prompt suggestions, ``/btw``; no call of the
conversation ran it): an ``event`` node, counted neither as a subagent nor as
an orphan.
"""

from __future__ import annotations

from typing import Any

from agentscan.hooks.draft import Draft, TurnDraft
from agentscan.hooks.evidence import compare, unique_best
from agentscan.hooks.model import ABORTED, CORRELATED, ERROR, EVENT, NATIVE, OK, ORPHAN, SUBAGENT, HookEvent
from agentscan.hooks.pairing import event_input

from agentscan.hooks.events import SUBAGENT_STARTS as STARTS
from agentscan.hooks.events import SUBAGENT_STOPS as STOPS

_STATUS = {"completed": OK, "error": ERROR, "aborted": ABORTED}
_STOP_DETAIL = ("message_count", "tool_call_count", "loop_count", "modified_files", "agent_transcript_path")
_TASK_TOOLS = ("Task", "Agent")


class Subagents:
    """Session-wide registry: a subagent's events may arrive under a later turn id."""

    def __init__(self) -> None:
        self.by_id: dict[str, Draft] = {}
        self.open: list[Draft] = []
        self.compactions: list[Draft] = []
        self.orphan_stops: list[tuple[Draft, list[Draft]]] = []
        #: the list each subagent node sits in now (a call's result may move it later)
        self.holders: dict[Draft, list[Draft]] = {}
        #: agent id -> the Task call whose result named it (Claude ``tool_response.agentId``)
        self.named_by: dict[str, Draft] = {}

    def container_for(self, event: HookEvent) -> tuple[list[Draft], str] | None:
        """Where an event fired inside a subagent goes: under that subagent, and how it was told.

        Claude's hooks carry the subagent's ``agent_id``.  Cursor reports a subagent's calls under
        the parent conversation; they go under it when their payload says which: a
        ``subagent_id`` (``native``), or a ``transcript_path`` in the parent's ``subagents/``
        folder, named by the subagent's id (``native``) or, when no id matches, the one Cursor
        subagent still running (``correlated``).  Otherwise they stay where they are.
        """
        if event.name in STARTS or event.name in STOPS:
            return None
        agent_id = event.text("agent_id") or event.text("subagent_id")
        if agent_id is not None:
            node = self.by_id.get(agent_id)
            return (node.children, NATIVE) if node is not None and node.kind == SUBAGENT else None
        child = subagent_transcript(event.text("transcript_path"))
        if child is None:
            return None
        node = self.by_id.get(child)
        if node is not None and node.kind == SUBAGENT:
            return node.children, NATIVE
        running = [s for s in self.open if s.closed_by is None and s.opened_by is not None
                   and s.opened_by.name == "subagentStart"]
        return (running[0].children, CORRELATED) if len(running) == 1 else None

    def start(self, turn: TurnDraft, container: list[Draft], event: HookEvent, at_ns: int) -> Draft:
        agent_id = event.text("subagent_id") or event.text("agent_id")
        agent_type = event.text("subagent_type") or event.text("agent_type")
        shown = {key: event.get(key) for key in ("task", "subagent_model", "is_parallel_worker") if key in event.payload}
        stopped = self.by_id.get(agent_id) if agent_id is not None else None
        if stopped is not None and stopped.kind == SUBAGENT and stopped.opened_by is not None \
                and stopped.opened_by.name in STOPS:
            return self._started_after_stop(turn, stopped, event, at_ns, agent_type, shown)
        node = Draft(
            kind=SUBAGENT,
            name=agent_type or "subagent",
            input=shown,
            provenance=turn.placement,
            started_ns=at_ns,
            id=agent_id,
            opened_by=event,
            evidence={"type": agent_type, "task": event.text("task")},
        )
        named = self.named_by.get(agent_id) if agent_id is not None else None
        parent, provenance = (named, NATIVE) if named is not None else _spawning_call(turn, event, agent_type)
        if parent is None:
            # No id named its call and the evidence left a tie (two parallel calls asking for
            # one type) or nothing: kept under the turn, and marked so, never passed off as native.
            node.provenance = ORPHAN
            self._put(node, container)
        else:
            node.provenance = provenance
            self._put(node, parent.children)
        if agent_id is not None:
            self.by_id[agent_id] = node
            _adopt(turn, node)
        self.open.append(node)
        return node

    def _started_after_stop(self, turn: TurnDraft, node: Draft, event: HookEvent, at_ns: int,
                            agent_type: str | None, shown: dict[str, Any]) -> Draft:
        """A start captured after its own stop (Claude runs hooks asynchronously): the node its
        stop made is this subagent, paired by its id, and placed as a start places one."""
        node.name, node.opened_by = agent_type or node.name, event
        node.set_input(shown)
        node.evidence.update({"type": agent_type, "task": event.text("task")})
        node.started_ns = min(at_ns, node.ended_ns) if node.ended_ns is not None else at_ns
        self.orphan_stops = [(orphan, holder) for orphan, holder in self.orphan_stops if orphan is not node]
        if node.provenance == NATIVE:
            return node  # its call's result named it already
        parent, provenance = _spawning_call(turn, event, agent_type)
        if parent is not None:
            node.provenance = provenance
            self._put(node, parent.children)
        return node

    def call_completed(self, turn: TurnDraft, call: Draft, event: HookEvent) -> None:
        """A Claude ``Task``/``Agent`` call's result names the agent it ran: that subagent goes
        under it, by id (a start not seen yet is placed there when it comes)."""
        agent_id = _result_agent_id(event) if call.name in _TASK_TOOLS else None
        if agent_id is None:
            return
        self.named_by[agent_id] = call
        node = self.by_id.get(agent_id)
        if node is None or node.kind != SUBAGENT:
            return
        for other in [c for c in call.children if c.kind == SUBAGENT and c is not node and c.provenance == CORRELATED]:
            # Placed there by its type alone, and the call ran another: no longer placed at all.
            other.provenance = ORPHAN
            self._put(other, turn.nodes)
        node.provenance = NATIVE
        if node not in call.children:
            self._put(node, call.children)

    def _put(self, node: Draft, holder: list[Draft]) -> None:
        """``node`` into ``holder``, out of the list it was in."""
        before = self.holders.get(node)
        if before is not None and node in before:
            before.remove(node)
        holder.append(node)
        self.holders[node] = holder

    def stop(self, turn: TurnDraft, container: list[Draft], event: HookEvent, at_ns: int) -> Draft:
        status = _STATUS.get(event.get("status"), OK if event.name == "SubagentStop" else None)
        agent_id = event.text("subagent_id") or event.text("agent_id")
        node = self.by_id.get(agent_id) if agent_id is not None else None
        if node is not None and node.closed_by is not None:
            node = None  # a second stop for one start stays an orphan
        if node is None and agent_id is None:
            wanted = {"type": event.text("subagent_type"), "task": event.text("task")}
            node = unique_best(
                (s, _score_stop(s.evidence, wanted)) for s in self.open if s.closed_by is None
            )
            if node is not None and node.provenance == NATIVE:
                node.provenance = CORRELATED
        if node is None:
            internal = event.name == "SubagentStop" and event.get("agent_type") == ""
            node = Draft(
                # Claude Code's own agents (prompt suggestions, /btw) stop with no type and no
                # start: no call of the conversation ran them, so they are no subagent of it.
                kind=EVENT if internal else SUBAGENT,
                name=event.name if internal else event.text("subagent_type") or event.text("agent_type") or "subagent",
                input=event_input(event) if internal else {},
                provenance=turn.placement if internal else ORPHAN,
                started_ns=at_ns if internal else None,
                id=agent_id,
                opened_by=event,
                evidence={"last_message": event.text("last_assistant_message")},
            )
            if internal:
                node.detail["internal_agent"] = True
            self._put(node, container)
            self.orphan_stops.append((node, container))
            named = self.named_by.get(agent_id) if agent_id is not None and not internal else None
            if named is not None:  # its call's result came first (its start was not captured)
                node.provenance = NATIVE
                self._put(node, named.children)
            if agent_id is not None and not internal:
                self.by_id.setdefault(agent_id, node)
                _adopt(turn, node)
        node.close(event, status, at_ns)
        if node.kind == EVENT:
            node.status = None  # an internal agent's stop: an event, which has no status
            return node
        node.detail.update({key: event.get(key) for key in _STOP_DETAIL if event.get(key) is not None})
        child = subagent_transcript(event.text("agent_transcript_path"))
        if child is not None:  # a Cursor event that comes later from this subagent's transcript
            self.by_id.setdefault(child, node)
        if node in self.open:
            self.open.remove(node)
        return node

    def pre_compact(self, container: list[Draft], event: HookEvent, at_ns: int, provenance: str) -> None:
        node = Draft(kind=EVENT, name=event.name, input=event_input(event), provenance=provenance, started_ns=at_ns)
        container.append(node)
        self.compactions.append(node)

    def post_compact(self, container: list[Draft], event: HookEvent, at_ns: int) -> None:
        """PostCompact nests under the one open PreCompact; never a guess between two."""
        end = Draft(kind=EVENT, name=event.name, input=event_input(event), provenance=ORPHAN, started_ns=at_ns, ended_ns=at_ns)
        waiting = [c for c in self.compactions if c.closed_by is None]
        if len(waiting) != 1:
            container.append(end)
            return
        start = waiting[0]
        start.closed_by, start.ended_ns = event, at_ns
        end.provenance = CORRELATED
        start.children.append(end)
        summary = event.text("compact_summary") or ""
        for orphan, holder in list(self.orphan_stops):
            message = orphan.evidence.get("last_message")
            if message and message in summary and orphan.provenance != NATIVE:  # this compaction's summariser
                orphan.provenance = CORRELATED
                self._put(orphan, start.children)
                self.orphan_stops.remove((orphan, holder))


def _adopt(turn: TurnDraft, node: Draft) -> None:
    """The calls fired inside the subagent ``node`` (their ``agent_id`` is its id) captured
    before it was known, under the turn: under it now (the hooks run asynchronously)."""
    early = [child for child in turn.nodes if child.scope == node.id and child is not node]
    for child in early:
        turn.nodes.remove(child)
    node.children[:0] = early


def _spawning_call(turn: TurnDraft, event: HookEvent, agent_type: str | None) -> tuple[Draft | None, str]:
    tool_call_id = event.text("tool_call_id")
    if tool_call_id is not None:  # Cursor names the Task call
        calls = [r for r in turn.requests if r.id == tool_call_id and r.name in _TASK_TOOLS]
        return (calls[0], NATIVE) if len(calls) == 1 else (None, NATIVE)
    if event.name != "SubagentStart":
        return None, NATIVE
    calls = [r for r in turn.in_flight() if r.name in _TASK_TOOLS and not r.holds(SUBAGENT)]
    best = unique_best((r, compare(_requested_type(r), agent_type, 10)) for r in calls)
    return best, CORRELATED


def subagent_transcript(path: str | None) -> str | None:
    """The id a subagent's transcript is named by: ``…/<parent>/subagents/<id>.jsonl``."""
    if not path:
        return None
    parts = [part for part in path.replace("\\", "/").split("/") if part]
    if len(parts) < 3 or parts[-2] != "subagents" or not parts[-1].endswith(".jsonl"):
        return None
    return parts[-1][: -len(".jsonl")] or None


def _result_agent_id(event: HookEvent) -> str | None:
    """``tool_response.agentId`` of a Claude Task result (an object; a JSON string is read too)."""
    result = event.get("tool_response")
    if isinstance(result, str) and '"agentId"' in result:
        import json

        try:
            result = json.loads(result)
        except ValueError:
            return None
    agent_id = result.get("agentId") if isinstance(result, dict) else None
    return agent_id if isinstance(agent_id, str) and agent_id else None


def _requested_type(request: Draft) -> Any:
    return request.input_fields().get("subagent_type")


def _score_stop(started: dict[str, Any], wanted: dict[str, Any]) -> int | None:
    kind = compare(started.get("type"), wanted.get("type"), 10)
    task = compare(started.get("task"), wanted.get("task"), 20)
    return None if kind is None or task is None else kind + task
