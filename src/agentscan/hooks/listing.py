"""``trace --list``: each captured session, with what tells it from the others.

``store.summaries`` counts a session's events and finds when the last came (``doctor``
needs no more); a person choosing a session to trace also wants to see where it ran and
what it was asked, as ``list`` shows them (CWD, TITLE).  Those come from the first lines
that name them: the first workspace (Cursor's ``workspace_roots[0]``, else a ``cwd``, as
the trace's ``session.workspace``) and the first prompt.  Only such lines are decoded, and
the read stops once both are found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agentscan.hooks import store
from agentscan.hooks.envelopes import legible
from agentscan.hooks.events import PROMPTS

#: how ``agentscan hook`` writes an envelope's event name (``payloads.encode_line``)
_PROMPT_MARKS = tuple(f'"event":"{name}"'.encode() for name in PROMPTS)
#: how much of an events file is looked at for them (``trace --list`` reads every session's)
HEAD_BYTES = 1024 * 1024
_WORKSPACE_MARKS = (b'"workspace_roots":["', b'"cwd":"')
#: Cursor wraps what a person typed (``providers/cursor/prompt_text.py``)
_USER_QUERY = re.compile(r"<user_query>\s*(.*?)\s*(?:</user_query>|\Z)", re.DOTALL | re.IGNORECASE)
#: how much of a prompt is kept for the TITLE column (a table cell, one line)
TITLE_CHARS = 200


@dataclass(frozen=True, slots=True)
class Listed:
    """A row of ``trace --list``."""

    summary: store.StoredSummary
    cwd: str | None
    title: str | None

    def to_json(self) -> dict[str, Any]:
        return {**self.summary.to_json(), "cwd": self.cwd, "title": self.title}


def listed(root: str) -> list[Listed]:
    """Every captured session, the latest first (``store.summaries``), with its CWD and TITLE."""
    return [Listed(summary, *first_facts(summary.session.path)) for summary in store.summaries(root)]


def first_facts(path: str) -> tuple[str | None, str | None]:
    """The first workspace and the first prompt a session's events name (``None``: none)."""
    import orjson

    cwd = title = None
    read = 0
    try:
        with open(path, "rb") as handle:
            while read <= HEAD_BYTES:  # (past it: `-`, not a read of every event)
                line = handle.readline(HEAD_BYTES + 1 - read)  # a huge first line is not read whole
                if not line:
                    break
                read += len(line)
                wants_cwd = cwd is None and any(mark in line for mark in _WORKSPACE_MARKS)
                wants_title = title is None and any(mark in line for mark in _PROMPT_MARKS)
                if not (wants_cwd or wants_title):
                    continue
                try:
                    payload = orjson.loads(line).get("payload")
                except (orjson.JSONDecodeError, AttributeError):
                    continue
                if not isinstance(payload, dict):
                    continue
                if wants_cwd:
                    cwd = _workspace(payload)
                if wants_title:
                    title = _prompt(payload.get("prompt"))
                if cwd is not None and title is not None:
                    break
    except OSError:
        pass
    return cwd, title


def _workspace(payload: dict[str, Any]) -> str | None:
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0]:
        return legible(roots[0])
    cwd = payload.get("cwd")
    return legible(cwd) if isinstance(cwd, str) and cwd else None


def _prompt(text: Any) -> str | None:
    if not isinstance(text, str):
        return None
    found = _USER_QUERY.search(text)
    text = " ".join((found.group(1) if found else text).split())
    return legible(text[:TITLE_CHARS]) if text else None
