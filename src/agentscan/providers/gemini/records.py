"""Raw Gemini CLI record shapes and the small readers that interpret them.

Both chat formats (legacy whole-file JSON and the JSONL append log) carry
the same ``MessageRecord`` (docs/providers/gemini.md).  Every accessor is
defensive: any field may be missing or of the wrong type, and ``content``
is a plain string in 2025 builds but a list of ``{text}`` parts in 2026.
"""

from __future__ import annotations

import re
from typing import Any, TypedDict

from agentscan.bounds import token_count
from agentscan.toolkit.imagetext import images_text
from agentscan.toolkit.valuewarnings import counted_field
from agentscan.model import TokenUsage


class RawTokens(TypedDict, total=False):
    input: int  # promptTokenCount, cached tokens included
    output: int  # candidatesTokenCount, thoughts NOT included
    cached: int  # cachedContentTokenCount
    thoughts: int  # thoughtsTokenCount
    tool: int  # toolUsePromptTokenCount
    total: int  # input + output + thoughts + tool


class RawToolCall(TypedDict, total=False):
    id: str
    name: str
    args: dict[str, Any]
    result: Any
    status: str  # success | error | cancelled | executing | scheduled | …
    timestamp: str
    agentId: str
    displayName: str
    description: str


class RawMessage(TypedDict, total=False):
    id: str
    timestamp: str
    type: str  # user | gemini | info | error | warning
    content: str | list[dict[str, Any]]
    displayContent: str | list[dict[str, Any]]
    model: str
    tokens: RawTokens | None
    toolCalls: list[RawToolCall]


class RawMetadata(TypedDict, total=False):
    """The first JSONL line, a ``$set`` payload, or a legacy file minus messages."""

    sessionId: str
    projectHash: str  # sha256(project root), hex
    startTime: str
    lastUpdated: str
    kind: str  # main | subagent
    summary: str
    directories: list[str]
    messages: list[RawMessage]  # only in a ``$set`` checkpoint / legacy file


class RawLogEntry(TypedDict, total=False):
    """One entry of ``logs.json`` (user inputs only, every session of a project)."""

    sessionId: str
    messageId: int
    type: str
    message: str
    timestamp: str


_WHITESPACE = re.compile(r"\s+")
# "/init", "/compress now", "/memory add x" — but not "/home/me/x please".
_SLASH_COMMAND = re.compile(r"^/[A-Za-z][\w:.-]*(\s|$)")
# Gemini CLI sends this on the user's behalf after a tool turn.
_INJECTED = ("System: Please continue.",)
# A tool result that legacy (JSON) chats record as a user message: Gemini
# CLI's partToString turns a functionResponse part into this text.
_TOOL_RESULT_PREFIXES = ("[Function Response:",)
# The environment context (date, OS, workspace dirs, folder tree) that newer
# Gemini CLI builds (seen in 0.44) record as the first ``user`` message, in a
# ``$set.messages`` checkpoint, before anything is typed.  Nobody typed it: it
# must not become the title nor count as a prompt.  Its id is a constant
# (``d04923d3…``) in 0.44, but the tag is what the CLI guarantees.
_SESSION_CONTEXT_PREFIX = "<session_context>"
# After chat compression (``/compress``, or automatic near the context limit) the
# ``$set.messages`` checkpoint starts with a synthetic ``user`` turn: the model's
# summary of what was compressed away, a ``<state_snapshot>`` (Gemini CLI's
# ``chatCompressionService``; asked to reason in a ``<scratchpad>`` first, the model
# may put one before it).  Nobody typed it either.
_SNAPSHOT_TAG = "<state_snapshot>"
_SCRATCHPAD_TAG = "<scratchpad>"
# ...and the synthetic ``model`` turn right after it, a fixed reply nobody's model wrote
# (``chatCompressionService``'s history: the summary, then this): no response.
_COMPRESSION_ACK = "Got it. Thanks for the additional context!"

_OK = frozenset({"success", "ok", "completed"})
_ERROR = frozenset({"error", "failed", "fail"})
# The user declined the call (or stopped it): it did not fail, it was not let run.
_DENIED = frozenset({"cancelled", "canceled"})


def as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def as_count(value: object) -> int:
    """A token count: a non-negative whole number; anything else (an absurd one too) is 0."""
    if isinstance(value, float) and not value.is_integer():
        return 0
    return token_count(value)


def parts_text(content: object) -> str | None:
    """The text of ``content``: a string, or the ``text`` of its parts.

    ``None`` when there are no text parts at all (e.g. only a
    ``functionResponse``), which is how an injected turn looks.
    """
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return None
    texts = [
        part["text"]
        for part in content
        if isinstance(part, dict) and isinstance(part.get("text"), str) and part.get("thought") is not True
    ]
    return "".join(texts) if texts else None


def prompt_text(message: dict[str, Any]) -> str | None:
    """What the user typed, for a ``user`` message; ``None`` for injected turns.

    ``displayContent`` is what the UI showed (``/init``) when ``content`` is
    the expanded prompt sent to the model, so it wins when present.
    """
    if message.get("type") != "user":
        return None
    if "displayContent" in message and message["displayContent"] is not None:
        text = parts_text(message["displayContent"])
    else:
        text = parts_text(message.get("content"))
    if text is None or not text.strip():
        # An image sent with no words (no text part, or only empty ones: as Claude's and
        # Codex's are told) is a prompt all the same (a turn of a tool's result holds a
        # ``functionResponse``: no image of the user's).
        images = _user_images(message.get("content"))
        return images_text(images) if images else None
    if text.strip() in _INJECTED:
        return None
    opening = text.lstrip()
    if opening.startswith(_TOOL_RESULT_PREFIXES) or opening.startswith(_SESSION_CONTEXT_PREFIX):
        return None
    if is_compression_summary(opening):
        return None
    return text


def _user_images(content: object) -> int:
    """How many image parts (``inlineData``/``fileData`` of an ``image/…`` type) ``content``
    holds, 0 when any part is a tool's result (``functionResponse``)."""
    parts = [content] if isinstance(content, dict) else content
    if not isinstance(parts, list):
        return 0
    images = 0
    for part in parts:
        if not isinstance(part, dict) or "functionResponse" in part:
            return 0
        data = part.get("inlineData") or part.get("fileData")
        if isinstance(data, dict) and str(data.get("mimeType", "")).startswith("image/"):
            images += 1
    return images


def is_compression_summary(text: str) -> bool:
    """``text`` (its leading whitespace stripped) is the summary chat compression put in place
    of the turns it retired: a ``<state_snapshot>``, maybe after the model's ``<scratchpad>``."""
    return text.startswith(_SNAPSHOT_TAG) or (text.startswith(_SCRATCHPAD_TAG) and _SNAPSHOT_TAG in text)


def is_snapshot_message(message: dict[str, Any]) -> bool:
    """``message`` is the ``user`` turn of a compression summary (``is_compression_summary``)."""
    if message.get("type") != "user":
        return False
    text = parts_text(message.get("content"))
    return text is not None and is_compression_summary(text.lstrip())


def is_compression_ack(message: dict[str, Any]) -> bool:
    """``message`` reads as the fixed ``gemini`` turn compression puts after its summary; only
    one that follows a summary is that turn (``chatlog.Conversation.add``)."""
    return message.get("type") == "gemini" and response_text(message) == _COMPRESSION_ACK


def response_text(message: dict[str, Any]) -> str:
    return (parts_text(message.get("content")) or "").strip()


def is_slash_command(text: str) -> bool:
    return bool(_SLASH_COMMAND.match(text.lstrip()))


#: The slash commands Gemini CLI runs itself (its built-in ones, ``BuiltinCommandLoader``, and
#: their other names: ``/exit``, ``/usage``, ``/?``): no prompt.  Its chat records none as a
#: user message (a local one's output is an ``info`` message); only ``logs.json``, which logs
#: every input as typed, holds them.  Not ``/init`` nor ``/plan``, which send the model a
#: prompt, nor a custom command (``.gemini/commands/*.toml``): their text is a prompt's.
LOCAL_COMMANDS = frozenset({
    "about", "agents", "auth", "bug", "chat", "clear", "commands", "compress", "summarize", "copy", "corgi",
    "docs", "directory", "dir", "editor", "export-logs", "extensions", "help", "?", "footer", "shortcuts",
    "hooks", "rewind", "ide", "mcp", "memory", "model", "permissions", "policies", "privacy", "profile",
    "quit", "exit", "restore", "resume", "stats", "usage", "theme", "tools", "skills", "settings", "tasks",
    "vim", "setup-github", "terminal-setup", "upgrade",
})
_COMMAND_NAME = re.compile(r"/([\w?-]+)(?:\s|$)")


def is_local_command(text: str) -> bool:
    """``text`` (an input ``logs.json`` logged) is a slash command Gemini CLI ran itself
    (``LOCAL_COMMANDS``): ``/stats``, ``/chat save x``, not ``/init`` or ``/home/me please``."""
    found = _COMMAND_NAME.match(text.strip())
    return found is not None and found.group(1) in LOCAL_COMMANDS


def collapse(text: str, limit: int) -> str:
    flat = _WHITESPACE.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def usage_of(tokens: object) -> TokenUsage | None:
    """Gemini's per-message ``tokens`` in the contract's vocabulary.

    ``input`` includes ``cached``; ``thoughts`` and ``tool`` are outside
    ``output``; so ``total`` comes out equal to Gemini's own ``total``.
    ``null`` or missing tokens count nothing.
    """
    if not isinstance(tokens, dict):
        return None
    prompt = _noted_count(tokens, "input")
    cached = min(_noted_count(tokens, "cached"), prompt)
    thoughts = _noted_count(tokens, "thoughts")
    return TokenUsage(
        input=prompt - cached + _noted_count(tokens, "tool"),
        cache_read=cached,
        cache_write=0,
        output=_noted_count(tokens, "output") + thoughts,
        reasoning=thoughts,
    )


def _noted_count(tokens: dict[str, Any], field: str) -> int:
    return counted_field(tokens, field, as_count, "tokens.")


def tool_status(status: object) -> str:
    """Gemini's scheduler status as ok | error | denied | unknown.

    A cancelled call is one the user declined at its confirmation (or stopped):
    ``denied``, counted apart from the calls that failed.  Calls still
    scheduled, awaiting approval or executing have no outcome yet.
    """
    if not isinstance(status, str):
        return "unknown"
    lowered = status.lower()
    if lowered in _OK:
        return "ok"
    if lowered in _ERROR:
        return "error"
    if lowered in _DENIED:
        return "denied"
    return "unknown"
