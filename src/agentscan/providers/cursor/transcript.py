"""Reading Cursor agent transcripts (docs/providers/cursor.md).

Lines look like ``{"role": "user"|"assistant", "message": {"content": [...]}}``
plus role-less ``{"type": "turn_ended", "status": …}`` and
``{"type": "error", "error": …}`` markers.  There are no ids, timestamps,
models, usage or tool results: a tool's failure is known only from the
``turn_ended`` status of its turn, and time only from the ``<timestamp>``
wrapper of user text (``prompt_text``).  Events are yielded in file order so
that one pass serves both the row summary and the ``show`` detail.
"""

from __future__ import annotations

from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Generator, Iterable, NamedTuple

import orjson

from agentscan.context import ScanContext
from agentscan.toolkit.jsonl import iter_json_lines
from agentscan.providers.cursor.cwd import CwdGuess, Naming
from agentscan.providers.cursor.prompt_text import collapse, injected, split_user_text
from agentscan.providers.cursor.events import AssistantText, ErrorLine, Event, ToolCall, TurnEnded, UserText
from agentscan.providers.cursor.plaintext import iter_text_events
from agentscan.providers.cursor.records import as_dict, as_str

TITLE_CHARS = 180
TASK_TOOL = "Task"
# turn_ended statuses that mean the turn's tool calls did not all succeed.
FAILED_STATUSES = frozenset({"error", "failed", "fail", "cancelled", "canceled", "aborted"})
# What a person wants to see first: the command or search, then the file.
_SUMMARY_KEYS = ("command", "pattern", "glob_pattern", "query", "path", "file_path", "target_file",
                 "url", "description", "prompt", "target_directory")
#: the keys naming a path a call touched (a ``paths`` list too: ``tool_summary``); Glob and
#: LS name their folder ``target_directory``
_PATH_KEYS = ("path", "file_path", "target_file", "target_directory")
#: what an agent transcript writes in place of the model's reasoning: at the end of an
#: assistant text block, and as the whole of a thinking-only turn (docs/providers/cursor.md)
REDACTED = "[REDACTED]"


def _blocks(record: dict[str, Any]) -> list[dict[str, Any]]:
    content = as_dict(record.get("message")).get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _text(blocks: list[dict[str, Any]], strip: Callable[[str], str] = str) -> str:
    return "\n".join(strip(b["text"]) for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str))


def without_redacted(text: str) -> str:
    """``text`` less the trailing reasoning markers (and the whitespace around them).  Only
    the marker as a word of its own: ``key=[REDACTED]`` ends a reply, it is not the marker."""
    end = len(text.rstrip())
    while text.endswith(REDACTED, 0, end) and (end == len(REDACTED) or text[end - len(REDACTED) - 1].isspace()):
        end = len(text[: end - len(REDACTED)].rstrip())
    return text if end == len(text.rstrip()) else text[:end]


def iter_events(path: Path, ctx: ScanContext) -> Generator[Event, None, None]:
    if path.suffix == ".txt":  # the older plain-text transcript
        yield from iter_text_events(path, ctx)
        return
    for line in iter_json_lines(path, ctx):
        record = line.record
        kind, role = record.get("type"), record.get("role")
        if kind == "turn_ended":
            status = as_str(record.get("status"))
            yield TurnEnded(failed=status is not None and status.lower() in FAILED_STATUSES)
        elif kind == "error":
            yield ErrorLine(as_str(record.get("error")) or as_str(record.get("message")) or "error")
        elif role == "user":
            text, when = split_user_text(_text(_blocks(record)))
            if text and not injected(text):
                yield UserText(text, when)
        elif role == "assistant":
            blocks = _blocks(record)
            # Only text blocks are read: tool_use becomes a ToolCall, and anything else
            # (a tool_result or command_output block, were Cursor to write one) is skipped.
            text = _text(blocks, without_redacted).strip()
            if text:  # a turn that was only reasoning leaves nothing: no response
                yield AssistantText(text)
            for block in blocks:
                if block.get("type") == "tool_use":
                    yield ToolCall(as_str(block.get("name")) or "tool", block.get("input"))


def tool_summary(tool_input: object) -> tuple[str, tuple[str, ...]]:
    """A short readable summary of a tool call and the paths it names."""
    if isinstance(tool_input, str):  # ApplyPatch takes the patch text itself
        return tool_input.strip(), ()
    data = as_dict(tool_input)
    paths = tuple(data[k] for k in _PATH_KEYS if isinstance(data.get(k), str) and data[k])
    if isinstance(data.get("paths"), list):
        paths += tuple(p for p in data["paths"][:50] if isinstance(p, str) and p)
    for key in _SUMMARY_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip(), paths
    try:
        return orjson.dumps(tool_input, option=orjson.OPT_SORT_KEYS).decode()[:400], paths
    except TypeError:
        return "", paths


class TaskCall(NamedTuple):
    """A ``Task`` delegation seen in the parent, and the prompt it served (a named tuple:
    see ``cli.term.Terminal``)."""

    prompt_number: int  # 1-based number of the user prompt whose turn delegated
    task_prompt: str
    agent_type: str | None
    description: str | None


def task_call(tool_input: object, prompt_number: int) -> TaskCall:
    data = as_dict(tool_input)
    return TaskCall(
        prompt_number=prompt_number,
        task_prompt=as_str(data.get("prompt")) or "",
        agent_type=as_str(data.get("subagent_type")) or as_str(data.get("subagentType")),
        description=as_str(data.get("description")),
    )


class TranscriptSummary:
    """Row facts from one pass; holds counters and a few strings only.  A plain class,
    not a dataclass: a cold ``list`` imports it, and a dataclass costs about a
    millisecond to create on import."""

    __slots__ = ("prompts", "responses", "tool_calls", "errors", "first_prompt", "first_ts", "last_ts", "cwd")

    def __init__(self, names_workspace: Callable[[str], Naming] | None = None) -> None:
        self.prompts = self.responses = self.tool_calls = self.errors = 0
        self.first_prompt: str | None = None
        self.first_ts: datetime | None = None
        self.last_ts: datetime | None = None
        self.cwd = CwdGuess(names_workspace)


def summarize(path: Path | None, ctx: ScanContext, names_workspace: Callable[[str], Naming] | None = None
              ) -> TranscriptSummary:
    """``names_workspace``: what the session's folder says of its workspace (``cwd.CwdGuess``)."""
    return summarize_events(iter_events(path, ctx) if path is not None else (), names_workspace)


def summarize_events(events: Iterable[Event], names_workspace: Callable[[str], Naming] | None = None
                     ) -> TranscriptSummary:
    """Row facts of any source of events (a transcript, a store, agentKv rows)."""
    summary = TranscriptSummary(names_workspace)
    for event in events:
        if isinstance(event, UserText):
            summary.prompts += 1
            if summary.first_prompt is None:
                summary.first_prompt = collapse(event.text, TITLE_CHARS)
            if event.timestamp is not None:
                summary.first_ts = summary.first_ts or event.timestamp
                summary.last_ts = max(summary.last_ts or event.timestamp, event.timestamp)
        elif isinstance(event, AssistantText):
            summary.responses += 1
        elif isinstance(event, ToolCall):
            summary.tool_calls += 1
            summary.cwd.add(event.input, event.name)
        elif isinstance(event, ErrorLine):
            summary.errors += 1
    return summary


def first_user_text(path: Path, ctx: ScanContext) -> str:
    """A subagent's first user text: the prompt its ``Task`` call gave it."""
    with closing(iter_events(path, ctx)) as events:
        for event in events:
            if isinstance(event, UserText):
                return event.text
    return ""


def add_tool_evidence(path: Path, ctx: ScanContext, guess: CwdGuess) -> None:
    """Feed a subagent's tool inputs to the cwd guess (when the parent had none)."""
    for event in iter_events(path, ctx):
        if isinstance(event, ToolCall):
            guess.add(event.input, event.name)
