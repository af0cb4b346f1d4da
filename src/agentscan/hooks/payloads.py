"""A hook payload read as an event: whose agent sent it, its event, session and turn ids,
what of it is kept, and the envelope line the store appends.

Apart from ``capture.py`` (stdin, the reply, the detached reader) because these are the
rules of what a payload means, the same whether it came from stdin or the demo maker.
Stdlib only: the hook's hot path imports it.
"""

from __future__ import annotations

import json
from typing import Any

from agentscan.hooks.events import CURSOR_EVENTS, GEMINI_ONLY_EVENTS
from agentscan.hooks.ids import canonical_generation_id

#: the events whose payload holds a whole file's ``content``: stored as its length only
REDACTED_CONTENT_EVENTS = ("beforeReadFile", "beforeTabFileRead")


def detect_agent(payload: dict[str, Any]) -> str:
    """When ``--agent`` is missing: the payload's own signature (docs/hooks.md, "The tree")."""
    if "cursor_version" in payload or ("conversation_id" in payload and "generation_id" in payload):
        return "cursor"
    if any(key in payload for key in ("prompt_id", "permission_mode", "effort")):
        return "claude"
    if payload.get("hook_event_name") in GEMINI_ONLY_EVENTS:
        return "gemini"  # (its SessionStart, SessionEnd and Notification share Claude's names: not told)
    if _CLAUDE_TRANSCRIPT in str(payload.get("transcript_path") or "").replace("\\", "/"):
        # A SessionStart, or an older build's payload, has none of those fields; its transcript
        # is under ``~/.claude/projects/`` (Cursor's under ``~/.cursor/projects/``; VS Code,
        # Gemini and Codex, whose events are named as Claude's, keep theirs elsewhere).
        return "claude"
    return "unknown"


#: where Claude Code writes the transcript a payload's ``transcript_path`` names
_CLAUDE_TRANSCRIPT = "/.claude/projects/"


def is_cursor_payload(payload: dict[str, Any]) -> bool:
    """A payload in Cursor's shape, whichever hook it reached: its ``cursor_version``, or its
    ``conversation_id`` with one of Cursor's own (camelCase) event names.  Claude Code sends
    neither field."""
    if "cursor_version" in payload:
        return True
    return "conversation_id" in payload and payload.get("hook_event_name") in CURSOR_EVENTS


#: the envelope field naming the agent whose hook stored a payload of another (docs/hooks.md)
VIA = "via"


def identify(agent: str, payload: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """(event, session id, turn id) as each agent names them."""
    if agent == "cursor":
        session = _text(payload, "conversation_id", "session_id")
        turn = canonical_generation_id(_text(payload, "generation_id"))
    elif agent == "claude":
        session = _text(payload, "session_id")
        turn = _text(payload, "prompt_id")
    else:
        session = _text(payload, "session_id", "conversation_id", "sessionId")
        turn = _text(payload, "prompt_id", "generation_id")
    return _text(payload, "hook_event_name"), session, turn


def redact(event: str | None, payload: dict[str, Any], cut: int | None = None) -> dict[str, Any]:
    """Drop what the tree never needs and should not keep: e-mail, whole file contents
    (``cut``: the content was left out as it was read, ``cut`` bytes of JSON text)."""
    if payload.get("user_email") is not None:
        payload["user_email"] = "[redacted]"
    content = payload.get("content")
    if event in REDACTED_CONTENT_EVENTS and isinstance(content, str):
        payload["content"] = f"[redacted: {len(content)} chars]" if cut is None else f"[redacted: {cut} bytes, cut]"
    return payload


def encode_line(envelope: dict[str, Any]) -> bytes:
    try:
        text = json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate from a "\ud800" escape
        return json.dumps(envelope, separators=(",", ":")).encode("ascii") + b"\n"


def _text(payload: dict[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return None
