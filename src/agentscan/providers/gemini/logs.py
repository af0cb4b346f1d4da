"""Prompts from a project's ``logs.json``, for chats that recorded none.

``<tmp>/<projectId>/logs.json`` is an array of the user's inputs for every
session of the project (docs/providers/gemini.md).  It has no replies and
no tokens, so it is only a fallback for a chat file without user messages.
"""

from __future__ import annotations

import os
from typing import NamedTuple
from datetime import datetime
from pathlib import Path

from agentscan.context import ScanContext
from agentscan.toolkit.jsondoc import load_json_file
from agentscan.providers.gemini.records import as_str, is_local_command
from agentscan.timeutil import parse_iso

LOGS_FILE = "logs.json"
_MEMO = "gemini.logs"


class LoggedPrompt(NamedTuple):
    """A prompt ``logs.json`` keeps (a named tuple: see ``cli.term.Terminal``)."""

    text: str
    timestamp: datetime | None
    #: a slash command Gemini CLI ran itself (``records.is_local_command``): no prompt, told
    #: once here for the row and the detail
    local: bool


def logged_prompts(project_dir: Path, session_id: str, ctx: ScanContext) -> list[LoggedPrompt]:
    by_session = _load(project_dir / LOGS_FILE, ctx)
    return by_session.get(session_id, [])


def _load(path: Path, ctx: ScanContext) -> dict[str, list[LoggedPrompt]]:
    memo: dict[Path, dict[str, list[LoggedPrompt]]] = ctx.memo.setdefault(_MEMO, {})
    if path in memo:
        return memo[path]
    by_session: dict[str, list[LoggedPrompt]] = {}
    entries = load_json_file(path, ctx) if os.path.lexists(path) else None
    if entries is not None and not isinstance(entries, list):
        ctx.warn(path, "logs.json is not a JSON array; ignored")
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or entry.get("type") != "user":
            continue
        session = as_str(entry.get("sessionId"))
        text = as_str(entry.get("message"))
        if session and text and text.strip():
            by_session.setdefault(session, []).append(LoggedPrompt(text, parse_iso(entry.get("timestamp")), is_local_command(text)))
    memo[path] = by_session
    return by_session
