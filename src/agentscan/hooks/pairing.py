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

Claude Code runs its hooks asynchronously, so a fast call's completion can be
captured before its request.  A completion that finds no candidate at all
waits, as an orphan, for a request that pairs with it by the same rules seen
from the other side; that request adopts it: one call, from the request's
time to the completion's.  Pairing without an equal id (by input alone) is
only done within ``REORDER_WINDOW_NS``: the hooks' start-up jitter, not an
older completion whose request was lost.
"""

from __future__ import annotations

import json
from typing import Any

from agentscan.hooks.draft import MS, OPENER_KEPT, Draft, TurnDraft, input_key, payload_free
from agentscan.hooks.evidence import compare, unique_best
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
#: how much earlier than its request a completion can be captured and still pair by input
#: alone (no equal id): hook processes start within this of each other
REORDER_WINDOW_NS = 2_000_000_000
#: early completions a turn keeps waiting for their requests (the newest): hooks reorder
#: within milliseconds, so an older one's request was lost and it stays an orphan
EARLY_KEPT = 64
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
        opened_by=payload_free(event, OPENER_KEPT),
        **extra,
    )


def open_request(
    turn: TurnDraft, container: list[Draft], event: HookEvent, at_ns: int, provenance: str, early: list[Draft],
) -> Draft:
    """A new in-flight call, or the call an ``early`` completion (captured first) already closed."""
    waiting = [c for c in early if _may_be_early(c, event, at_ns)]
    done, paired_by, _ = _pair(waiting, event)
    if done is not None:
        return _adopt(turn, container, early, done, event, at_ns, provenance, paired_by)
    draft = _tool_draft(event, provenance, at_ns, request=True, scope=event.text("agent_id"))
    container.append(draft)
    turn.add_request(draft)
    return draft


def complete(turn: TurnDraft, event: HookEvent, at_ns: int, early: list[Draft]) -> Draft:
    """Close the request this completion belongs to; an orphan node when there is none.
    Returns the node closed (the request, or that orphan).

    An orphan that no in-flight request could have paired with goes on ``early``: its
    request may still come (``open_request``)."""
    request, provenance, had_candidates = _pair(turn.in_flight(), event)
    status = completion_status(event)
    if request is None:
        orphan = _tool_draft(event, ORPHAN, None, scope=event.text("agent_id"))
        orphan.opened_by = payload_free(event)  # (its request, should it come, takes the place: ``_adopt``)
        orphan.close(event, status, at_ns)
        orphan.detail.update(completion_detail(event))
        turn.nodes.append(orphan)
        if not had_candidates:
            early.append(orphan)
            if len(early) > EARLY_KEPT:  # a turn of lost requests: every request scans these
                del early[0]
        return orphan
    request.close(event, status, at_ns)
    request.provenance = provenance if request.provenance == NATIVE else request.provenance
    request.detail.update(completion_detail(event))
    if status != OK:
        _clear_pending_inner(turn, request, status)
    return request


def _pair(pool: list[Draft], event: HookEvent) -> tuple[Draft | None, str, bool]:
    """The draft of ``pool`` that ``event`` pairs with (the module's rules), its provenance,
    and whether any draft was a candidate (a tie is not the same as nothing to pair with)."""
    name = event.text("tool_name")
    tool_use_id = event.text("tool_use_id")
    scope = event.text("agent_id")
    candidates = [r for r in pool if r.name == name and r.scope == scope]
    if tool_use_id is not None:
        same_id = [r for r in candidates if r.id == tool_use_id]
        if len(same_id) == 1:
            return same_id[0], NATIVE, True
        # a different id rules a draft out; one that never had an id is still a candidate
        candidates = same_id or [r for r in candidates if r.id is None]
    if not candidates:
        return None, ORPHAN, False
    wanted = input_key(event.get("tool_input"))
    scored = [(r, compare(r.input_key(), wanted, 100)) for r in candidates]
    best = unique_best(scored)
    return (best, CORRELATED, True) if best is not None else (None, ORPHAN, True)


def _may_be_early(completion: Draft, request: HookEvent, at_ns: int) -> bool:
    """Whether an early completion may still pair with ``request``: an equal id always; by input
    alone only when it was captured within the hooks' start-up jitter of the request."""
    if completion.id is not None and completion.id == request.text("tool_use_id"):
        return True
    return completion.ended_ns is not None and at_ns - completion.ended_ns <= REORDER_WINDOW_NS


def _adopt(
    turn: TurnDraft, container: list[Draft], early: list[Draft], done: Draft, event: HookEvent, at_ns: int,
    placement: str, paired_by: str,
) -> Draft:
    """The request ``event`` becomes the call ``done`` closed: listed where the request is,
    started when it was captured."""
    early.remove(done)
    turn.nodes.remove(done)
    done.request, done.opened_by = True, payload_free(event, OPENER_KEPT)
    done.set_input(event.get("tool_input"))
    done.scope = event.text("agent_id")
    done.started_ns = at_ns
    if done.ended_ns is None or done.ended_ns < at_ns:
        # Captured before its request: the call took less than the hooks' start-up jitter.
        # The agent's own measure says how long, when it sent one; else it ends as it starts.
        duration = done.detail.get("duration_ms")
        done.ended_ns = at_ns + (int(duration * MS) if isinstance(duration, (int, float)) else 0)
    done.provenance = paired_by if placement == NATIVE else placement
    container.append(done)
    turn.add_request(done)
    return done


def completion_status(event: HookEvent) -> str:
    if event.name == "PermissionDenied":
        return DENIED
    if event.name in _FAILURES:
        if event.get("is_interrupt") is True:
            return ABORTED
        return _FAILURE_TYPES.get(event.get("failure_type"), ERROR)
    if event.name == GEMINI_COMPLETION and _gemini_error(event) is not None:
        return ERROR
    return OK


#: Gemini CLI's one completion, failed or not: its ``tool_response`` holds an ``error`` when it failed
GEMINI_COMPLETION = "AfterTool"


def _gemini_error(event: HookEvent) -> str | None:
    """The error of a Gemini CLI ``AfterTool`` (``tool_response.error``: a message, or an object
    with one), ``None`` when the call succeeded."""
    response = event.get("tool_response")
    error = response.get("error") if isinstance(response, dict) else None
    if isinstance(error, dict):
        error = error.get("message") or "error"
    return str(error) if error not in (None, "", False) else None


def completion_detail(event: HookEvent) -> dict[str, Any]:
    detail: dict[str, Any] = {}
    error = event.get("error_message", event.get("error", event.get("reason")))
    if event.name == GEMINI_COMPLETION:
        error = _gemini_error(event)
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
    name, wanted, scope = event.text("tool_name"), input_key(event.get("tool_input")), event.text("agent_id")
    candidates = [r for r in turn.in_flight() if r.name == name and r.scope == scope]
    owner = unique_best((r, compare(r.input_key(), wanted, 100)) for r in candidates)
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
