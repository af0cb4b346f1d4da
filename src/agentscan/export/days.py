"""The usage days of an export (SQLite's ``token_days``, ``export --days``), a few sessions'
calls in memory at a time.

Each call is credited to one session, as ``tokens`` credits it: calls that several
sessions' files hold (a resumed or forked session's copies) are merged across them
(``sharing.merge_by_provider``).  Merging every chosen session's calls at once held a
heavy user's million calls in memory (about 480 MB at the bench's scale 10), when
only the sessions that share a call need each other's: the index's key hashes
(``sharing.sharing``) tell which those are.  They are merged together; every other
session's calls are bucketed by day a batch at a time and let go.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Sequence

if TYPE_CHECKING:
    from datetime import tzinfo

    from agentscan.export.rows import UsageDay
    from agentscan.model import SessionRef
    from agentscan.pricing import PriceBook
    from agentscan.pricing.spend import Priced
    from agentscan.scan.scanner import Scanner

#: sessions whose calls are held at once (none of which shares a call with another)
BATCH = 1000


class ExportDays(NamedTuple):
    """``export_days``' answer: the days, the other sessions merged in (``days_of``), and each
    chosen session's cost, priced from the calls read for the days (``costs.costs_of``)."""

    days: list[UsageDay]
    days_of: list[str]
    costs: dict[str, Priced]


def export_days(scanner: Scanner, refs: Sequence[SessionRef], chosen: Sequence[SessionRef], book: PriceBook,
                zone: tzinfo | None) -> ExportDays:
    """The ``chosen`` sessions' usage days (``zone``: days there, else UTC), with each shared
    call credited as in an export of every session of ``refs``, and the ids of the other
    sessions merged with them for it (their days are in the list too: a SQLite file holds
    every session's days, so theirs are replaced as well; a JSON Lines or CSV file of some
    sessions leaves them out).  Merged among the chosen alone, an ``export --since`` into a
    file a whole export wrote credited a call to both of its sessions' days.  In the order
    of ``UsageDay.order``."""
    from agentscan.export.rows import usage_days
    from agentscan.scan.collect import key_hashes_by_session, usage_by_session
    from agentscan.scan.costs import costs_of
    from agentscan.scan.sharing import merge_by_provider, sharers, sharing

    wanted = {ref.id for ref in chosen}
    if _mostly_unread(scanner, refs):
        # A first export: the key hashes would cost a parse of every session, and each batch
        # another.  Every call is read once, and merged at once.
        return _all_at_once(scanner, refs, chosen, wanted, book, zone)
    keys = key_hashes_by_session(scanner, refs)
    shared = sharing(keys)  # every id when a blob is damaged: all merged, exactly
    others = sharers(keys, wanted) if len(chosen) < len(refs) else set()
    extra = [ref for ref in refs if ref.id in others]
    together = [ref for ref in chosen if ref.id in shared] + extra
    alone = [ref for ref in chosen if ref.id not in shared]
    days: list[UsageDay] = []
    costs: dict[str, Priced] = {}
    for batch in [together] + [alone[start:start + BATCH] for start in range(0, len(alone), BATCH)]:
        if batch:
            per_session = usage_by_session(scanner, batch)
            # A row's cost from exactly the calls its tokens count, its own (``usage_by_session``).
            costs.update(costs_of(per_session, [ref for ref in batch if ref.id in wanted], book))
            days += usage_days(merge_by_provider(batch, per_session), book, zone)
            del per_session
    days.sort(key=lambda day: day.order)
    return ExportDays(days, [ref.id for ref in extra], costs)


#: more sessions than this share of an export's without their key hashes in the index, and
#: its calls are read all at once (``export_days``)
UNREAD_SHARE = 0.25


def _mostly_unread(scanner: Scanner, refs: Sequence[SessionRef]) -> bool:
    """Whether the index lacks the key hashes of more than ``UNREAD_SHARE`` of ``refs``' sessions
    (as their files are now): a cron job's next export finds a few changed; a first one, all."""
    cache = scanner.cache
    if cache is None:
        return True
    held = cache.get_keys([ref.id for ref in refs])
    fingerprint = scanner.fingerprint
    unread = sum(1 for ref in refs if ref.id not in held or held[ref.id][0] != fingerprint(ref))
    return unread > UNREAD_SHARE * len(refs)


def _all_at_once(scanner: Scanner, refs: Sequence[SessionRef], chosen: Sequence[SessionRef], wanted: set[str],
                 book: PriceBook, zone: tzinfo | None) -> ExportDays:
    """``export_days`` from every chosen session's calls, read at once (and the sessions
    sharing theirs, found from the key hashes that read gives)."""
    from agentscan.export.rows import usage_days
    from agentscan.scan.collect import key_hashes_by_session, usage_by_session
    from agentscan.scan.costs import costs_of
    from agentscan.scan.sharing import merge_by_provider, sharers

    per_session = usage_by_session(scanner, chosen)
    costs = costs_of(per_session, chosen, book)
    others = sharers(key_hashes_by_session(scanner, refs), wanted) if len(chosen) < len(refs) else set()
    extra = [ref for ref in refs if ref.id in others]
    if extra:
        per_session = {**usage_by_session(scanner, extra), **per_session}
    days = usage_days(merge_by_provider([*chosen, *extra], per_session), book, zone)
    days.sort(key=lambda day: day.order)
    return ExportDays(days, [ref.id for ref in extra], costs)
