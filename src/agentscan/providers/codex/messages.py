"""How each rollout line counts: a prompt, a reply, a tool call, a turn's start.

Codex writes the conversation twice: as events (``user_message``/``agent_message``; from
0.145 on, ``item_completed`` events carrying a ``UserMessage``/``AgentMessage`` item instead)
and as ``response_item`` messages (what the model saw, injected context included); some
builds write both kinds of event.  Counters take the larger of the two kinds of event and fall
back to the items where a build wrote neither, per stretch of lines (``add_kind``, ``source``),
so that nothing is counted twice and a thread resumed by another build counts every turn once.
"""

from __future__ import annotations

from typing import Any, Mapping

from agentscan.model import Counts
from agentscan.providers.codex.records import (NEWER_TOOL_ITEMS, TOOL_ITEMS, as_str, enveloped, event_prompt,
                                              image_blocks, image_prompt, item_prompt, item_response, message_text,
                                              payload_of)

#: ``line_kind`` of a tool call of ``records.NEWER_TOOL_ITEMS``: counted as any call (``add_kind``),
#: and noted apart (``newer_tools``) so that a row can tell a tally kept before they counted
NEWER_TOOL_CALL = "newer_tool_call"
#: every ``line_kind`` of a tool call
TOOL_KINDS = frozenset({"tool_call", NEWER_TOOL_CALL})


def _turn_item(payload: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    """The ``item`` of an ``event_msg/item_completed`` of type ``kind`` (codex-rs ``TurnItem``)."""
    item = payload.get("item")
    return item if isinstance(item, dict) and item.get("type") == kind else None


#: the text blocks of an ``item_completed`` turn item (``records.message_text``)
_ITEM_TEXT = ("text", "Text")


def turn_prompt(payload: Mapping[str, Any]) -> str | None:
    """The prompt of an ``item_completed`` ``UserMessage`` (0.145 and later, which write no
    ``user_message``): its text inputs joined as Codex joins them for that event (``UserMessageItem::
    message``).  Codex makes such an item only of what the user typed, never of injected context."""
    item = _turn_item(payload, "UserMessage")
    return None if item is None else image_prompt(message_text(item, _ITEM_TEXT, ""), image_blocks(item))


def turn_response(payload: Mapping[str, Any]) -> str | None:
    """The reply of an ``item_completed`` ``AgentMessage`` (0.145 and later; a legacy-mode
    rollout of some builds keeps one beside its ``agent_message`` events: ``source``); its text
    blocks, one reply."""
    item = _turn_item(payload, "AgentMessage")
    return None if item is None else as_str(message_text(item, _ITEM_TEXT))


def line_kind(record: Mapping[str, Any], payload: dict[str, Any] | None = None) -> str | None:
    """How a line counts: prompt/response (events or items), tool call, a turn's start
    (``turn``), or nothing.  ``payload``: the record's ``payload_of``, when the caller has it already.

    Codex writes the conversation twice: as events (``user_message``/``agent_message``, or from
    0.145 on ``item_completed`` ``UserMessage``/``AgentMessage`` items, ``turn_*``) and as
    ``response_item`` messages.  ``add_kind`` counts each turn once from them.
    """
    if "payload" not in record:
        record = enveloped(record)
        payload = None
    kind = record.get("type")
    if payload is None:
        payload = payload_of(record)
    ptype = payload.get("type")
    if kind == "event_msg":
        if ptype == "user_message" and event_prompt(payload) is not None:
            return "event_prompt"
        if ptype == "agent_message" and as_str(payload.get("message")):
            return "event_response"
        if ptype == "item_completed":
            if turn_prompt(payload) is not None:
                return "turn_prompt"
            if turn_response(payload) is not None:
                return "turn_response"
    elif kind == "response_item":
        if isinstance(ptype, str) and ptype in TOOL_ITEMS:  # a list would not even hash
            return NEWER_TOOL_CALL if ptype in NEWER_TOOL_ITEMS else "tool_call"
        if item_prompt(payload) is not None:
            return "item_prompt"
        if item_response(payload) is not None:
            return "item_response"
    elif kind == "turn_context":
        return "turn"
    return None


#: what ``add_kind`` keeps of a stretch still open: its prompts, then its replies, as legacy
#: events, as ``item_completed`` items and as ``response_item`` messages (``source``'s order)
PROMPT_KINDS = ("event_prompt", "turn_prompt", "item_prompt")
REPLY_KINDS = ("event_response", "turn_response", "item_response")
_OPEN = PROMPT_KINDS + REPLY_KINDS


def source(events: int, turn_items: int, items: int) -> int:
    """Which of a stretch's three records of its prompts (or of its replies) counts and is shown:
    0 the legacy events, 1 the ``item_completed`` items, 2 the ``response_item`` messages.

    The larger of the events and the ``item_completed`` items, not their sum: a build may write
    both for one message (codex-rs ``rollout/policy.rs`` keeps an ``AgentMessage`` item beside
    its ``agent_message`` events in a legacy-mode rollout; ``AgentMessageItem::as_legacy_events``
    makes one event per text block, so the events are never fewer).  The ``response_item``
    messages only where neither is there (builds that wrote no message events)."""
    if events and events >= turn_items:
        return 0
    return 1 if turn_items else 2


def ends_stretch(kind: str, replied: bool) -> bool:
    """Whether a line of ``kind`` ends the open stretch before it counts (``replied``: the open
    stretch holds a reply): a ``turn_context``, or a ``response_item`` prompt after a reply.

    The second is a new user turn in a stretch no ``turn_context`` ended: a build that wrote
    its prompt before its ``turn_context`` (0.39) resuming one whose stretches hold only
    items would put both prompts in one stretch, and the events of the newer would hide the
    older's items.  codex-rs records a prompt's ``response_item`` before it emits its event
    (``record_user_prompt_and_emit_turn_item``), so the prompt's event falls in the new
    stretch too.  (``task_started`` is no such mark: 0.39 did not write it.)"""
    return kind == "turn" or (kind == "item_prompt" and replied)


#: the kinds ``ends_stretch`` may end a stretch at (the others need not ask it)
_MAY_END = frozenset({"turn", "item_prompt"})


def add_kind(kinds: dict[str, int], kind: str) -> None:
    """Count one line of kind ``kind`` (``line_kind``) into the tally ``kinds``.

    The choice between the events and the items is made per stretch of lines (``ends_stretch``:
    between two ``turn_context`` lines, a turn or one of its model requests), not per file: a
    thread resumed by a newer build (or one by a build that wrote no events, resumed by one
    that does) has turns of both kinds, and each must count once (``source``).  A closed
    stretch's counts go to ``prompts`` and ``responses``; ``turn_items`` counts the
    ``item_completed`` messages (``TailSummary.turn_items``), ``newer_tools`` the calls of
    ``records.NEWER_TOOL_ITEMS`` (also in ``tool_call``: ``TailSummary.newer_tools``).  The
    tally stays a flat dict of counts: kept in the persistent cache and read on over appended
    lines (``fullcounts``).
    """
    if kind in _MAY_END and ends_stretch(kind, any(key in kinds for key in REPLY_KINDS)):
        if any(key in kinds for key in _OPEN):
            prompts, responses = _chosen(kinds)
            kinds["prompts"] = kinds.get("prompts", 0) + prompts
            kinds["responses"] = kinds.get("responses", 0) + responses
            for key in _OPEN:
                kinds.pop(key, None)
        if kind == "turn":
            return
    if kind in ("turn_prompt", "turn_response"):
        kinds["turn_items"] = kinds.get("turn_items", 0) + 1
    elif kind == NEWER_TOOL_CALL:
        kinds["newer_tools"] = kinds.get("newer_tools", 0) + 1
        kind = "tool_call"
    kinds[kind] = kinds.get(kind, 0) + 1


def _chosen(kinds: Mapping[str, int]) -> tuple[int, int]:
    """The open stretch's prompts and replies, each from its ``source``."""
    said = []
    for keys in (PROMPT_KINDS, REPLY_KINDS):
        counts = [kinds.get(key, 0) for key in keys]
        said.append(counts[source(*counts)])
    return said[0], said[1]


def counts_of(kinds: Mapping[str, int]) -> Counts:
    """Counts from an ``add_kind`` tally (one an older agentscan kept has a single stretch:
    the file's, as it was counted then, its ``item_completed`` messages among its events)."""
    prompts, responses = _chosen(kinds)
    return Counts(
        prompts=kinds.get("prompts", 0) + prompts,
        responses=kinds.get("responses", 0) + responses,
        tool_calls=kinds.get("tool_call", 0),
    )
