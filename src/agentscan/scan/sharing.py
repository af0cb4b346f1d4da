"""Calls that several sessions' files hold: found by their key hashes, counted once.

A resumed or forked session copies its parent's calls, each with the same dedupe
key; which copy counts is ``agentscan.sharedcalls``'s rule.  ``sharing`` finds the
sessions whose key hashes meet another's (the common case, no key twice, costs one
set of 64-bit ints), and ``merge_duplicates`` merges the calls of those sessions
exactly.
"""
from __future__ import annotations

from collections import Counter
from itertools import chain
from operator import itemgetter
from typing import Sequence

from agentscan.model import CACHE_WRITE_1H, KEY, RANK, WEB_SEARCHES, SessionRef
from agentscan.sharedcalls import merge_duplicates
from agentscan.scan.changedkeys import repeated_at
from agentscan.scan.sessionsums import SUMMED
from agentscan.sealing import unseal, unseal_json


def entries_from(data: bytes) -> list[list] | None:
    """Cached packed entries, or ``None`` when they do not decode to the packed shape (those
    kept before ``WEB_SEARCHES`` was packed: 12 fields, or a 13th that is an ``ORIGIN``)."""
    entries = unseal_json(data)
    if not isinstance(entries, list):
        return None
    # Checked a field at a time over every entry, at C speed: an unchanged export at scale 10
    # decodes 440,000 calls, and checking each entry's fields in turn took 0.4 s of it.
    if not entries:
        return entries
    if set(map(type, entries)) - {list} or min(map(len, entries)) <= WEB_SEARCHES:
        return None
    for index in _INT_FIELDS:
        if set(map(type, map(itemgetter(index), entries))) - {int}:
            return None
    if not all(issubclass(kind, (str, type(None))) for kind in set(map(type, map(itemgetter(KEY), entries)))):
        return None
    return entries


_INT_FIELDS = (*SUMMED, RANK, CACHE_WRITE_1H, WEB_SEARCHES)


def sharing(sealed: dict[str, bytes]) -> set[str]:
    """Ids whose key hashes meet another id's.  A damaged or missing blob (a damaged
    index; none in a sound one) says nothing of which sessions its calls meet, so then
    every id counts as sharing and all their calls are merged exactly: marking only the
    damaged one summed its partners whole and counted their shared calls twice."""
    keys: dict[str, bytes] = {}
    for session_id, blob in sealed.items():
        payload = unseal(blob)
        if payload is None:
            return set(sealed)
        keys[session_id] = payload
    return meeting(keys)


def meeting(keys: dict[str, bytes]) -> set[str]:
    """Ids whose key hashes (unsealed) meet another id's.

    Each session's hashes are added to one set in turn until one is met again
    (``changedkeys.repeated_at``); only then are the repeated ones found, from there on, by
    set operations a session at a time."""
    blobs = list(keys.values())
    if any(len(blob) % 8 for blob in blobs):
        return _meeting_joined(keys)  # (words cut across sessions, as they always were read)
    at, _ = repeated_at(blobs)
    if at is None:
        return set()  # the common case: no key twice, nothing shared
    seen = set(chain.from_iterable(map(_hashes, blobs[:at])))  # (those before met none twice)
    repeated: set[int] = set()
    for blob in blobs[at:]:
        hashes = _hashes(blob)
        if not seen.isdisjoint(hashes):
            repeated.update(seen.intersection(hashes))
        before = len(seen)
        seen.update(hashes)
        if len(seen) - before < len(hashes) and repeated_at([blob])[0] is not None:
            repeated.update(value for value, count in Counter(hashes).items() if count > 1)  # twice in one session
    return {session_id for session_id, blob in keys.items() if not repeated.isdisjoint(_hashes(blob))}


def _meeting_joined(keys: dict[str, bytes]) -> set[str]:
    """``meeting`` of blobs not all of whole 8-byte words (none in a sound index)."""
    found: set[str] = set()
    view = _hashes(b"".join(keys.values()))
    if len(set(view)) == len(view):
        return found  # the common case: no key twice, nothing shared
    counts = Counter(view)
    repeated = {value for value, count in counts.items() if count > 1}
    for session_id, blob in keys.items():
        if not repeated.isdisjoint(_hashes(blob)):
            found.add(session_id)
    return found


def merge_by_provider(refs: Sequence[SessionRef], per_session: dict[str, list[list]]) -> dict[str, list[list]]:
    """``usage_by_session`` output deduplicated across sessions, per provider."""
    grouped: dict[str, list[list]] = {}
    for ref in refs:
        grouped.setdefault(ref.provider, []).extend(per_session.get(ref.id, ()))
    return {provider: merge_duplicates(entries) for provider, entries in grouped.items()}


def sharers(sealed: dict[str, bytes], chosen: set[str]) -> set[str]:
    """Ids not in ``chosen`` whose key hashes (``sealed``, as the index keeps them) meet a
    chosen one's: the sessions a part of the whole must be merged with for its calls to be
    credited as they are in the whole (``export --since`` beside a whole export).  A damaged
    blob counts as meeting (its calls then decide, decoded)."""
    wanted: set[int] = set()
    others: dict[str, memoryview | None] = {}
    for session_id, blob in sealed.items():
        payload = unseal(blob)
        view = None if payload is None else _hashes(payload)
        if session_id in chosen:
            if view is None:  # its calls are not known here: any other session may share them
                return set(sealed) - chosen
            wanted.update(view)
        else:
            others[session_id] = view
    return {session_id for session_id, view in others.items() if view is None or not wanted.isdisjoint(view)}


def _hashes(payload: bytes) -> memoryview:
    """The 64-bit key hashes of an unsealed blob (``sessionsums.key_hashes``), as integers."""
    return memoryview(payload)[: len(payload) // 8 * 8].cast("Q")
