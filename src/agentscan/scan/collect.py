"""Collecting usage for many sessions: cached, parallel when cold, deduplicated.

Each session's usage is parsed on its own (so it can be cached under its own
fingerprint) and deduplicated within the session by its provider.  Calls that
can appear in several sessions' files carry a ``dedupe_key``; the global
merge here keeps the highest-ranked copy of each, so cached entries
deduplicate across files exactly as a fresh parse would.

A cold run with many sessions parses in worker processes: parsing is
CPU-bound and the machine's cores are otherwise idle.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Sequence

import orjson

from agentscan.context import ScanContext
from agentscan.model import KEY, RANK, ScanWarning, SessionRef

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner
    from agentscan.providers.base import Provider

#: below this many uncached sessions a process pool costs more than it saves
PARALLEL_MIN_SESSIONS = 48


def _parse_one(provider: Provider, ref: SessionRef, ctx: ScanContext) -> dict:
    """One session's packed entries, with the warnings its parse raised."""
    with ctx.warnings.capture() as warnings:
        try:
            entries = [entry.pack() for entry in provider.usage([ref], ctx)]
        except Exception as exc:  # noqa: BLE001 - a provider bug costs one session, not the command
            from agentscan.context import internal_error

            internal_error(ctx, ref, exc)
            entries = []
    return {"entries": entries, "warnings": [w.to_json() for w in warnings]}


def _worker(job: tuple[str, list[SessionRef], str, dict[str, str]]) -> tuple[list[dict], list[ScanWarning]]:
    from agentscan.providers import get_provider

    provider_name, refs, home, env = job
    ctx = ScanContext.create(home=home, env=env)
    provider = get_provider(provider_name)
    results = [_parse_one(provider, ref, ctx) for ref in refs]
    return results, ctx.warnings.items


def _parallel(provider: Provider, refs: list[SessionRef], ctx: ScanContext) -> list[dict] | None:
    """Parse in worker processes; ``None`` when that is not possible here."""
    workers = min(os.cpu_count() or 1, 8)
    if workers < 2 or len(refs) < PARALLEL_MIN_SESSIONS:
        return None
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    # Interleave so each worker gets a similar mix of large and small sessions.
    chunks = [refs[i::workers * 4] for i in range(workers * 4)]
    jobs = [(provider.name, chunk, str(ctx.home), dict(ctx.env)) for chunk in chunks if chunk]
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
            outputs = []
            for job, output in zip(jobs, pool.map(_worker, jobs)):
                outputs.append(output)
                ctx.progress.advance(len(job[1]))
    except Exception:  # unpicklable provider state, no /dev/shm, …: parse serially instead
        return None
    by_ref: dict[int, dict] = {}
    for chunk_index, (results, warnings) in enumerate(outputs):
        ctx.warnings.extend(warnings)
        chunk = [c for c in chunks if c][chunk_index]
        for ref, packed in zip(chunk, results):
            by_ref[id(ref)] = packed
    return [by_ref[id(ref)] for ref in refs]


def collect_usage(scanner: Scanner, refs: Sequence[SessionRef]) -> dict[str, list[list]]:
    """Provider name -> packed entries of every counted call of ``refs``."""
    return merge_by_provider(refs, usage_by_session(scanner, refs))


def merge_by_provider(refs: Sequence[SessionRef], per_session: dict[str, list[list]]) -> dict[str, list[list]]:
    """``usage_by_session`` output deduplicated across sessions, per provider."""
    collected: dict[str, list[list]] = {}
    for provider_name, provider_refs in _by_provider(refs).items():
        entries: list[list] = []
        for ref in provider_refs:
            entries.extend(per_session.get(ref.id, ()))
        collected[provider_name] = merge_duplicates(entries)
    return collected


def usage_by_session(scanner: Scanner, refs: Sequence[SessionRef]) -> dict[str, list[list]]:
    """Session id -> its own packed entries, not deduplicated against other sessions.

    These add up to the session's row ``tokens``, so a row's cost is priced
    from exactly the calls its tokens count.
    """
    found: dict[str, list[list]] = {}
    for provider_name, provider_refs in _by_provider(refs).items():
        provider = scanner.provider(provider_name)
        for ref, packed in zip(provider_refs, _provider_usage(scanner, provider, provider_refs)):
            found[ref.id] = packed
    return found


def _by_provider(refs: Sequence[SessionRef]) -> dict[str, list[SessionRef]]:
    grouped: dict[str, list[SessionRef]] = {}
    for ref in refs:
        grouped.setdefault(ref.provider, []).append(ref)
    return grouped


def _provider_usage(scanner: Scanner, provider: Provider, refs: list[SessionRef]) -> list[list[list]]:
    cache = scanner.cache
    fingerprints = {ref.id: provider.fingerprint(ref, scanner.ctx) for ref in refs} if cache else {}
    cached = cache.get_usage([ref.id for ref in refs]) if cache else {}
    results: dict[str, list[list]] = {}
    misses: list[SessionRef] = []
    for ref in refs:
        hit = cached.get(ref.id)
        if hit is not None and fingerprints.get(ref.id) is not None and hit[0] == fingerprints[ref.id]:
            document = orjson.loads(hit[1])
            for warning in document["warnings"]:
                scanner.ctx.warn(warning["path"], warning["message"], warning.get("line"))
            results[ref.id] = document["entries"]
        else:
            misses.append(ref)
    progress = scanner.ctx.progress
    progress.expect(len(misses))
    parsed = _parallel(provider, misses, scanner.ctx)
    if parsed is None:
        parsed = []
        for ref in misses:
            parsed.append(_parse_one(provider, ref, scanner.ctx))
            progress.advance()
    scanner.parses += len(misses)
    for ref, document in zip(misses, parsed):
        results[ref.id] = document["entries"]
        fingerprint = fingerprints.get(ref.id)
        if cache is not None and fingerprint is not None:
            cache.put_usage(ref.id, provider.name, fingerprint, document)
    if cache is not None and misses:
        cache.commit()
    return [results[ref.id] for ref in refs]


def merge_duplicates(entries: list[list]) -> list[list]:
    """Keep one copy of each keyed call across sessions: the highest rank, then the first."""
    kept: list[list] = []
    best: dict[str, int] = {}
    append = kept.append
    for entry in entries:
        key = entry[KEY]
        if key is None:
            append(entry)
            continue
        slot = best.get(key)
        if slot is None:
            best[key] = len(kept)
            append(entry)
        elif entry[RANK] > kept[slot][RANK]:
            kept[slot] = entry
    return kept
