"""A composer's conversation from ``agentKv`` rows when its bubbles carry no text.

Newer Cursor builds keep the bubbles (``bubbleId:<composer>:<bubble>``) for
the turn structure, tokens and tools, but the messages themselves go to
``agentKv:blob:<hash>`` rows of ``state.vscdb``'s ``cursorDiskKV``: AI SDK
messages (``messages.py``) whose turn-opening row names its request in
``providerOptions.cursor.requestId``; the rows written after it belong to
the same request until the next one opens.  A composer's bubbles carry those
request ids, which is how its rows are found (docs/providers/cursor.md).

Rows are read in the order they were written, under one key range, at most
``MAX_ROWS``.  For ``list`` one pass per scan keeps small per-request counts
only; ``show`` reads the rows of one composer's requests.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from agentscan.providers.cursor.events import AssistantText, Event, ToolCall, UserText
from agentscan.providers.cursor.messages import decode_message, message_events, request_of
from agentscan.providers.cursor.prompt_text import collapse
from agentscan.providers.cursor.statedb import StateDb

PREFIX = "agentKv:blob:"
MAX_ROWS = 500_000
TITLE_CHARS = 180


class RequestCounts:
    """One request's counts, filled in as its rows are read.  A plain class: a dataclass
    costs about a millisecond to create on import."""

    __slots__ = ("prompts", "responses", "tool_calls", "first_prompt")

    def __init__(self) -> None:
        self.prompts = 0
        self.responses = 0
        self.tool_calls = 0
        self.first_prompt: str | None = None


def _rows(db: StateDb) -> Iterator[tuple[str | None, list[Event]]]:
    """(request id the row belongs to, its events), in written order."""
    current: str | None = None
    for _, value in db.iter_prefix(PREFIX, limit=MAX_ROWS):
        message = decode_message(value)
        if message is None:
            continue
        current = request_of(message) or current
        yield current, message_events(message)


def request_counts(db: StateDb) -> dict[str, RequestCounts]:
    """Per request id, what its rows hold (one pass per scan, memoised)."""
    kept = db.memo.get("agentkv.counts")
    if isinstance(kept, dict):
        return kept
    from agentscan.providers.cursor.keptkv import counted

    memo: dict[str, RequestCounts] = {}

    def feed(value: object, current: str | None) -> str | None:
        message = decode_message(value)
        if message is None:
            return current
        current = request_of(message) or current
        if current is None:
            return current
        counts = memo.get(current)
        if counts is None:
            counts = memo[current] = RequestCounts()
        for event in message_events(message):
            if isinstance(event, UserText):
                counts.prompts += 1
                counts.first_prompt = counts.first_prompt or collapse(event.text, TITLE_CHARS)
            elif isinstance(event, AssistantText):
                counts.responses += 1
            elif isinstance(event, ToolCall):
                counts.tool_calls += 1
        return current

    # Kept in the index and read on from where it stopped (``keptkv``): rows are only added.
    counted(db, lambda: db.iter_prefix(PREFIX, limit=MAX_ROWS), memo, feed, RequestCounts)
    db.memo["agentkv.counts"] = memo
    return memo


def conversation_counts(requests: Iterable[str], db: StateDb) -> tuple[int, int, int, str | None]:
    """(prompts, responses, tool calls, first prompt) of a composer's requests."""
    table = request_counts(db)
    prompts = responses = tools = 0
    first = None
    for request in requests:
        found = table.get(request)
        if found is not None:
            prompts, responses, tools = prompts + found.prompts, responses + found.responses, tools + found.tool_calls
            first = first or found.first_prompt
    return prompts, responses, tools, first


def conversation_events(requests: Iterable[str], db: StateDb) -> Iterator[Event]:
    wanted = set(requests)
    for request, events in _rows(db):
        if request in wanted:
            yield from events
