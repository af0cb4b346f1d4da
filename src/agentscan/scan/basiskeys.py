"""The key hashes of a basis by session (``scan.answerpatch``): kept beside it, and checked
against the changed sessions' before a patch.

A basis keeps each session's key hashes and each provider's all sorted, so a patch can
tell that no changed or new session's calls meet another session's (only a whole report
merges those).  (A grouped basis keeps its sessions' in ``scan.groupstore``, shared.)
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from typing import TYPE_CHECKING, Any

from agentscan.scan.changedkeys import key_hashes_at, repeated_at, repeated_in_order
from agentscan.scan.sharing import meeting

if TYPE_CHECKING:
    from agentscan.scan.answerbasis import Basis, Details, Sections
    from agentscan.scan.scanner import Scanner


def key_sections(scanner: Scanner, stored: Sections, ids: list[str], fingerprints: list[str],
                 details: list[list[Any]]) -> dict[str, list[str]] | None:
    """Each session's key hashes into ``stored`` (where, in the last two fields of its
    ``details``), each provider's all sorted (``set:<provider>``), and the ids and
    fingerprints; gives each provider's sessions whose calls meet another's (``None``: the
    index holds no key hashes of a session at its fingerprint, sharing could not be told).
    (A grouped basis keeps its sessions' key hashes in ``scan.groupstore``, shared.)"""
    cache = scanner.cache
    assert cache is not None
    by_provider: dict[str, list[int]] = {}
    for index, session_id in enumerate(ids):
        by_provider.setdefault(session_id.partition(":")[0], []).append(index)
    if any("\n" in text for text in (*ids, *fingerprints)):
        return None  # the ids are kept a line each (a Gemini session id may hold anything)
    sharing_ids: dict[str, list[str]] = {}  # provider -> the sessions whose calls meet another's
    for provider, indexes in by_provider.items():
        read = key_hashes_at(cache, [(ids[index], fingerprints[index]) for index in indexes])
        if read is None:
            return None  # key hashes not of this fingerprint: sharing could not be told
        payloads: dict[str, bytes] = {}
        for index, (session_id, payload) in zip(indexes, read):
            details[index][-2:] = [stored.append(payload), len(payload)]
            payloads[session_id] = payload
        # Sorted first, then compared with the next (in C): a set of a heavy user's 324,000
        # hashes took 0.1 s longer and 17 MB more, only to find the rare repeat.
        ordered = sorted(memoryview(b"".join(payloads.values())).cast("Q"))
        if repeated_in_order(ordered):
            sharing_ids[provider] = sorted(meeting(payloads))
            ordered = sorted(set(ordered))
        stored.add(f"set:{provider}", array("Q", ordered).tobytes())
    stored.add("ids", "\n".join(ids).encode("utf-8", "surrogateescape"))
    stored.add("fingerprints", "\n".join(fingerprints).encode("utf-8", "surrogateescape"))
    return sharing_ids


def nothing_shared(scanner: Scanner, basis: Basis, old_rows: dict[str, Details],
                    now: list[tuple[str, str | None]], changed: list[int]) -> bool:
    """No key hash of a changed or new session is another session's, or twice among theirs."""
    if not changed:
        return True
    assert scanner.cache is not None
    read = key_hashes_at(scanner.cache, [now[position] for position in changed])
    if read is None:
        return False  # not read at this fingerprint (a read that failed): nothing to tell by
    by_provider: dict[str, list[tuple[str, bytes]]] = {}
    for session_id, payload in read:
        by_provider.setdefault(session_id.partition(":")[0], []).append((session_id, payload))
    for provider, items in by_provider.items():
        if repeated_at([payload for _, payload in items])[0] is not None:
            return False
        known = basis.key_set(provider)
        for session_id, payload in items:
            before = old_rows.get(session_id)
            own = set(before[2]) if before is not None else set()
            for key in memoryview(payload).cast("Q"):
                if key not in own:
                    at = bisect_left(known, key)
                    if at < len(known) and known[at] == key:
                        return False  # another session's call (or a gone session's): merged whole
    return True


__all__ = ["key_sections", "nothing_shared"]
