"""How many hook events ``show`` says a session has: counted as ``trace`` counts them.

Apart from ``crosscheck`` (which ``tree`` imports): an event delivered twice is one only
``tree`` can tell, so the count may build the session's tree.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from agentscan.hooks import store


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
    """Whether two lines of ``path`` differ only in their capture time (and the hook that stored
    them: Cursor runs Claude Code's too): the only way an event can be delivered twice
    (``repeats.py``).  Bytes compared, nothing decoded: most sessions
    hold none, and then the count of envelopes is the count."""
    start = len(b'{"v":1,"received_at_ns":')
    seen: set[int] = set()  # hashes, not the lines (megabytes of tool output): a collision only costs the tree
    try:
        with open(path, "rb") as handle:
            for line in handle:
                after = line.find(b",", start)
                if line.startswith(_VIA, after + 1):  # stored by Claude Code's hook (Cursor ran it): a twin all the same
                    after = line.find(b",", after + 1)
                rest = hash(line[after:])
                if rest in seen:
                    return True
                seen.add(rest)
    except OSError:
        return False
    return False


#: what follows the capture time in a line stored through another agent's hook (``payloads.VIA``)
_VIA = b'"via":'


def _counted_once(session: store.StoredSession) -> int:
    """The events of ``session`` as ``trace`` counts them (its tree decides what a second
    delivery is: a Cursor shell hook repeated while its twin waits, say)."""
    from agentscan.hooks.tree import TreeBuilder

    events, _ = store.read_events(session)
    builder = TreeBuilder(session.agent, session.session_id)
    builder.add_all(events)
    return len(events) - builder.repeats.count

