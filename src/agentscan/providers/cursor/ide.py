"""The conversation of an IDE-only composer, read from its bubbles.

The live conversation is ``composerData.fullConversationHeadersOnly`` (bubble
ids in order; edited or regenerated bubbles are left out), each fetched by
exact key, so memory holds one bubble at a time.  Legacy builds kept the
bubbles inline in ``composerData.conversation``.
"""

from __future__ import annotations

import heapq
from datetime import datetime
from itertools import islice
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Iterable, Iterator, NamedTuple

import orjson

from agentscan.toolkit import laxjson

from agentscan.providers.cursor.composer import ASSISTANT_BUBBLE, USER_BUBBLE, ComposerInfo, user_prompt
from agentscan.providers.cursor.prompt_text import collapse, same_prompt
from agentscan.providers.cursor.records import as_dict, as_list, as_str, bubble_moment, model_name
from agentscan.providers.cursor.statedb import StateDb
from agentscan.providers.cursor.transcript import TITLE_CHARS, tool_summary

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


#: How many of a composer's first bubbles are read for its first user text (a title, a
#: child's task): it is the first bubble, or nearly; one a composer has none in (only
#: replies, or text kept in ``agentKv`` rows) is not read whole, one exact-key read a bubble.
FIRST_TEXT_BUBBLES = 20


def first_user_text(info: ComposerInfo, db: StateDb) -> str | None:
    """A composer's first user text, looked for in its first few bubbles only
    (``FIRST_TEXT_BUBBLES``): a title's, or a child's task its ``Task`` call is matched by."""
    for raw in islice(live_bubbles(info, db), FIRST_TEXT_BUBBLES):
        text = user_prompt(raw)
        if text is not None:
            return text
    return None


def first_prompt(info: ComposerInfo, db: StateDb) -> str | None:
    """A title for an unnamed composer: its first user text (first few bubbles only)."""
    text = first_user_text(info, db)
    return None if text is None else collapse(text, TITLE_CHARS)


class Turn(NamedTuple):
    """One turn of the live conversation (a user bubble and the assistant bubbles after it),
    as a transcript's prompt is matched to it (a named tuple: see ``cli.term.Terminal``)."""

    model: str | None  # the one model its assistant bubbles name (not ``default``), else None
    prompt: str  # its user bubble's text
    started: datetime | None  # its user bubble's time (``records.bubble_moment``)

    def time_of(self, typed: str) -> datetime | None:
        """The user bubble's time for the transcript prompt ``typed``, only when the two say
        the same (one holds the other): a count that agrees by chance gives no time."""
        return self.started if same_prompt(self.prompt, typed) else None


def matched_turns(info: ComposerInfo, db: StateDb, prompts: int) -> tuple[Turn, ...]:
    """Each turn of the live conversation: the model its assistant bubbles name, when they
    name one and only one (not ``default``, auto), and its user bubble's text and time.
    What a transcript reply ran on and when a prompt was sent (without a ``<timestamp>``
    wrapper), the transcript itself never says (``detail.stream_transcripts``).  Empty
    unless there are as many turns as the transcript has ``prompts``: matched in order,
    one for one."""
    turns: list[tuple[str, datetime | None, set[str]]] = []
    for raw in live_bubbles(info, db):
        kind = raw.get("type")
        prompt = user_prompt(raw) if kind == USER_BUBBLE else None
        if prompt is not None:  # as ``BubbleStats`` counts prompts
            turns.append((prompt, bubble_moment(raw), set()))
        elif kind == ASSISTANT_BUBBLE and turns:
            named = as_str(as_dict(raw.get("modelInfo")).get("modelName"))
            if named is not None and named.strip():
                turns[-1][2].add(named.strip())
    if len(turns) != prompts:
        return ()
    return tuple(Turn(model_name(next(iter(names))) if len(names) == 1 else None, prompt, started)
                 for prompt, started, names in turns)


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


class _Timed(NamedTuple):
    at: float  # the time it is merged by
    raw: dict[str, Any]
    when: datetime | None  # its own time (``records.bubble_moment``: its ``createdAt``, else ``timingInfo``)
    subagent: str | None


def _timed(info: ComposerInfo, db: StateDb, subagent: str | None, start: datetime | None = None) -> Iterator[_Timed]:
    """A composer's live bubbles, each with the time to merge it by: its own (``bubble_moment``), else
    the last one before it (a bubble with none stays after the one read before it), else
    ``start`` (a child's composer's ``createdAt``; the parent's first bubbles, before any).
    A child with no ``start`` holds its first bubbles with no time back to its first timed
    one (before the parent's first prompt is no place for them); none timed: after the
    parent's, as a child that cannot be placed goes (``SubComposers.stream_rest``)."""
    at = float("-inf") if start is None else start.timestamp()
    held: list[dict[str, Any]] = []
    holding = start is None and subagent is not None
    for raw in live_bubbles(info, db):
        when = bubble_moment(raw)
        if holding:
            if when is None:
                held.append(raw)
                continue
            holding = False
            yield from (_Timed(when.timestamp(), early, None, subagent) for early in held)
            held = []
        at = when.timestamp() if when is not None else at
        yield _Timed(at, raw, when, subagent)
    yield from (_Timed(float("inf"), early, None, subagent) for early in held)


def _stream_bubble(raw: dict[str, Any], when: datetime | None, collector: DetailCollector,
                   subagent: str | None) -> None:
    """One bubble (``when``: its time, ``records.bubble_moment``): the session's own, or ``subagent``'s (its
    prompts and replies under it, its calls marked as its)."""
    if raw.get("type") == USER_BUBBLE:
        prompt = user_prompt(raw)
        if prompt is not None:
            collector.add_prompt(prompt.strip(), when, subagent=subagent)
        return
    if raw.get("type") != ASSISTANT_BUBBLE:
        return
    text = as_str(raw.get("text"))
    if text:
        # This bubble's own model, never the composer's: ``modelConfig`` is the model
        # chosen *now*, and a turn before a switch ran another (``null``: unknown).
        model = model_name(as_dict(raw.get("modelInfo")).get("modelName"))
        collector.add_response(text.strip(), when, model, subagent=subagent)
    tool = as_dict(raw.get("toolFormerData"))
    if tool:
        collector.add_tool(tool_event(tool, when, subagent))


def stream_composer(info: ComposerInfo, db: StateDb, collector: DetailCollector, *, subagent: str | None = None,
                    children: Iterable[ComposerInfo] = ()) -> None:
    """A composer's live conversation, ``subagent``'s when it is a delegated run.  ``children``:
    sub-composers shown with it (``subcomposers``), their bubbles merged in by time, so a
    child's calls stand among the parent's where they ran (a child's bubble with no time, at
    its composer's ``createdAt``: each has one, ``SubComposers.take_timed``); one composer
    at a time is read by exact key, one bubble of each in memory."""
    streams = [_timed(info, db, subagent), *(_timed(child, db, child.composer_id, child.created) for child in children)]
    for _, raw, when, run in heapq.merge(*streams, key=itemgetter(0)) if len(streams) > 1 else streams[0]:
        _stream_bubble(raw, when, collector, run)
