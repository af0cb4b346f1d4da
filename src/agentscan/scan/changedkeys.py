"""Sessions' key hashes as the index holds them at a given fingerprint.

Both patches (``answerpatch`` of ``--by session``, ``grouppatch`` of a grouping) and the
bases they keep read sessions' packed 64-bit key hashes, and each may trust them only when
they were kept at the fingerprint it knows the session by: one read for all of them.
"""

from __future__ import annotations

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
