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

#: Providers whose call keys are ``<id>\x1f<qualifier>`` and whose copies may lack the
#: qualifier, keyed ``<id>\x1f`` (Claude: ``message.id`` and ``requestId``, which a gateway
#: strips from some records).  Such a copy is the call of the one qualified key its id has
#: among the calls merged (``joined_keys``), so which sessions may share a call is told by
#: the id alone (``sharing_part``).
PARTIAL_KEYS = frozenset({"claude"})
_MARK = "\x1f"


def sharing_part(key: str, provider: str) -> str:
    """The part of a call's key that two sessions holding a copy of the call both have: what
    its key hash is taken of (``scan.sessionsums``)."""
    if provider in PARTIAL_KEYS:
        return key[: key.find(_MARK) + 1] or key
    return key


def joined_keys(entries: list[list]) -> dict[str, str]:
    """Each key that lacks its qualifier (``PARTIAL_KEYS``: it ends with the mark) -> the one
    qualified key of its id among ``entries``, when there is exactly one (with two or more, as
    with none, its copies count once apart): decided on all of them, whatever their order,
    as ``claude.dedupe`` decides within one session's files."""
    bare = {key for entry in entries if (key := entry[KEY]) is not None and key.endswith(_MARK)}
    if not bare:
        return {}
    found: dict[str, set[str]] = {}
    for entry in entries:
        key = entry[KEY]
        if key is not None and not key.endswith(_MARK):
            head = key[: key.find(_MARK) + 1]
            if head in bare:
                found.setdefault(head, set()).add(key)
    return {head: next(iter(keys)) for head, keys in found.items() if len(keys) == 1}


def merge_duplicates(entries: list[list]) -> list[list]:
    """Keep one copy of each keyed call across sessions: the highest rank, then the copy of
    the session that comes first in ``session_order`` (in the place of the first copy).  A
    copy without its key's qualifier is a copy of the call ``joined_keys`` names."""
    kept: list[list] = []
    best: dict[str, int] = {}
    order: dict[str, tuple] | None = None  # made at the first tie between two sessions
    append = kept.append
    joined = joined_keys(entries)
    for entry in entries:
        key = entry[KEY]
        if key is None:
            append(entry)
            continue
        if joined:
            key = joined.get(key, key)
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
