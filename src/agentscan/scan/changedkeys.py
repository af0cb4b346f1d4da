"""The key hashes of the sessions a patched answer changed, as the index holds them now.

Both patches (``answerpatch`` of ``--by session``, ``grouppatch`` of a grouping) must know
that no changed or new session's call is another session's before they add its part alone;
each starts from the same read: every changed session's packed 64-bit key hashes, kept at
the fingerprint the session has now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from agentscan.sealing import unseal

if TYPE_CHECKING:
    from agentscan.scan.cache import Cache


def current_key_hashes(cache: Cache, now: Sequence[tuple[str, str | None]],
                       changed: Sequence[int]) -> list[tuple[str, bytes]] | None:
    """Each changed session's id (``now``'s at ``changed``, in that order) and its key hashes
    (whole 8-byte words); ``None`` when one was not read at the fingerprint it has now (a
    read that failed): nothing tells its calls apart then."""
    found = cache.get_keys(sorted({now[position][0] for position in changed}))
    read: list[tuple[str, bytes]] = []
    for position in changed:
        session_id, fingerprint = now[position]
        kept = found.get(session_id)
        payload = unseal(kept[1]) if kept is not None and kept[0] == fingerprint else None
        if payload is None:
            return None
        read.append((session_id, payload[:len(payload) // 8 * 8]))
    return read
