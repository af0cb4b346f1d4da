"""Sessions' key hashes as the index holds them at a given fingerprint, and whether one of
them is met twice.

Both patches (``answerpatch`` of ``--by session``, ``grouppatch`` of a grouping) and the
bases they keep read sessions' packed 64-bit key hashes, and each may trust them only when
they were kept at the fingerprint it knows the session by: one read for all of them.  A hash
met twice is a call two sessions' files hold (or one holds twice): the patches, the bases and
a whole report's merge (``sharing.meeting``) ask it by the same two rules (``repeated_at``,
``repeated_in_order``).
"""

from __future__ import annotations

from itertools import islice
from operator import eq
from typing import TYPE_CHECKING, Sequence

from agentscan.sealing import unseal

if TYPE_CHECKING:
    from agentscan.scan.cache import Cache


def key_hashes_at(cache: Cache, pairs: Sequence[tuple[str, str | None]]) -> list[tuple[str, bytes]] | None:
    """Each session's id (of ``pairs``, in that order) and its key hashes (whole 8-byte words),
    as kept at the fingerprint paired with it; ``None`` when one was not read at that
    fingerprint (a read that failed, or it changed since): nothing tells its calls apart then."""
    found = cache.get_keys(sorted({session_id for session_id, _ in pairs}))
    read: list[tuple[str, bytes]] = []
    for session_id, fingerprint in pairs:
        kept = found.get(session_id)
        payload = unseal(kept[1]) if kept is not None and kept[0] == fingerprint else None
        if payload is None:
            return None
        read.append((session_id, payload[:len(payload) // 8 * 8]))
    return read


def repeated_at(payloads: Sequence[bytes]) -> tuple[int | None, set[int]]:
    """Where a key hash of ``payloads`` (unsealed, of whole 8-byte words) is met a second time:
    the position of the first payload holding one met before, in it or an earlier one
    (``None``: no hash twice, the common case), and the set the hashes were added to a payload
    at a time (in C), up to that one.  No ``Counter`` of every hash: at the bench's scale 10
    (800,000) one cost an unchanged export 0.2 CPU-s more."""
    seen: set[int] = set()
    for at, payload in enumerate(payloads):
        hashes = memoryview(payload)[:len(payload) // 8 * 8].cast("Q")
        before = len(seen)
        seen.update(hashes)
        if len(seen) - before < len(hashes):
            return at, seen
    return None, seen


def repeated_in_order(ordered: Sequence[int]) -> bool:
    """Whether a key hash is twice in ``ordered`` (sorted): each compared with the next (in C),
    no set made, for a caller that sorts them anyway (a basis keeps them sorted)."""
    return any(map(eq, ordered, islice(ordered, 1, None)))
