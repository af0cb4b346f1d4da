"""Tool calls: a request (pre event) and the completion that closes it.

A completion (postToolUse, postToolUseFailure, Claude's PermissionDenied)
looks only at the turn's *in-flight* requests, wherever they sit:

1. keep those with the same ``tool_use_id`` and the same ``tool_name``;
2. exactly one -> it is the pair (provenance ``native``), even if the
   inputs differ (some tools echo extra fields in the post);
3. several (Cursor reuses one id across a batch) -> the unique best by
   canonical ``tool_input`` (a different input rules a candidate out) is
   the pair (``correlated``); a tie leaves the completion an orphan under
   the turn.  Arrival order never decides.
"""

from __future__ import annotations

import json
from typing import Any

from agentscan.hooks.draft import Draft, TurnDraft
from agentscan.hooks.evidence import canonical, compare, unique_best
from agentscan.hooks.model import (
    ABORTED,
    CORRELATED,
    DENIED,
    ERROR,
    EVENT,
    NATIVE,
    OK,
    ORPHAN,
    TIMEOUT,
    TOOL,
    HookEvent,
)

_FAILURES = ("postToolUseFailure", "PostToolUseFailure")
_FAILURE_TYPES = {"timeout": TIMEOUT, "permission_denied": DENIED, "error": ERROR}


def _tool_draft(event: HookEvent, provenance: str, started_ns: int | None, **extra: Any) -> Draft:
    """A tool node named by the event's own tool fields (a request, or an orphan completion)."""
    return Draft(
        kind=TOOL,
        name=event.text("tool_name") or "?",
        input=event.get("tool_input"),
        provenance=provenance,
        started_ns=started_ns,
        id=event.text("tool_use_id"),
        opened_by=event,
        **extra,
    )


def open_request(turn: TurnDraft, container: list[Draft], event: HookEvent, at_ns: int, provenance: str) -> Draft:
    draft = _tool_draft(event, provenance, at_ns, request=True, scope=event.text("agent_id"))
    container.append(draft)
    turn.add_request(draft)
    return draft


def complete(turn: TurnDraft, event: HookEvent, at_ns: int) -> Draft | None:
    """Close the request this completion belongs to; an orphan node when there is none."""
    request, provenance = find_request(turn, event)
    status = completion_status(event)
    if request is None:
        orphan = _tool_draft(event, ORPHAN, None)
        orphan.close(event, status, at_ns)
        orphan.detail.update(completion_detail(event))
        turn.nodes.append(orphan)
        return None
    request.close(event, status, at_ns)
    request.provenance = provenance if request.provenance == NATIVE else request.provenance
    request.detail.update(completion_detail(event))
    if status != OK:
        _clear_pending_inner(turn, request, status)
    return request


def find_request(turn: TurnDraft, event: HookEvent) -> tuple[Draft | None, str]:
    name = event.text("tool_name")
    tool_use_id = event.text("tool_use_id")
    scope = event.text("agent_id")
    candidates = [r for r in turn.in_flight() if r.name == name and r.scope == scope]
    if tool_use_id is not None:
        same_id = [r for r in candidates if r.id == tool_use_id]
        if len(same_id) == 1:
            return same_id[0], NATIVE
        # a different id rules a request out; one that never had an id is still a candidate
        candidates = same_id or [r for r in candidates if r.id is None]
    if not candidates:
        return None, ORPHAN
    wanted = canonical(event.get("tool_input"))
    scored = [(r, compare(canonical(r.input), wanted, 100)) for r in candidates]
    best = unique_best(scored)
    return (best, CORRELATED) if best is not None else (None, ORPHAN)


def completion_status(event: HookEvent) -> str:
    if event.name == "PermissionDenied":
        return DENIED
    if event.name in _FAILURES:
        if event.get("is_interrupt") is True:
            return ABORTED
        return _FAILURE_TYPES.get(event.get("failure_type"), ERROR)
    return OK


def completion_detail(event: HookEvent) -> dict[str, Any]:
    detail: dict[str, Any] = {}
    error = event.get("error_message", event.get("error", event.get("reason")))
    if isinstance(error, str) and error and event.name != "postToolUse":
        detail["error"] = error
    if isinstance(event.get("failure_type"), str):
        detail["failure_type"] = event.get("failure_type")
    exit_code = _exit_code(event.get("tool_output"))
    if exit_code is not None:
        detail["exit_code"] = exit_code
    return detail


def _exit_code(output: Any) -> int | None:
    """Cursor's Shell ``tool_output`` is a JSON string like ``{"output": …, "exitCode": 0}``."""
    if isinstance(output, str) and output.startswith("{") and '"exitCode"' in output:
        try:
            output = json.loads(output)
        except ValueError:
            return None
    value = output.get("exitCode") if isinstance(output, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _clear_pending_inner(turn: TurnDraft, request: Draft, status: str) -> None:
    """A failed call's before… must not catch its retry's after…: drop it from the queue."""
    for waiting in turn.open_inner.values():
        for child in [c for c in request.children if c in waiting]:
            waiting.remove(child)
            child.status = child.status or status


def attach_permission_request(turn: TurnDraft, container: list[Draft], event: HookEvent, at_ns: int) -> None:
    """Claude's PermissionRequest has no id: the unique in-flight call with its name and input."""
    node = Draft(kind=EVENT, name=event.name, input=event_input(event), provenance=ORPHAN, started_ns=at_ns, ended_ns=at_ns)
    name, wanted, scope = event.text("tool_name"), canonical(event.get("tool_input")), event.text("agent_id")
    candidates = [r for r in turn.in_flight() if r.name == name and r.scope == scope]
    owner = unique_best((r, compare(canonical(r.input), wanted, 100)) for r in candidates)
    if owner is None:
        container.append(node)
    else:
        node.provenance = CORRELATED
        owner.children.append(node)


# Fields every payload of an agent carries: left out of an event node's input.
COMMON_FIELDS = frozenset({
    "hook_event_name", "conversation_id", "generation_id", "session_id", "prompt_id", "model",
    "model_id", "model_params", "cursor_version", "workspace_roots", "user_email",
    "transcript_path", "cwd", "permission_mode", "effort", "scratchpad_dir", "agent_id", "agent_type",
})


def event_input(event: HookEvent) -> dict[str, Any]:
    return {key: value for key, value in event.payload.items() if key not in COMMON_FIELDS}
