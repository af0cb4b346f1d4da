"""Sessions whose usage is kept in a database found locked this run (Cursor's state DB:
``Provider.locked_usage``), whose sums an older parser kept: taken as they are, for this run.

Only a provider with such a database has any (``locked_usage`` is ``None`` for every other);
the generic parse (``usageparse``) and a row's sums (``rowreader``) ask here, and the rule is
written once for both: after an upgrade under a lock, ``tokens`` printed nothing but the line
naming them as not read, and ``list`` said "not known" of a chat ``tokens`` counted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.cache import Cache
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.sessionsums import Parsed


def kept_under_a_lock(scanner: Scanner, cache: Cache, refs: list[SessionRef], stale: set[str], keep_entries: bool,
                      parsed: dict[str, Parsed], fingerprints: dict[str, str | None]) -> set[str]:
    """Those of ``refs`` whose usage is kept in a database found locked this run (Cursor's
    state DB: ``Provider.locked_usage``) and whose sums the index holds as an older parser
    version read them, their files and that database unchanged since (``upgraded.OlderParsers``:
    the fingerprint takes in the database's stamp): taken as parsed, for this run only (never
    kept again: the next run with the database readable parses them).  After an upgrade under
    a lock every such session's usage read as not known, and ``tokens`` printed nothing but
    the line naming them as not read, though the database's warning said the figures of a
    session unchanged since its last read stand.
    Each taken is put in ``parsed`` (and ``fingerprints``, as ``None``: never stored)."""
    assert cache is not None
    locked = [ref for ref in refs if ref.id in stale
              and scanner.provider(ref.provider).locked_usage(ref, scanner.ctx) is not None]
    if not locked:
        return set()
    from agentscan.scan.sessionsums import Parsed, SessionSums
    from agentscan.scan.sharing import entries_from
    from agentscan.scan.upgraded import older_search

    held = cache.get_usage([ref.id for ref in locked])
    taken = set()
    for ref in locked:
        kept = held.get(ref.id)
        search = older_search(scanner.ctx, ref.provider, "sums")  # (its answers the rows' too)
        if kept is None or search.given_up or not search.held_unchanged(scanner.provider(ref.provider), ref,
                                                                        scanner.ctx, kept[0]):
            continue
        sums = SessionSums.from_bytes(kept[1])
        if sums is None:
            continue
        sums.passing = True  # (right for this run, never stored: ``UsageParser._store``)
        # (Its calls, where a table asks them: those kept at that fingerprint, if any.)
        calls = cache.get_calls([ref.id]).get(ref.id) if keep_entries else None
        entries = entries_from(calls[1]) if calls is not None and calls[0] == kept[0] else None
        parsed[ref.id] = Parsed(sums, kept[2], None, entries)
        fingerprints[ref.id] = None
        taken.add(ref.id)
    return taken


def sums_stand_under_a_lock(scanner: Scanner, ref: SessionRef, fingerprint: str) -> bool:
    """Whether the sums kept at ``fingerprint`` stand for ``ref`` this run though an older parser
    kept them: its usage is kept in a database found locked this run, and ``fingerprint`` is its
    files' and that database's as they are now under that parser (``kept_under_a_lock``,
    as ``tokens`` takes them: after an upgrade under a lock ``list`` said "not known" of a chat
    ``tokens`` counted)."""
    if scanner.provider(ref.provider).locked_usage(ref, scanner.ctx) is None:
        return False
    from agentscan.scan.upgraded import older_parsers

    return older_parsers(scanner.ctx, ref, fingerprint)
