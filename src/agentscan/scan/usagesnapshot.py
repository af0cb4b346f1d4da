"""A provider's usage snapshot in the index: every session's sums (and their warnings) at
its fingerprint, kept as one sealed value under the stamp of them all (``collect``), so that
a report over unchanged files reads one value, not a row a session.  Here its layout,
written and read back checked; when it is read and kept is ``collect``'s."""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING, Mapping, Sequence

import orjson

from agentscan.scan.sessionsums import SessionSums, stored_told
from agentscan.sealing import seal, unseal_json
from agentscan.usagegroups import GROUP_WIDTH

if TYPE_CHECKING:
    from agentscan.model import SessionRef


def key(provider: str) -> str:
    """The snapshot's name in the index (one a provider, the latest kept beside the one asked)."""
    return f"usage:{provider}"


def sealed(ids: Sequence[str], sums: Mapping[str, SessionSums], fingerprints: Mapping[str, str | None]) -> bytes:
    """The snapshot of the sessions ``ids``: ``[ids, [SessionSums.document(), …], fingerprints]``, sealed."""
    values = [sums[ref_id].document() for ref_id in ids]
    return seal(orjson.dumps([list(ids), values, [fingerprints[ref_id] for ref_id in ids]]))


def sums_of(value: bytes | None, pairs: Sequence[tuple[SessionRef, str]], fingerprints: Mapping[str, str | None], *,
            whole: bool) -> dict[str, SessionSums] | None:
    """The sums ``value`` (``sealed``'s) holds for ``pairs`` at their ``fingerprints``; ``whole``:
    it was kept under their stamp, so it must hold every one of them, at any fingerprint.
    ``None``: no snapshot, damaged, or not as kept."""
    document = unseal_json(value)
    try:
        ids, values, stored = document
        if (type(ids) is not list or type(values) is not list or type(stored) is not list
                or not len(ids) == len(values) == len(stored)):
            return None
        if whole and len(ids) != len(pairs):
            return None
        # The seal vouches for the bytes; the shape is checked in bulk, at C speed.
        groups_of = [value[0] for value in values]
        if set(map(type, groups_of)) - {list}:
            return None
        every_group = list(chain.from_iterable(groups_of))
        if set(map(type, every_group)) - {list} or set(map(len, every_group)) - {GROUP_WIDTH}:
            return None
        found: dict[str, SessionSums] = {}
        for ref_id, value, fingerprint in zip(ids, values, stored):
            if whole or fingerprints.get(ref_id) == fingerprint:
                found[ref_id] = SessionSums(*stored_told(value))
    except (TypeError, ValueError, KeyError):
        return None
    if whole and any(ref_id not in found for _, ref_id in pairs):
        return None
    return found
