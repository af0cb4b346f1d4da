"""Feeding a replayed Gemini chat into the bounded ``show`` detail.

The replay (``chatlog``) kept only facts; here the newest messages that
``show`` can keep are re-read in full and streamed, oldest first, into the
``DetailCollector``.  Older messages are only counted as dropped, so the
text of a huge chat is never held in memory.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Sequence

import orjson

from agentscan.bounds import Bounds
from agentscan.context import ScanContext
from agentscan.toolkit.detail import DetailCollector
from agentscan.toolkit.errortext import error_line
from agentscan.toolkit.newesterrors import ERRORS_KEPT
from agentscan.detailmodel import ToolEvent
from agentscan.providers.gemini.chatlog import Conversation, MessageFacts, fetch_messages
from agentscan.providers.gemini.logs import LoggedPrompt
from agentscan.providers.gemini.records import as_dict, as_str, prompt_text, response_text, tool_status
from agentscan.timeutil import parse_iso

_PATH_KEYS = ("file_path", "absolute_path", "dir_path", "path")
# "report": what a subagent answers through its complete_task call.  A search's pattern
# before the folder it searched (``grep_search``, ``glob``: the folder is among ``paths``).
_SUMMARY_KEYS = ("command", "pattern", *_PATH_KEYS, "url", "query", "prompt", "report")
# Stands in for a tool call older than the kept window: evicted by newer ones.
_OLDER_TOOL = ToolEvent(name="", summary="")


def tool_summary(call: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """A short, readable summary of a tool call and the paths it touched."""
    args = as_dict(call.get("args"))
    paths = tuple(args[key] for key in _PATH_KEYS if isinstance(args.get(key), str) and args[key])
    listed = args.get("paths")
    if isinstance(listed, list):
        paths += tuple(p for p in listed if isinstance(p, str) and p)
    for key in _SUMMARY_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip(), paths
    # Recent builds record a call-specific description ("Writing to README.md").
    description = as_str(call.get("description"))
    if description:
        return description.strip(), paths
    try:
        return orjson.dumps(args, option=orjson.OPT_SORT_KEYS).decode()[:400], paths
    except TypeError:
        return as_str(call.get("name")) or "tool", paths


def tool_event(call: dict[str, Any], fallback: datetime | None, subagent: str | None) -> ToolEvent:
    name = as_str(call.get("name")) or as_str(call.get("displayName")) or "tool"
    summary, paths = tool_summary(call)
    status = tool_status(call.get("status"))
    return ToolEvent(
        name=name,
        summary=summary,
        status=status,
        paths=paths,
        timestamp=parse_iso(call.get("timestamp")) or fallback,
        call_id=as_str(call.get("id")),
        subagent=subagent,
        error=call_error(call) if status == "error" else None,
    )


def call_error(call: dict[str, Any]) -> str | None:
    """A failed call's error: its result's ``functionResponse`` ``response`` (``error``, as the
    CLI answers a call that failed, else ``output``), else its ``resultDisplay``; one line."""
    result = call.get("result")
    for part in result if isinstance(result, list) else ():
        response = as_dict(as_dict(as_dict(part).get("functionResponse")).get("response"))
        text = error_line(response.get("error")) or error_line(response.get("output"))
        if text:
            return text
    return error_line(call.get("resultDisplay"))


#: the ``info`` notice the CLI records when the user cancels a request (Esc)
_INTERRUPTED = frozenset({"Request cancelled."})


def _window(live: list[MessageFacts], bounds: Bounds) -> set[str]:
    """Ids of the newest messages whose prompts, replies, tools or errors ``show`` can keep, and
    of every ``info`` notice (the user's interruptions are counted, all of them)."""
    wanted: set[str] = set()
    prompts = responses = tools = errors = 0
    for facts in reversed(live):
        take = False
        if facts.kind == "error" and errors < ERRORS_KEPT:
            errors, take = errors + 1, True
        # Every notice (which are interruptions: read to tell), not the newest alone: the card
        # counts them all (the collector keeps the newest ``INTERRUPTIONS_KEPT``).
        if facts.kind == "info":
            take = True
        if facts.prompt is not None and prompts < bounds.prompts:
            prompts, take = prompts + 1, True
        if facts.has_text and responses < bounds.responses:
            responses, take = responses + 1, True
        if facts.tool_calls and tools < bounds.tools:
            tools, take = tools + facts.tool_calls, True
        if take:
            wanted.add(facts.id)
    return wanted


def stream_chat(
    conversation: Conversation,
    collector: DetailCollector,
    ctx: ScanContext,
    *,
    subagent: str | None = None,
    logged: Sequence[LoggedPrompt] = (),
    voice: DetailCollector | None = None,
    commands: Sequence[LoggedPrompt] = (),
) -> None:
    """Feed one chat's live conversation.

    Prompts and replies of a subagent (``subagent``: its id, ``collector``
    a ``child()``) are its own exchange with the model, not the session's
    conversation: they go to the subagent pool; unless the parent chat is gone,
    when they are all there is to show: then they go to ``voice`` (the session's
    collector) as the session's own.  ``commands``: the slash commands Gemini CLI ran itself
    in a chat that has prompts of its own (``logs.json`` alone holds them), each marked
    before the first message later than it (``toolkit.localcommands`` keeps those the kept
    messages reach, as for Claude's).
    """
    live = conversation.messages
    wanted = _window(live, collector.bounds)
    records = fetch_messages(conversation, [facts for facts in live if facts.id in wanted], ctx)
    if subagent is None and logged and not any(facts.prompt is not None for facts in live):
        for prompt in logged:
            if prompt.local:  # (no prompt: ``row.build_row``; ``--full`` marks it)
                collector.add_local_command(prompt.text, prompt.timestamp, by="Gemini CLI")
            else:
                collector.add_prompt(prompt.text, prompt.timestamp)
    pending = list(commands)
    for facts in live:
        if pending and facts.timestamp is not None:
            # (in logs.json's order: one of no time goes with the next one that has one)
            while pending and (pending[0].timestamp is None or pending[0].timestamp <= facts.timestamp):
                command = pending.pop(0)
                collector.add_local_command(command.text, command.timestamp, by="Gemini CLI")
        record = records.get(facts.id)
        older = facts.id not in wanted
        if older and subagent is None and (facts.prompt is not None or facts.has_text):
            collector.passed()  # (a command before it is older than what is kept)
        if facts.kind == "error" and record is not None:
            # What the CLI printed of a failed request (``[API Error: …]``): ``show``'s errors.
            collector.add_error(response_text(record) or "error", facts.timestamp, kind="error", subagent=subagent)
            continue
        if facts.kind == "info" and record is not None:
            notice = response_text(record)
            if notice in _INTERRUPTED:  # the user pressed Esc: the CLI's notice of it
                collector.add_interruption(notice.rstrip("."), facts.timestamp, subagent=subagent)
            continue
        if facts.prompt is not None:
            text = prompt_text(record) if record else None
            if text and (subagent is None or voice is not None):
                (voice or collector).add_prompt(text, facts.timestamp)
            elif text and subagent is not None:
                collector.add_subagent_prompt(subagent, text, facts.timestamp)
            elif older:
                (voice or collector).count_dropped("prompts", subagent=None if voice else subagent)
        if facts.has_text:
            if record is not None and (subagent is None or voice is not None):
                (voice or collector).add_response(response_text(record), facts.timestamp, facts.model)
            elif record is not None and subagent is not None:
                collector.add_subagent_response(subagent, response_text(record), facts.timestamp, facts.model)
            elif older:
                (voice or collector).count_dropped("responses", subagent=None if voice else subagent)
        if facts.tool_calls:
            calls = record.get("toolCalls") if record else None
            if isinstance(calls, list):
                for call in calls:
                    if isinstance(call, dict):
                        collector.add_tool(tool_event(call, facts.timestamp, subagent))
            elif older:
                for _ in range(facts.tool_calls):
                    collector.add_tool(_OLDER_TOOL)
    for command in pending:  # (after the last message: a closing ``/quit``)
        collector.add_local_command(command.text, command.timestamp, by="Gemini CLI")
