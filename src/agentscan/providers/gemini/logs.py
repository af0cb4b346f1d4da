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
#: The largest ``logs.json`` read for ``show``'s marks of slash commands alone (parsed whole,
#: at ~5 times its size in memory): 8 MB is some 20,000 prompts.  One read for a chat's own
#: prompts (it recorded none) is bounded by ``MAX_JSON_DOCUMENT_BYTES`` as any document.
MARKS_MAX_BYTES = 8_000_000


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


def local_commands(project_dir: Path, session_id: str, ctx: ScanContext) -> tuple[list[LoggedPrompt], str | None]:
    """The slash commands Gemini CLI ran itself in a chat of prompts of its own, which only
    ``logs.json`` holds, read for ``show``'s marks alone; and why none could be told (a
    damaged ``logs.json``, or one over ``MARKS_MAX_BYTES``) or ``None``.  The chat's row,
    counts and conversation stand without them: what kept the marks out is said as a note
    (``show``'s card), not a warning (``--strict`` failed ``show`` where ``list`` passed)."""
    path = project_dir / LOGS_FILE
    memo: dict[Path, dict[str, list[LoggedPrompt]]] = ctx.memo.setdefault(_MEMO, {})
    if path not in memo:
        try:
            size = os.stat(path).st_size if os.path.lexists(path) else 0
        except OSError as exc:
            return [], f"{LOGS_FILE} could not be read ({exc.strerror or exc})"
        if size > MARKS_MAX_BYTES:
            # (its whole parse costs ~5 times its size, for marks a reader can do without)
            return [], f"{LOGS_FILE} is {size / 1e6:,.1f} MB, over the {MARKS_MAX_BYTES // 1_000_000} MB read for them"
        with ctx.held_warnings() as held:
            by_session = _parse(path, ctx)
        if held.said:
            return [], f"{LOGS_FILE} could not be read ({held.said[0][1]})"  # (not memoised: a row's read warns)
        memo[path] = by_session
    return [prompt for prompt in memo[path].get(session_id, []) if prompt.local], None


def _load(path: Path, ctx: ScanContext) -> dict[str, list[LoggedPrompt]]:
    memo: dict[Path, dict[str, list[LoggedPrompt]]] = ctx.memo.setdefault(_MEMO, {})
    if path in memo:
        return memo[path]
    memo[path] = by_session = _parse(path, ctx)
    return by_session


def _parse(path: Path, ctx: ScanContext) -> dict[str, list[LoggedPrompt]]:
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
    return by_session
