"""The conversation of an IDE-only composer, read from its bubbles.

The live conversation is ``composerData.fullConversationHeadersOnly`` (bubble
ids in order; edited or regenerated bubbles are left out), each fetched by
exact key, so memory holds one bubble at a time.  Legacy builds kept the
bubbles inline in ``composerData.conversation``.
"""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING, Any, Iterator

import orjson

from agentscan.toolkit import laxjson

from agentscan.providers.cursor.composer import ASSISTANT_BUBBLE, USER_BUBBLE, ComposerInfo, user_prompt
from agentscan.providers.cursor.prompt_text import collapse
from agentscan.providers.cursor.records import as_dict, as_list, as_str, model_name
from agentscan.providers.cursor.statedb import StateDb
from agentscan.providers.cursor.transcript import TITLE_CHARS, tool_summary
from agentscan.timeutil import parse_iso

if TYPE_CHECKING:
    # ``show``'s: a row (its first prompt) imports neither (the detail model makes 15 classes)
    from agentscan.detailmodel import ToolEvent
    from agentscan.toolkit.detail import DetailCollector

_OK = frozenset({"completed", "success", "succeeded", "ok", "done"})
_FAILED = frozenset({"error", "failed", "fail", "aborted"})
# The user declined the call (rejected it, or cancelled it at its confirmation): it did
# not fail, it was not let run (status ``denied``, as Claude's and Gemini's declined calls).
_DENIED = frozenset({"rejected", "cancelled", "canceled"})


def live_bubbles(info: ComposerInfo, db: StateDb) -> Iterator[dict[str, Any]]:
    order = db.conversation_order(info.composer_id)
    if order:
        for bubble_id in order:
            raw = db.bubble(info.composer_id, bubble_id)
            if raw is not None:
                yield raw
    elif info.inline_bubbles:
        for raw in as_list(as_dict(db.composer_raw(info.composer_id)).get("conversation")):
            if isinstance(raw, dict):
                yield raw


def first_prompt(info: ComposerInfo, db: StateDb) -> str | None:
    """A title for an unnamed composer: its first user text (first few bubbles only)."""
    for raw in islice(live_bubbles(info, db), 20):
        text = user_prompt(raw)
        if text is not None:
            return collapse(text, TITLE_CHARS)
    return None


def turn_models(info: ComposerInfo, db: StateDb, prompts: int) -> tuple[str | None, ...]:
    """For each turn of the live conversation (a user bubble and the assistant bubbles
    after it), the model its assistant bubbles name, when they name one and only one
    (not ``default``, auto); else ``None``.  What a transcript reply ran on, the
    transcript itself never says (``detail.stream_transcripts``).  Empty unless there
    are as many turns as the transcript has ``prompts``: matched in order, one for one."""
    turns: list[set[str]] = []
    for raw in live_bubbles(info, db):
        kind = raw.get("type")
        if kind == USER_BUBBLE and user_prompt(raw) is not None:  # as ``BubbleStats`` counts prompts
            turns.append(set())
        elif kind == ASSISTANT_BUBBLE and turns:
            named = as_str(as_dict(raw.get("modelInfo")).get("modelName"))
            if named is not None and named.strip():
                turns[-1].add(named.strip())
    if len(turns) != prompts:
        return ()
    return tuple(model_name(next(iter(names))) if len(names) == 1 else None for names in turns)


def _arguments(tool: dict[str, Any]) -> object:
    for key in ("params", "rawArgs"):
        value = tool.get(key)
        if isinstance(value, dict):
            return value
        if isinstance(value, str) and value.strip():
            try:
                return laxjson.loads(value)
            except orjson.JSONDecodeError:
                return value
    return None


def tool_event(tool: dict[str, Any], timestamp, subagent: str | None = None) -> ToolEvent:
    from agentscan.detailmodel import ToolEvent

    status = (as_str(tool.get("status")) or "").lower()
    summary, paths = tool_summary(_arguments(tool))
    return ToolEvent(
        name=as_str(tool.get("name")) or "tool",
        summary=summary,
        status="ok" if status in _OK else "error" if status in _FAILED else "denied" if status in _DENIED else "unknown",
        paths=paths,
        timestamp=timestamp,
        call_id=as_str(tool.get("toolCallId")),
        subagent=subagent,
    )


def stream_composer(info: ComposerInfo, db: StateDb, collector: DetailCollector) -> None:
    for raw in live_bubbles(info, db):
        when = parse_iso(raw.get("createdAt"))
        text = as_str(raw.get("text"))
        if raw.get("type") == USER_BUBBLE:
            prompt = user_prompt(raw)
            if prompt is not None:
                collector.add_prompt(prompt.strip(), when)
            continue
        if raw.get("type") != ASSISTANT_BUBBLE:
            continue
        if text:
            # This bubble's own model, never the composer's: ``modelConfig`` is the model
            # chosen *now*, and a turn before a switch ran another (``null``: unknown).
            collector.add_response(text.strip(), when, model_name(as_dict(raw.get("modelInfo")).get("modelName")))
        tool = as_dict(raw.get("toolFormerData"))
        if tool:
            collector.add_tool(tool_event(tool, when))
