"""Streaming a transcript session (parent and subagents) into ``show``.

Transcripts have no timestamps on tool calls, so ordering cannot be rebuilt
later by time.  Instead a child's tool calls are streamed in right where the
parent's ``Task`` call that spawned it appears (``delegation``), and children
no ``Task`` explains follow the last turn.  A ``turn_ended`` marker with an
error status fails the last tool call of its turn: Cursor writes no results.
An ``error`` line goes to the collector's errors (``add_error``) as every
provider's do; it has no time, so the newest kept are the last read.  A child that only
``state.vscdb`` holds (``subcomposers``) is matched and placed the same way, its
conversation read from its bubbles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from agentscan.context import ScanContext
from agentscan.toolkit.detail import DetailCollector
from agentscan.detailmodel import ToolEvent
from agentscan.providers.cursor.delegation import ChildMatcher, Delegation
from agentscan.providers.cursor.discovery import TranscriptSet
from agentscan.providers.cursor.events import Event
from agentscan.providers.cursor.transcript import (
    TASK_TOOL,
    AssistantText,
    ErrorLine,
    ToolCall,
    TurnEnded,
    UserText,
    first_user_text,
    iter_events,
    task_call,
    tool_summary,
)

if TYPE_CHECKING:
    from agentscan.providers.cursor.ide import Turn
    from agentscan.providers.cursor.subcomposers import SubComposers


@dataclass
class TranscriptDetail:
    delegations: list[Delegation] = field(default_factory=list)


class _Turn:
    """Tool calls of the current turn, so a failed ``turn_ended`` can mark them."""

    def __init__(self, collector: DetailCollector, prefix: str) -> None:
        self.collector, self.prefix, self.count = collector, prefix, 0
        self.keys: list[str] = []

    def add(self, call: ToolCall, subagent: str | None) -> None:
        self.count += 1
        key = f"{self.prefix}#{self.count}"
        summary, paths = tool_summary(call.input)
        self.collector.add_tool(ToolEvent(name=call.name, summary=summary, paths=paths, subagent=subagent), key=key)
        self.keys.append(key)

    def end(self, failed: bool) -> None:
        # The turn stopped at its last call: the agent went on after each earlier one, so
        # those returned.  Cursor writes no results, so they stay ``unknown`` rather than
        # every call of the turn being shown as failed.
        if failed and self.keys:
            self.collector.finish_tool(self.keys[-1], status="error")
        self.keys = []


def _stream_child(child: str, path: Path | None, ctx: ScanContext, collector: DetailCollector,
                  composers: SubComposers | None) -> None:
    """A subagent's transcript, right after the call that started it: its task and
    replies go to the subagent pool, its calls and errors among the session's (marked as its)."""
    if path is None:  # a sub-composer known only to state.vscdb: from its bubbles
        if composers is not None:
            composers.stream(child, collector)
        return
    turn = _Turn(collector, f"sub:{child}")
    for event in iter_events(path, ctx):
        if isinstance(event, UserText):
            collector.add_subagent_prompt(child, event.text, event.timestamp)
        elif isinstance(event, AssistantText):
            collector.add_subagent_response(child, event.text)
        elif isinstance(event, ToolCall):
            turn.add(event, child)
        elif isinstance(event, TurnEnded):
            turn.end(event.failed)
        elif isinstance(event, ErrorLine):  # the subagent's file recorded it: marked as its
            collector.add_error(event.message, None, kind="error", subagent=child)


def _matcher(files: TranscriptSet, ctx: ScanContext, composer_texts: Mapping[str, str],
             runs: Mapping[str, Path] | None = None) -> ChildMatcher:
    """The children a ``Task`` call can claim: the transcript ones by their first user text,
    then those only ``state.vscdb`` holds by their first user bubble's (``composer_texts``).
    ``runs``: children read from a top-level transcript of their own (``stream_transcripts``)."""
    texts = {sub.agent_id: first_user_text(sub.path, ctx) for sub in files.subagents}
    texts.update({run: first_user_text(path, ctx) for run, path in (runs or {}).items()})
    return ChildMatcher({**composer_texts, **texts})


def stream_transcripts(files: TranscriptSet, ctx: ScanContext, collector: DetailCollector, *,
                       turns: Sequence[Turn] = (), composers: SubComposers | None = None,
                       runs: Mapping[str, Path] | None = None) -> TranscriptDetail:
    """``turns``: each prompt's turn in the bubbles, when they match (``ide.matched_turns``); a
    transcript records no model, so a reply is labelled only from there, never with the
    session's model (which may be one the user switched to later), and a prompt without a
    ``<timestamp>`` wrapper takes its user bubble's time when they say the same.
    ``composers``: the children only ``state.vscdb`` holds, placed as transcript ones are.
    ``runs``: children whose bubbles could not be read (the DB locked) streamed from a
    top-level transcript of their own, as a ``subagents/`` one is."""
    result = TranscriptDetail()
    child_paths = {sub.agent_id: sub.path for sub in files.subagents}
    child_paths.update(runs or {})
    matcher = _matcher(files, ctx, composers.first_texts() if composers is not None else {}, runs)
    prompt_number = 0
    turn = _Turn(collector, "main")
    for event in iter_events(files.main, ctx) if files.main else ():
        if isinstance(event, UserText):
            prompt_number += 1
            turn.end(False)
            matched = turns[prompt_number - 1] if prompt_number <= len(turns) else None
            when = event.timestamp or (matched.time_of(event.text) if matched is not None else None)
            collector.add_prompt(event.text, when)
        elif isinstance(event, AssistantText):
            model = turns[prompt_number - 1].model if 0 < prompt_number <= len(turns) else None
            collector.add_response(event.text, None, model)
        elif isinstance(event, ToolCall):
            turn.add(event, None)
            if event.name == TASK_TOOL:
                delegation = matcher.claim(task_call(event.input, prompt_number))
                if delegation is not None:
                    result.delegations.append(delegation)
                    _stream_child(delegation.subagent, child_paths.get(delegation.subagent), ctx, collector,
                                  composers)
        elif isinstance(event, TurnEnded):
            turn.end(event.failed)
        elif isinstance(event, ErrorLine):
            collector.add_error(event.message, None, kind="error")
    for delegation in matcher.leftovers(prompt_number):
        result.delegations.append(delegation)
        _stream_child(delegation.subagent, child_paths.get(delegation.subagent), ctx, collector, composers)
    return result


def delegated_kinds(files: TranscriptSet, ctx: ScanContext, composer_texts: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each child run's kind, as ``stream_transcripts`` finds its delegations (the ``Task``
    call that claimed it: ``delegation.ChildMatcher``), without the detail: what
    ``tokens --by agent`` asks (``Provider.subagent_types``).  ``composer_texts``: as
    ``stream_transcripts``' ``composers.first_texts()``."""
    matcher = _matcher(files, ctx, composer_texts or {})
    prompt_number = 0
    kinds: dict[str, str] = {}
    for event in iter_events(files.main, ctx) if files.main else ():
        if isinstance(event, UserText):
            prompt_number += 1
        elif isinstance(event, ToolCall) and event.name == TASK_TOOL:
            delegation = matcher.claim(task_call(event.input, prompt_number))
            if delegation is not None and delegation.agent_type:
                kinds[delegation.subagent] = delegation.agent_type
    return kinds


def stream_events(events: Iterable[Event], collector: DetailCollector, *, subagent: str | None = None) -> None:
    """A session read from messages (a CLI store, agentKv rows): no turns, no delegation.
    ``subagent``: a delegated run's (``subcomposers``): its prompts and replies under it."""
    count = 0
    prefix = "m" if subagent is None else f"sub:{subagent}:m"  # (a key apart from the parent's calls)
    for event in events:
        if isinstance(event, UserText):
            collector.add_prompt(event.text, event.timestamp, subagent=subagent)
        elif isinstance(event, AssistantText):
            collector.add_response(event.text, subagent=subagent)
        elif isinstance(event, ToolCall):
            count += 1
            summary, paths = tool_summary(event.input)
            collector.add_tool(ToolEvent(name=event.name, summary=summary, paths=paths, subagent=subagent),
                               key=f"{prefix}#{count}")
