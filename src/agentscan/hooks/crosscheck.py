"""Hook sessions <-> transcript sessions.

A hook payload's ``transcript_path`` names the file the agent writes its
transcript to; its stem is the native id agentscan's providers use, so the
mapping needs no scan.  In the other direction, ``show`` asks whether hook
events exist for a session: the store keeps one file per session, so that is
a ``stat``, not a read.
"""

from __future__ import annotations

import os
import re
from typing import Mapping

from agentscan.hooks import store

_SEPARATORS = re.compile(r"[\\/]+")


def transcript_session_id(agent: str, path: str | None) -> str | None:
    """``…/<id>.jsonl`` -> ``<agent>:<id>``; a subagent transcript maps to its parent.

    Claude: ``~/.claude/projects/<slug>/<session>.jsonl`` and
    ``…/<session>/subagents/agent-<id>.jsonl``.  Cursor:
    ``…/agent-transcripts/<id>.jsonl``, ``…/<id>/<id>.jsonl`` and
    ``…/<id>/subagents/<sub>.jsonl``.
    """
    if not path:
        return None
    parts = [p for p in _SEPARATORS.split(path.strip()) if p]
    if not parts:
        return None
    name = parts[-1]
    for suffix in (".jsonl.zst", ".jsonl"):
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            break
    else:
        return None
    if len(parts) >= 3 and parts[-2] == "subagents":
        stem = parts[-3]
    return f"{agent}:{stem}" if stem else None


def transcript_exists(path: str | None) -> bool:
    """Whether the transcript a payload names is still on disk.

    Claude deletes old transcripts while their hook events stay in the store:
    ``agentscan show`` is only worth suggesting when the file is there.
    """
    if not path:
        return False
    try:
        return os.path.isfile(os.path.expanduser(path))
    except (OSError, ValueError):  # a NUL or an unencodable name in a payload's path
        return False


def has_hook_events(agent: str, native_id: str, *, env: Mapping[str, str] | None = None) -> bool:
    """True when the events store holds at least one hook event for this session."""
    try:
        return os.path.getsize(store.session_path(store.data_dir(env), agent, native_id)) > 0
    except OSError:
        return False
