"""The calls of the Codex threads a pass read (``usage``, ``show``'s ``showpass``), each
counted once: a thread's own, not those it copied from a parent or an earlier fork
(``goneparent.counted_calls``), originals before their copies (oldest thread first)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentscan.context import ScanContext

if TYPE_CHECKING:
    from agentscan.model import UsageEntry
    from agentscan.providers.codex.callevent import UsageEvent
    from agentscan.providers.codex.provider import Scanned
    from agentscan.providers.codex.usage import UsageDeduper


def own_calls(scanned: list[Scanned], ctx: ScanContext) -> list[UsageEntry]:
    """Own calls of every scanned thread, deduplicated, originals before their copies."""
    return _deduped(scanned, ctx, packed=False).entries


def own_packed(scanned: list[Scanned], ctx: ScanContext) -> list[list]:
    """``own_calls``, each as ``UsageEntry.pack`` gives it (``tokens``' pass), none made."""
    packed = _deduped(scanned, ctx, packed=True).packed
    assert packed is not None
    return packed


def _deduped(scanned: list[Scanned], ctx: ScanContext, *, packed: bool) -> UsageDeduper:
    from agentscan.providers.codex.goneparent import counted_calls
    from agentscan.providers.codex.header import thread_header
    from agentscan.providers.codex.usage import UsageDeduper, parent_events

    by_id: dict[str, list[UsageEvent]] = {}
    for _, _, thread, scanner in scanned:  # a paginated thread's files in order
        by_id.setdefault(thread.thread_id, []).extend(scanner.events)
    extra: dict[str, list[UsageEvent]] = {}

    def calls_of(thread_id: str) -> list[UsageEvent]:
        """Every call in a thread's files: a parent's, or an earlier fork's (``goneparent``)."""
        if thread_id in by_id:
            return by_id[thread_id]
        if thread_id not in extra:
            extra[thread_id] = parent_events(thread_id, ctx)
        return extra[thread_id]

    deduper = UsageDeduper(packed=packed)
    # Oldest thread first (unknown start last), so an original call beats its copies.
    ordered = sorted(scanned, key=_oldest_first)
    for session_id, subagent, thread, scanner in ordered:
        link = thread_header(thread, ctx).link
        # (a paginated thread's later files copy nothing: ``replay`` was off for them)
        own = counted_calls(scanner, link, ctx, calls_of) if scanner.replay else scanner.own_events()
        deduper.add(own, session=session_id, subagent=subagent, started=scanner.started)
    return deduper


def _oldest_first(item: Scanned) -> tuple[bool, float]:
    # Unknown starts go last, so an original call beats its copies.
    started = item[3].started
    return (started is None, started.timestamp() if started else 0.0)
