"""Discovery taken from the index when a provider's roots did not change.

A warm run of a heavy user (15,000+ sessions) spent most of its time
discovering what the previous run had already discovered.  After a real
discovery, the provider's sessions are stored in the index with the census
of its roots (``scan.census``) at that moment; the next run whose census is
the same gets them back as *memo refs*: ``SessionRef``s with the ids, paths,
files and recency of the real ones and the fingerprint they had, but no
provider ``hint``.  That is all ``list`` and ``tokens`` need while every
session's rows and sums are cached; anything that must parse a session asks
``Scanner.real_ref`` for the real one, which discovers the provider then.

Warnings discovery raised are stored with the memo and said again, so a
warm run reports what a cold one did.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Callable, NamedTuple

import orjson

from agentscan.model import ScanWarning, SessionRef
from agentscan.scan.census import census
from agentscan.scan.lazyrefs import MemoRefs
from agentscan.sealing import seal, unseal

if TYPE_CHECKING:
    from agentscan.context import Captured, ScanContext
    from agentscan.providers.base import Provider
    from agentscan.scan.cache import Cache

_FORMAT = 1

#: how many warnings a stored discovery may carry (more: it is not stored)
MAX_WARNINGS = 10_000

#: a file changed less than this before the census may still change within its
#: timestamp's resolution (1-2 s on some file systems) without the census seeing it
SETTLE_NS = 2_000_000_000


class Stamp(NamedTuple):
    value: str
    #: no file under the roots changed within ``SETTLE_NS`` of the census: what is
    #: read now may be kept (else it is used but not stored: git's "racily clean")
    settled: bool


def stamp_of(provider: Provider, ctx: ScanContext) -> Stamp | None:
    """What the provider's discovery depends on, as one digest (``None``: no memo)."""
    import time

    from agentscan.codeid import code_identity

    paths = provider.census_paths(ctx)
    stat_only = provider.census_stat_paths(ctx)
    if paths is None or stat_only is None:
        return None
    found = census(paths, stat_only=stat_only, admits=ctx.resolved_inside_roots)
    if found is None:
        return None
    # The roots themselves (an env var may point elsewhere) and the code that read them.
    setting = "\n".join([code_identity(), provider.name, provider.parser_version, str(_FORMAT), found.digest,
                         *paths, "", *stat_only])
    now = time.time_ns()
    # A time in the future is a clock's skew, not a change in progress.
    settled = found.newest_ns < now - SETTLE_NS or found.newest_ns > now + SETTLE_NS
    return Stamp(hashlib.blake2b(setting.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest(), settled)


class DiscoveryMemo:
    """One provider's discovery, stored and taken back under a census stamp."""

    def __init__(self, cache: Cache, provider: Provider, ctx: ScanContext, stamp: Stamp | None) -> None:
        """``stamp``: ``stamp_of(provider, ctx)``, taken before discovery runs."""
        self._cache = cache
        self._provider = provider
        self._ctx = ctx
        self._key = f"discovery:{provider.name}"
        self.stamp = stamp.value if stamp is not None else None
        self._settled = stamp is not None and stamp.settled

    def load(self) -> MemoRefs | None:
        """The stored refs (made one by one as they are asked for), or ``None`` when the
        roots changed; the warnings discovery raised are said again."""
        if self.stamp is None:
            return None
        payload = unseal(self._cache.get_snapshot(self._key, self.stamp))
        if payload is None:
            return None
        try:
            document = orjson.loads(payload)
            refs = MemoRefs.checked(self._provider.name, document["refs"])
            warnings = [ScanWarning(w["path"], w["message"], w.get("line")) for w in document["warnings"]]
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return None
        if refs is None:
            return None
        for warning in warnings:
            self._ctx.warn(warning.path, warning.message, warning.line)
        return refs

    def store(self, refs: list[SessionRef], warnings: Captured,
              fingerprint_of: Callable[[SessionRef], str | None]) -> None:
        """Keep ``refs`` (just discovered) for the next run with the same census."""
        if self.stamp is None or not self._settled or warnings.passing or warnings.overflowed:
            return
        entries = []
        for ref in refs:
            fingerprint = fingerprint_of(ref)
            if fingerprint is None:
                return  # a session that cannot be cached makes the whole discovery uncachable
            entries.append([ref.native_id, str(ref.path) if ref.path is not None else None, ref.recency,
                            [str(path) for path in ref.files], list(ref.children), fingerprint])
        document = {"refs": entries, "warnings": [w.to_json() for w in warnings]}
        self._cache.put_snapshot(self._key, self.stamp, seal(orjson.dumps(document)))
        self._cache.commit()
