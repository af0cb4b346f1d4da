"""The row pass of a huge main transcript's halves (``halves``, ``halfpass``), specialised.

``row.summarize`` serves every reader of a Claude file: with an observer (``show``'s
detail), a resumed session's copies at its head, a subagent's file, no totals.  The halves
of a huge transcript's ``show`` (and of its row, for ``list``) need none of that, and their
pass is the whole command's CPU: here the record's ``type`` is read once and dispatched on,
and a reply's record is read once for its row counts and ``show``'s facts together (what
``recordnotes.note_assistant`` and ``ShowFacts.assistant`` each read of it), a tool's result is
told apart by its first block before any rule asks more (``summarize`` hands its pass to
``lean_loop`` when the halves ask, by its ``loop``).  Every rule is ``row``'s, in the
same order where order matters (a bad value told, a warning said): only the frames and the
lookups done twice are gone.  ``tests/test_half_row_pass_pass58.py`` holds it to
``row.summarize``'s general loop on every rule: change one, change the other.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from agentscan import progress as reporting
from agentscan.providers.claude.records import AWAY_SUMMARY, SYNTHETIC_MODELS, as_str, content_blocks, real_prompt_text
from agentscan.providers.claude.recordnotes import NOTES, TASK_NAMES, note_queued_prompt, note_result, note_task
from agentscan.providers.claude.seenuuids import copied_calls, copies_before
from agentscan.providers.claude.sidechains import note_inline
from agentscan.providers.claude.titles import note_command, note_leaf, note_prompt, note_summary
from agentscan.providers.claude.usage import Advisors, call_of
from agentscan.providers.claude.filesummary import RecentIds
from agentscan.timeutil import EARLIEST, LATEST, parse_iso
from agentscan.toolkit.jsonl import iter_json_records

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.providers.claude.filesummary import FileSummary
    from agentscan.providers.claude.showfacts import ShowFacts
    from agentscan.providers.claude.windowed import WindowedTotals
    from agentscan.toolkit.jsonl import ReadProgress


def lean_loop(path: Path, ctx: ScanContext, summary: FileSummary, read: ReadProgress, start: int, first_line: int,
              end: int | None, tell_values: bool, tell: Callable[[int], None] | None, order: int,
              totals: WindowedTotals, facts: ShowFacts | None, seam: bool, advisors: Advisors) -> FileSummary:
    """``row.summarize``'s loop for a main transcript read without an observer, of a session
    that resumed none (no copies at its head), with totals: what ``summarize`` set up is passed in."""
    pending_tasks = summary.pending_tasks
    first_ts, last_ts, branch, compacted = summary.first_ts, summary.last_ts, summary.git_branch, summary.compacted
    newest_before = None
    same_raw: str | None = None
    same_time = None
    seen = summary.seen
    remember = seen.hashes.append
    add = totals.add
    texts, models = summary.text_messages, summary.model_messages
    told_every = reporting.TOLD_EVERY
    fromisoformat, earliest, latest = datetime.fromisoformat, EARLIEST, LATEST
    # (``RecentIds.add`` inline below when they are plain ones: a second half's list the early ids.)
    plain_ids = texts.__class__ is RecentIds and models.__class__ is RecentIds
    text_order, text_members, text_size = texts._order, texts._members, texts._size
    model_order, model_members, model_size = models._order, models._members, models._size
    try:
        for record in iter_json_records(path, ctx, start=start, first_line=first_line, progress=read, end=end,
                                        tell_values=tell_values):
            summary.records += 1
            order += 1
            if tell is not None and not summary.records % told_every:
                tell(read.complete_offset)
            raw = record.get("timestamp")
            if raw is None:
                timestamp = None
            elif raw == same_raw:
                timestamp = same_time
            else:
                # ``parse_iso``'s canonical case inline (``…T12:34:56.789Z``, plausible); any
                # other string, or one that does not read so, goes through it (and is told there).
                timestamp = None
                if raw.__class__ is str and len(raw) == 24 and raw[-1] == "Z":
                    try:
                        timestamp = fromisoformat(raw)
                    except ValueError:
                        pass
                    if timestamp is not None and not earliest <= timestamp < latest:
                        timestamp = None
                if timestamp is None:
                    timestamp = parse_iso(raw)
                if timestamp is not None and raw.__class__ is str:
                    same_raw, same_time = raw, timestamp
            if compacted is not None and (uuid := record.get("uuid")).__class__ is str:
                key = hash(uuid)
                if timestamp is not None and timestamp < compacted and seen.met(key):
                    summary.copies += 1
                    copied_calls(summary, record, None, order, timestamp, totals, advisors)
                    continue
                remember(key)
            raised = False
            kind = record.get("type")
            if timestamp is not None and (kind != "system" or record.get("subtype") != AWAY_SUMMARY):
                if first_ts is None or timestamp < first_ts:
                    first_ts = timestamp
                if last_ts is None or timestamp > last_ts:
                    newest_before, last_ts, raised = last_ts, timestamp, True
            if summary.cwd is None:
                summary.cwd = as_str(record.get("cwd"))
            value = record.get("gitBranch")
            if value.__class__ is str and value:
                branch = value
            if summary.summaries:
                note_leaf(summary, record, read.complete_offset)
            if kind == "assistant":
                if record.get("isSidechain") is True and note_inline(summary, record, kind, order, timestamp,
                                                                     totals, NOTES):
                    continue
                call = call_of(record, None, order, None if timestamp is None else timestamp.timestamp(), None,
                               advisors)
                if call is not None:
                    summary.has_usage = True
                    add(call)
                    if advisors:
                        advisors.drain(add)
                # ``recordnotes.note_assistant`` with ``ShowFacts.assistant`` folded in: one read of the message.
                if record.get("isApiErrorMessage") is True:
                    if facts is not None:
                        facts.api_error(record)
                    continue
                message = record.get("message")
                if not isinstance(message, dict):
                    message = {}
                model = message.get("model")
                if model.__class__ is str and model in SYNTHETIC_MODELS:
                    if facts is not None:
                        facts.end_reply()
                    continue
                own_id = message.get("id")
                if not (isinstance(own_id, str) and own_id):
                    own_id = as_str(record.get("uuid"))
                message_id = own_id or f"#{summary.records}"
                content = message.get("content")
                # (A list read where it is: the loop below skips what is no block, for the row's
                # counts and the facts alike, which is all ``content_blocks`` would have taken out.)
                blocks = content if content.__class__ is list else content_blocks(message)
                if facts is not None and (own_id != facts._current or own_id is None):
                    facts._flush()  # (returns at once with nothing open)
                    facts._current = own_id
                if isinstance(model, str) and model and message_id not in models._members:
                    if plain_ids:
                        model_order.append(message_id)
                        model_members.add(message_id)
                        if len(model_order) > model_size:
                            model_members.discard(model_order.popleft())
                    else:
                        models.add(message_id)
                    summary.models[model] += 1
                for block in blocks:
                    if not isinstance(block, dict):
                        continue
                    block_kind = block.get("type")
                    if block_kind == "text":
                        text = block.get("text")
                        if isinstance(text, str):
                            if facts is not None:
                                # ``ShowFacts._text`` inline (a reply's text, every other record).
                                kept = facts._kept
                                part = text if kept else text.lstrip()
                                room = facts.message_bytes + 8 - kept
                                if room > 0:
                                    facts._texts.append(part[:room])
                                    facts._kept = kept + min(len(part), room)
                                    part = part[room:]
                                if part and not facts._more and not part.isspace():
                                    facts._more = True
                            if text and not text.isspace() and message_id not in texts._members:
                                if plain_ids:
                                    text_order.append(message_id)
                                    text_members.add(message_id)
                                    if len(text_order) > text_size:
                                        text_members.discard(text_order.popleft())
                                else:
                                    texts.add(message_id)
                                summary.responses += 1
                    elif block_kind == "tool_use":
                        if facts is not None:
                            facts._tool(block)
                        summary.tool_calls += 1
                        if block.get("name") in TASK_NAMES:
                            note_task(block, pending_tasks)
            elif kind == "user":
                if record.get("isSidechain") is True and note_inline(summary, record, kind, order, timestamp,
                                                                     totals, NOTES):
                    continue
                # ``recordnotes.note_user``; a tool's result (most user records) told by its first block,
                # as ``real_prompt_text`` first tells it.
                message = record.get("message")
                # (``ShowFacts.result`` does nothing for a tool's result when no plan's call waits
                # for one and its one block holds no ``text`` string: ``records.interruption_text``.)
                told = True
                if (message.__class__ is dict and (said := message.get("content")).__class__ is list and said
                        and (first := said[0]).__class__ is dict and first.get("type") == "tool_result"):
                    prompt = None
                    told = len(said) == 1 and first.get("text").__class__ is str
                else:
                    prompt = real_prompt_text(record)
                if prompt is not None:
                    if facts is not None:
                        facts.prompt(prompt, record=record)
                    summary.prompts += 1
                    if summary.first_prompt is None:
                        note_prompt(summary, prompt)
                    continue
                if facts is not None and (told or facts.fold._pending):
                    facts.result(record)
                if summary.first_prompt is None:
                    note_command(summary, record)
                # (``note_result`` reads nothing else: an object that names no run, in a
                # transcript with no inline run, is nothing to it.)
                result = record.get("toolUseResult")
                if isinstance(result, dict) and (summary.inline or isinstance(result.get("agentId"), str)):
                    note_result(summary, record, pending_tasks)
            elif kind == "progress":
                data = record.get("data")
                call = call_of(record, None, order, advisors=advisors) if isinstance(data, dict) and (
                    "agentId" in data) else None
                if call is not None:
                    add(call)
                    if advisors:
                        advisors.drain(add)
            elif kind == "attachment":
                note_queued_prompt(summary, record, facts)
            elif kind == "custom-title" and as_str(record.get("customTitle")):
                summary.custom_title = record["customTitle"]
            elif kind == "ai-title" and as_str(record.get("aiTitle")):
                summary.ai_title = record["aiTitle"]
            elif kind == "summary" and as_str(record.get("summary")):
                note_summary(summary, record, read.complete_offset)
            elif kind == "system":
                if facts is not None and record.get("subtype") == "compact_boundary":
                    facts.compaction(record)
                if timestamp is not None and record.get("subtype") == "compact_boundary":
                    cutoff = copies_before(timestamp, None if seam else newest_before if raised else last_ts)
                    seen.compactions += 1
                    if compacted is None:
                        seen.collect(path, read.complete_offset)
                        compacted = cutoff
                    elif cutoff > compacted:
                        compacted = cutoff
                if facts is not None:
                    facts.error(record)
            elif kind == "relocated" and as_str(record.get("relocatedCwd")):
                summary.relocated_cwd = record["relocatedCwd"]  # (as ``row.summarize``)
    finally:
        summary.first_ts, summary.last_ts, summary.git_branch, summary.compacted = first_ts, last_ts, branch, compacted
    return summary

