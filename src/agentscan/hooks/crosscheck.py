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
from typing import Iterable, Mapping

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


def hook_event_counts(session_ids: Iterable[str], *, env: Mapping[str, str] | None = None) -> dict[str, int]:
    """``{"<agent>:<native id>": number of captured hook events}`` for the ids that have any,
    counted as ``trace`` counts them: an event delivered twice (agentscan registered in two
    settings files) once.

    Ids are agentscan session ids (``claude:…``, ``cursor:…``); others are ignored.
    """
    root = store.data_dir(env)
    counts: dict[str, int] = {}
    for session_id in session_ids:
        agent, sep, native = session_id.partition(":")
        if not sep or not native:
            continue
        path = store.session_path(root, agent, native)
        count = store.count_envelopes(path)  # what trace --list counts
        if count and _may_hold_repeats(path):
            count = _counted_once(store.StoredSession(agent, native, path))
        if count:
            counts[session_id] = count
    return counts


def _may_hold_repeats(path: str) -> bool:
    """Whether two lines of ``path`` differ only in their capture time: the only way an event
    can be delivered twice (``repeats.py``).  Bytes compared, nothing decoded: most sessions
    hold none, and then the count of envelopes is the count."""
    start = len(b'{"v":1,"received_at_ns":')
    seen: set[int] = set()  # hashes, not the lines (megabytes of tool output): a collision only costs the tree
    try:
        with open(path, "rb") as handle:
            for line in handle:
                rest = hash(line[line.find(b",", start):])
                if rest in seen:
                    return True
                seen.add(rest)
    except OSError:
        return False
    return False


def _counted_once(session: store.StoredSession) -> int:
    """The events of ``session`` as ``trace`` counts them (its tree decides what a second
    delivery is: a Cursor shell hook repeated while its twin waits, say)."""
    from agentscan.hooks.tree import TreeBuilder

    events, _ = store.read_events(session)
    builder = TreeBuilder(session.agent, session.session_id)
    builder.add_all(events)
    return len(events) - builder.repeats.count

