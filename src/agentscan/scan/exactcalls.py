"""The calls of the sessions a report reads call by call (``collect.Collector``): which of
them hold a dedupe key another selected session holds too (``shared``: their copies are merged
exactly), and every call of those read so (``calls``): kept from this run's parse, decoded from
the index, or parsed again."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from agentscan.model import SessionRef
from agentscan.scan import sharedmemo
from agentscan.scan.sharing import entries_from, sharing
from agentscan.sealing import seal

if TYPE_CHECKING:
    from agentscan.scan.collect import Collector


def shared(collector: Collector, provider: str, pairs: list[tuple[SessionRef, str]], keys: dict[str, bytes]) -> set[str]:
    """Sessions holding a dedupe key that another selected session also holds.

    The answer is remembered in the index for the same selection of
    sessions at the same fingerprints; otherwise the key hashes decide.
    """
    if provider in collector.picked_shared:  # what the window's pick read (``windowspans``)
        return collector.picked_shared[provider]
    if len(pairs) < 2:
        return set()
    stamp = collector.stamps.get(provider)
    found = sharedmemo.remembered(collector.cache, sharedmemo.provider_key(provider), stamp)
    if found is not None:
        return found
    collector.fill_keys([ref_id for _, ref_id in pairs], keys)
    holding = sharing({ref_id: keys.get(ref_id, b"") for _, ref_id in pairs})
    # Remembered for every session of the provider only: a few (a patched answer's
    # changed sessions) must not take the place of the whole report's answer.
    if stamp is not None and collector.cache is not None and collector.every_session(provider, pairs):
        sharedmemo.remember(collector.cache, sharedmemo.provider_key(provider), stamp, holding)
    return holding


def calls(collector: Collector, refs: list[SessionRef]) -> dict[str, list[list]]:
    """Every call of ``refs``: kept from this run's parse, from the index, or parsed again.

    Calls found by a parse are stored, so the next run decodes them instead.
    """
    found: dict[str, list[list]] = {}
    fresh: list[SessionRef] = []
    wanted = []
    for ref in refs:
        parsed = collector.parsed.get(ref.id)
        if parsed is not None and parsed.entries is not None:
            found[ref.id] = parsed.entries
            fresh.append(ref)
        else:
            wanted.append(ref)
    cached = collector.cache.get_calls([ref.id for ref in wanted]) if collector.cache is not None and wanted else {}
    missing = []
    for ref in wanted:
        hit = cached.get(ref.id)
        entries = entries_from(hit[1]) if hit is not None and hit[0] == collector.fingerprints[ref.id] else None
        if entries is None:
            missing.append(ref)
        else:
            found[ref.id] = entries
    if collector.told is not None and len(found) > len(fresh):
        collector.told(len(found) - len(fresh))  # (those parsed for their sums were told then)
    if missing:
        parser = collector.parser()
        missing = parser.real_refs(missing, True)
        parsing = {ref.id for ref in missing}
        for ref in wanted:
            if ref.id not in found and ref.id not in parsing:
                found[ref.id] = []  # gone since the census (``real_refs`` warned)
        found.update(parser.calls(missing, collector.told))
    if collector.cache is not None:
        rows = []
        for ref in fresh + missing:
            fingerprint = collector.fingerprints[ref.id]
            if fingerprint is not None:
                rows.append((ref.id, fingerprint, seal(orjson.dumps(found[ref.id]))))
        collector.cache.put_calls(rows)
    return found
