"""One rule for a call that several sessions' files hold, wherever calls are merged:
``tokens`` and ``export`` (``scan.sharing``) and a provider's ``usage`` (the library's).

A resumed or forked session copies its parent's calls, each with the same dedupe
key.  The copy with the highest rank counts once (a provider's rank puts the copy in
the file of the session its record names first, then the nearest copy of it in a chain
of resumes: ``claude.dedupe.packed_entries``);
between copies of one rank, the one of the session whose first call came first, then
whose id sorts first: whatever sessions were asked for and in whatever order, and a
choice that stays as the sessions grow.
"""

from __future__ import annotations

from agentscan.model import KEY, RANK, SESSION, TS


def merge_duplicates(entries: list[list]) -> list[list]:
    """Keep one copy of each keyed call across sessions: the highest rank, then the copy of
    the session that comes first in ``session_order`` (in the place of the first copy)."""
    kept: list[list] = []
    best: dict[str, int] = {}
    order: dict[str, tuple] | None = None  # made at the first tie between two sessions
    append = kept.append
    for entry in entries:
        key = entry[KEY]
        if key is None:
            append(entry)
            continue
        slot = best.get(key)
        if slot is None:
            best[key] = len(kept)
            append(entry)
            continue
        current = kept[slot]
        if entry[RANK] > current[RANK]:
            kept[slot] = entry
        elif entry[RANK] == current[RANK] and entry[SESSION] != current[SESSION]:
            if order is None:
                order = session_order(entries)
            if order[entry[SESSION]] < order[current[SESSION]]:
                kept[slot] = entry
    return kept


def session_order(entries: list[list]) -> dict[str, tuple]:
    """Each session's place among those whose calls ``entries`` hold: the one whose first call
    came first, then by id.  Not the order the sessions were asked for (``tokens A B`` and
    ``tokens B A``, or every session, credit a shared call to the same one), and nothing a
    session's growth moves (its last call would: a parent that goes on after a fork would
    lose its own calls to the fork).  Copies keep their calls' times, so a parent and a
    session resumed from it often begin at the same time: then the id decides."""
    firsts: dict[str, float] = {}
    never = float("inf")  # a session with no call time goes after those with one
    for entry in entries:
        session, ts = entry[SESSION], entry[TS]
        first = firsts.setdefault(session, never)
        if ts is not None and ts < first:
            firsts[session] = ts
    return {session: (first, session) for session, first in firsts.items()}
