"""How a scanner takes each provider's sessions (``Scanner.refs``): discovered, side by side
with the others' (``scan.aside``), or from the index while nothing under the provider's roots
changed (``scan.memo``), once per scanner.  The sessions of several providers are merged most
recent first, without making a ref per session when the index holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

from agentscan.progress import FINDING, Progress

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.providers.base import Provider
    from agentscan.scan.mergedrefs import MergedRefs
    from agentscan.scan.scanner import Scanner


def selected_refs(scanner: Scanner, providers: Iterable[str], few: int | None, *,
                  taken: dict[str, Sequence[SessionRef]],
                  merged: dict[tuple[str, ...], MergedRefs]) -> Sequence[SessionRef]:
    """``Scanner.refs``: every session of the providers named (all: none named), most recent
    first.  ``taken``: each provider's sessions as the scanner took them, ``merged``: the merges
    of several providers' stored ones, both kept by the scanner and filled here."""
    found: list[SessionRef] = []
    parts = []
    selected = scanner.selected(providers)
    pending = [provider for provider in selected if provider.name not in taken]
    # (Named only while some provider's sessions are to be found: a scanner asked again, inside
    # another phase, counts nothing here.)
    progress = scanner.ctx.progress if pending else Progress()
    with progress.named(FINDING):
        progress.expect(0)  # (its clock starts: drawn if it lasts, counted as each provider's come)
        aside = None
        if scanner.memo_discovery:  # each discovery needs its provider's census first
            scanner.take_censuses(pending)
            progress.advance(0)
            if few is not None and any(scanner.first_discovery(provider) for provider in pending[1:]):
                from agentscan.scan.aside import plan

                aside = plan(scanner, pending, few)
        try:
            for provider in selected:
                if provider.name not in taken:
                    handed = aside.take(provider) if aside is not None and provider.name in aside.names else None
                    taken[provider.name] = part = handed if handed is not None else discover(scanner, provider)
                    # (a stored discovery is not counted: ``len`` would read all of a ``TopRefs``)
                    progress.advance(len(part) if isinstance(part, list) else 0)
                parts.append(taken[provider.name])
        finally:
            if aside is not None:
                aside.stop()
            scanner.ctx.drop_listings()  # every discovery that could take a census's listing has run
    from agentscan.scan.memorefs import MemoRefs

    if any(isinstance(part, MemoRefs) for part in parts):
        # Ordered without making a ref per session: ``list`` reads the newest few.
        names = tuple(provider.name for provider in selected)
        merge = merged.get(names)
        if merge is None:
            from agentscan.scan.mergedrefs import MergedRefs

            merge = merged[names] = MergedRefs(parts)
        return merge
    for part in parts:
        found.extend(part)
    found.sort(key=lambda ref: ref.recency, reverse=True)
    return found


def discover(scanner: Scanner, provider: Provider) -> Sequence[SessionRef]:
    """``provider``'s sessions: from the index while its census says nothing changed, else
    discovered (and then indexed)."""
    from agentscan.scan.incomplete import note_discovery

    cache = scanner.cache
    ctx = scanner.ctx
    if not scanner.memo_discovery or cache is None:
        with ctx.warnings.capture() as warnings:
            refs = provider.discover(ctx)
        if cache is not None:
            from agentscan.scan.prune import index_ids

            index_ids(cache, provider, refs, ctx, complete=not warnings.passing)
        note_discovery(ctx, provider.name, complete=not warnings.passing)
        return refs
    from agentscan.scan.memo import DiscoveryMemo

    memo = DiscoveryMemo(cache, provider, ctx, scanner.census_stamp(provider))  # census before discovery
    loaded = memo.load(scanner.fingerprint)
    if loaded is None:  # not ``or``: a provider without sessions stores an empty, falsy ``MemoRefs``
        loaded = memo.mend()
    if loaded is not None:
        return loaded  # the id index was written when they were discovered (mending keeps ids and paths)
    from agentscan.scan.memo import MAX_WARNINGS

    with ctx.warnings.capture(MAX_WARNINGS) as warnings:
        refs = provider.discover(ctx)
    # What its census listed and it did not ask for (memory only); the other providers'
    # listings stay for their discoveries, to come in this loop (``refs`` drops the rest).
    ctx.drop_listings(provider.census_paths(ctx) or ())
    from agentscan.scan.prune import index_ids

    index_ids(cache, provider, refs, ctx, complete=not warnings.passing)
    note_discovery(ctx, provider.name, complete=not warnings.passing)
    memo.store(refs, warnings, scanner.fingerprint)
    return refs
