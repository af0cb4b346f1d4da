"""A window's pick after the census moved (an agent at work grew a session).

``windowspans.pick`` keeps the spans of the sessions whose fingerprint is their span's;
the changed ones are read.  Which sessions share calls was remembered at the census
before, so it is found again here, as ``collect.Collector._shared`` finds it, from every
session's key hashes: the unchanged ones' from the index (``keys_known``: all of them
there, or the window reads every session, as before), the changed ones' from their read.
A session left unread that now meets a changed one's calls (a resumed session's parent,
its calls before the window) is read too, so the copies merged are the same ones a read
of every session merges.  The answer and the spans at the new census are kept: the next
run, with the same census, takes them as they are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentscan.scan import sharedmemo, windowspans
from agentscan.scan.sharing import sharing

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.collect import Collector
    from agentscan.scan.sessionsums import SessionSums

Pairs = list[tuple["SessionRef", str]]


def taken(collector: Collector, name: str, every: Pairs, picked: windowspans.Picked, keys: dict[str, bytes],
          unsettled: dict[str, tuple[Pairs, windowspans.Picked]]) -> bool:
    """Whether the window's pick of the provider's sessions (``every``) stands: noted in
    ``collector`` (and in ``unsettled`` when which share calls is found again, by ``settle``,
    once the picked are read).  It does not when the index lacks the key hashes of a session
    not changed since the spans (into ``keys``): then every session is read, as before."""
    if picked.shared is None:
        unchanged = [ref_id for _, ref_id in every if ref_id not in picked.changed]
        collector.fill_keys(unchanged, keys)
        if not all(ref_id in keys for ref_id in unchanged):
            return False
        unsettled[name] = (every, picked)
    else:
        collector.picked_shared[name] = picked.shared
    collector.outside[name] = picked.outside
    return True


def settle(collector: Collector, name: str, every: Pairs, picked: windowspans.Picked,
           by_provider: dict[str, Pairs], sums: dict[str, SessionSums], keys: dict[str, bytes],
           keep_entries: bool) -> None:
    """Which of ``every`` share calls (``collector.picked_shared``), the sessions of those
    the window left unread read too (``by_provider``, ``sums``), and both kept at the stamp."""
    shared = sharing({ref_id: keys.get(ref_id, b"") for _, ref_id in every})
    read = {ref_id for _, ref_id in by_provider[name]}
    extra = [(ref, ref_id) for ref, ref_id in every if ref_id in shared and ref_id not in read]
    if extra:
        read.update(ref_id for _, ref_id in extra)
        by_provider[name] = [(ref, ref_id) for ref, ref_id in every if ref_id in read]  # in their order
        collector.outside[name] -= {ref.native_id for ref, _ in extra}
        misses: list[SessionRef] = []
        stale: set[str] = set()
        collector.stored_sums(extra, sums, keys, misses, stale)
        collector.read_misses(misses, stale, sums, keys, keep_entries)
    collector.picked_shared[name] = shared
    stamp, cache = collector.stamps.get(name), collector.cache
    if stamp is None or cache is None:
        return
    sharedmemo.remember(cache, sharedmemo.provider_key(name), stamp, shared)
    windowspans.store(cache, name, stamp, every, {ref_id: sums[ref_id] for ref_id in read if ref_id in sums},
                      collector.fingerprints, picked.spans)


def store_spans(collector: Collector, by_provider: dict[str, Pairs], sums: dict[str, SessionSums]) -> None:
    """Each provider's spans, for the next window, once every session was read and its census
    held still for a run (its snapshot answered): a census that changes on every run (an agent
    at work) would pay for spans never read."""
    assert collector.cache is not None
    for name, pairs in by_provider.items():
        stamp = collector.stamps.get(name)
        if name not in collector.outside and name not in collector.unsnapped and stamp is not None:
            windowspans.store(collector.cache, name, stamp, pairs, sums, collector.fingerprints)
