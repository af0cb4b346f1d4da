"""Which sessions share calls, remembered in the index at a digest of the sessions asked.

Whether two sessions hold a copy of the same call (a resumed or forked session's) is
a fact of their files: the answer found from their key hashes (``sharing.sharing``)
stands while every session is at the same fingerprint.  ``tokens`` keeps it per
provider (``shared:<provider>``: ``collect.Collector``, a window's pick and its settling,
``scan.windowspans``/``windowsettle``), an export for the whole export
(``export.days``); each under its own ``meta`` key, with the digest it holds for
(``sessions_stamp``).  One reader and one writer for them all: an answer of another
shape is not taken (it is found again, exactly).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import orjson

from agentscan.digests import blake2b
from agentscan.scan.cache import decode_json

if TYPE_CHECKING:
    from agentscan.scan.cache import Cache


def provider_key(provider: str) -> str:
    """The ``meta`` key of a provider's answer (every session of it, ``tokens``)."""
    return f"shared:{provider}"


def sessions_stamp(sessions: Iterable[tuple[str, str | None]], *, salt: str | None = None) -> str | None:
    """A digest of sessions ``(id, fingerprint)``, in any order (``None``: one has no
    fingerprint, so no answer of them can be remembered).  ``salt``: a fact more the
    digest holds for (an export's: the code that hashes the calls' keys)."""
    listing = []
    for session_id, fingerprint in sessions:
        if fingerprint is None:
            return None
        listing.append(f"{session_id}\0{fingerprint}")
    listing.sort()
    if salt is not None:
        listing.append(salt)
    return blake2b("\n".join(listing).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def remembered(cache: Cache | None, key: str, stamp: str | None) -> set[str] | None:
    """The ids remembered under ``key`` at ``stamp``; ``None``: none kept at it (or of
    another shape)."""
    if stamp is None or cache is None:
        return None
    kept = decode_json(cache.get_meta(key))
    if not isinstance(kept, dict) or kept.get("stamp") != stamp or not isinstance(kept.get("ids"), list):
        return None
    ids = kept["ids"]
    return set(ids) if all(isinstance(item, str) for item in ids) else None


def remember(cache: Cache, key: str, stamp: str, shared: Iterable[str]) -> None:
    """Keep ``shared`` under ``key`` at ``stamp`` (the caller commits)."""
    cache.put_meta(key, orjson.dumps({"stamp": stamp, "ids": sorted(shared)}).decode())
