"""Chat messages as the Agent CLI store and ``agentKv`` rows keep them.

Both ``store.db``'s JSON blobs and ``state.vscdb``'s ``agentKv:blob:<hash>``
rows hold messages in the AI SDK shape (docs/providers/cursor.md)::

    {"role": "user", "content": "<user_query>…</user_query>" | [{"type": "text", "text": …}]}
    {"role": "assistant", "content": [{"type": "text", "text": …},
                                      {"type": "reasoning", …},
                                      {"type": "tool-call", "toolName": …, "args": {…}}]}
    {"role": "tool" | "system", …}                       results and instructions: skipped

They become the same events as a transcript line (``events.py``), so a
session with no transcript is read, counted and shown like one.
"""

from __future__ import annotations

from typing import Any

import orjson

from agentscan.toolkit import laxjson

from agentscan.providers.cursor.events import AssistantText, Event, ToolCall, UserText
from agentscan.providers.cursor.prompt_text import injected, split_user_text
from agentscan.providers.cursor.records import as_dict, as_str

_TOOL_PARTS = frozenset({"tool-call", "tool_use", "tool_call"})


def decode_message(value: object) -> dict[str, Any] | None:
    """A JSON message row (``None`` for the store's binary tree nodes and junk)."""
    if isinstance(value, str):
        value = value.encode("utf-8", "surrogatepass")
    if not isinstance(value, (bytes, bytearray, memoryview)):
        return None
    data = bytes(value)
    if not data.lstrip()[:1] == b"{":
        return None
    try:
        message = laxjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return message if isinstance(message, dict) and isinstance(message.get("role"), str) else None


def _parts(content: object) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [part for part in content if isinstance(part, dict)]
    return []


def message_events(message: dict[str, Any]) -> list[Event]:
    role = message.get("role")
    parts = _parts(message.get("content"))
    texts = [part["text"] for part in parts if part.get("type") == "text" and isinstance(part.get("text"), str)]
    if role == "user":
        text, when = split_user_text("\n".join(texts))
        return [UserText(text, when)] if text and not injected(text) else []
    if role != "assistant":
        return []
    events: list[Event] = []
    reply = "\n".join(texts).strip()
    if reply:
        events.append(AssistantText(reply))
    for part in parts:
        if part.get("type") in _TOOL_PARTS:
            name = as_str(part.get("toolName")) or as_str(part.get("name")) or "tool"
            arguments = part.get("args", part.get("input"))
            events.append(ToolCall(name, as_dict(arguments) if not isinstance(arguments, str) else arguments))
    return events


def request_of(message: dict[str, Any]) -> str | None:
    """The request a message opens (``providerOptions.cursor.requestId``)."""
    return as_str(as_dict(as_dict(message.get("providerOptions")).get("cursor")).get("requestId"))
