"""What a Claude transcript's records say of its row, record by record: a reply's model, text
and tool calls, a prompt, a subagent's kind and its result, a prompt typed while a reply went
on.  ``row.summarize``'s general loop and ``halfrow.lean_loop`` (a huge transcript's halves)
both note records by these, so that the two passes keep one set of rules; ``sidechains``
notes an inline run's records by ``NOTES``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentscan.providers.claude.records import (
    SYNTHETIC_MODELS,
    as_str,
    content_blocks,
    message_of,
    real_prompt_text,
)
from agentscan.providers.claude.queuedprompts import queued_prompt_text
from agentscan.providers.claude.sidechains import note_inline_result
from agentscan.providers.claude.titles import TITLE_CHARS, note_command, note_prompt

if TYPE_CHECKING:
    from agentscan.providers.claude.filesummary import FileSummary
    from agentscan.providers.claude.showfacts import ShowFacts

#: a second half's subagent results listed (``FileSummary.results``); one more says there were more
MAX_RESULTS = 4096


def note_assistant(summary: FileSummary, record: dict, pending_tasks: dict[str, str], facts: ShowFacts | None) -> None:
    if record.get("isApiErrorMessage") is True:  # (``errorrecords.is_api_error``, inline: every reply asks)
        # Claude Code's note of a failed request (``API Error: …``, model ``<synthetic>``): an
        # error ``show`` lists, no reply and no model's message.
        if facts is not None:
            facts.api_error(record)
        return
    message = record.get("message")
    if not isinstance(message, dict):  # (``records.message_of``, inline, as the two ``as_str`` below)
        message = {}
    model = message.get("model")
    if model.__class__ is str and model in SYNTHETIC_MODELS:  # (``errorrecords.is_local_reply``, inline)
        # Claude Code's own words ("No response requested."): no model's reply.
        if facts is not None:
            facts.end_reply()
        return
    own_id = message.get("id")
    if not (isinstance(own_id, str) and own_id):
        own_id = as_str(record.get("uuid"))
    message_id = own_id or f"#{summary.records}"
    content = message.get("content")
    # A list of blocks is read where it is (the odd item that is no block skipped below),
    # not copied into a new list for every record of the pass: ``show``'s facts take only
    # blocks, so for them only a list of one block (Claude Code writes a record a block) is.
    blocks = content if content.__class__ is list and (facts is None or (
        len(content) == 1 and content[0].__class__ is dict)) else content_blocks(message)
    if facts is not None:
        facts.assistant(own_id, blocks)
    # (``RecentIds.__contains__``, inline: its set, asked of every reply's record.)
    if isinstance(model, str) and model and message_id not in summary.model_messages._members:
        summary.model_messages.add(message_id)
        summary.models[model] += 1
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        # (``text.strip()`` is non-empty exactly when ``not text.isspace()`` for a non-empty
        # text: the same test of each character, without copying every reply's text.)
        if kind == "text" and isinstance(text := block.get("text"), str) and text and not text.isspace():
            if message_id not in summary.text_messages._members:
                summary.text_messages.add(message_id)
                summary.responses += 1
        elif kind == "tool_use":
            summary.tool_calls += 1
            if block.get("name") in TASK_NAMES:  # (``note_task``'s first look, inline: every call asks)
                note_task(block, pending_tasks)


#: the tools that start a subagent
TASK_NAMES = ("Task", "Agent")


def note_task(block: dict, pending_tasks: dict[str, str]) -> None:
    """A ``Task``/``Agent`` call's kind of subagent, until its result names the run."""
    if block.get("name") in TASK_NAMES and isinstance(block.get("id"), str):
        agent_type = as_str((block.get("input") or {}).get("subagent_type")) if isinstance(block.get("input"), dict) else None
        pending_tasks[block["id"]] = agent_type or "general-purpose"


def note_copied_tasks(summary: FileSummary, record: dict, pending_tasks: dict[str, str]) -> None:
    """What a resumed session's copy of an earlier record says of the runs it started (their
    kinds, for a copied inline run's calls: ``sidechains``; the runs its progress records
    name: ``copied_runs``), counted as none of its calls."""
    kind = record.get("type")
    if kind == "assistant":
        for block in content_blocks(message_of(record)):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                note_task(block, pending_tasks)
    elif kind == "user" and real_prompt_text(record) is None:
        note_result(summary, record, pending_tasks)
    elif kind == "progress":
        # A run of the session copied, its calls copied with it: the run is that session's
        # where it is found (a row says so once credited: ``scan.creditedrows``).
        data = record.get("data")
        agent = as_str(data.get("agentId")) if data.__class__ is dict else None
        if agent is not None:
            summary.copied_runs[agent] = record["sessionId"]


def note_user(summary: FileSummary, record: dict, pending_tasks: dict[str, str], facts: ShowFacts | None) -> None:
    text = real_prompt_text(record)
    if text is not None:
        if facts is not None:
            facts.prompt(text, record=record)
        summary.prompts += 1
        # Once a prompt of words names the file, no later prompt can (an image's or a bare command's
        # only when none does: ``titles.choose_title``), so a long session's thousands go unlooked at.
        if summary.first_prompt is None:
            note_prompt(summary, text)
        return
    if facts is not None:
        facts.result(record)  # (a ``TaskCreate``'s result: its task's id, for ``show``'s plan)
    if summary.first_prompt is None:
        note_command(summary, record)
    note_result(summary, record, pending_tasks)


def note_result(summary: FileSummary, record: dict, pending_tasks: dict[str, str]) -> None:
    # A Task/Agent result names the subagent it ran: remember its type.
    result = record.get("toolUseResult")
    if summary.inline and isinstance(result, dict) and "agentId" not in result:
        note_inline_result(summary, record, result, pending_tasks, TITLE_CHARS)
    if isinstance(result, dict) and isinstance(result.get("agentId"), str):
        for block in content_blocks(message_of(record)):
            tool_id = block.get("tool_use_id")
            if block.get("type") != "tool_result" or not isinstance(tool_id, str):
                continue
            if summary.results is not None and len(summary.results) <= MAX_RESULTS:
                summary.results.append((result["agentId"], tool_id, pending_tasks.get(tool_id)))
            if tool_id in pending_tasks:
                summary.task_types[result["agentId"]] = pending_tasks[tool_id]
                summary.task_calls[result["agentId"]] = tool_id


def note_queued_prompt(summary: FileSummary, record: dict, facts: ShowFacts | None) -> None:
    """A prompt typed while a reply went on (``queuedprompts.queued_prompt_text``): a prompt, but
    never the title (the turn it was folded into began with a prompt of its own)."""
    text = queued_prompt_text(record)
    if text is not None:
        summary.prompts += 1
        if facts is not None:
            facts.prompt(text, folded=True)


#: how an inline run's records are noted: as any transcript's (``sidechains.note_inline``)
NOTES = (note_assistant, note_user)
