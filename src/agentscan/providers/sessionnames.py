"""Which native ids a session (or a subagent) may be listed under.

A provider takes an id from a file name (Claude's ``<id>.jsonl``, Cursor's
``<id>/<id>.jsonl``) or from a file's header (Gemini's ``sessionId``, a Codex
rollout named without a uuid).  A home is not trusted: a file named ``.jsonl``
gave the session ``claude:`` (an empty id, which ``show claude:`` then took), so
such a file is skipped with a warning, as a name that is not UTF-8 is
(``ScanContext.undecodable``).  An id holding a control character or white space at
an end is kept: its session's tokens count, every table shows the id cleaned (an
escape sequence as U+FFFD: ``cli.term.clean_path``), and ``show`` opens it by a
prefix of it or by its transcript's path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentscan.context import ScanContext


def unusable_id(native_id: str) -> str | None:
    """Why ``native_id`` cannot name a session, for a warning; ``None``: it can."""
    if not native_id:
        return "session id is empty"
    return None


def usable_id(native_id: str, path: object, ctx: ScanContext) -> bool:
    """Whether ``native_id`` (read from ``path``) may name a session or a subagent; warns
    (naming ``path``) when not."""
    why = unusable_id(native_id)
    if why is None:
        return True
    ctx.warn(path, f"{why}; skipped")
    return False
