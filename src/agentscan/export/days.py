"""The usage days of an export (SQLite's ``token_days``, ``export --days``), a few sessions'
calls in memory at a time.

Each call is credited to one session, as ``tokens`` credits it: calls that several
sessions' files hold (a resumed or forked session's copies) are merged across them
(``sharing.merge_by_provider``).  Merging every chosen session's calls at once held a
heavy user's million calls in memory (about 480 MB at the bench's scale 10), when
only the sessions that share a call need each other's: their key hashes
(``sharing.sharing``) tell which those are.  Every session's calls are bucketed by day
a batch at a time and let go; those that share are read again and merged together.
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
#: the progress line's name for it (a cold export's line stood at ``reading sessions N/N`` meanwhile)
ADDING_UP_DAYS = "adding up days"


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
    of ``UsageDay.order``.

    Each batch's calls are read once: a session's days are bucketed alone, and its key
    hashes taken (from the index, else from the calls at hand).  The few sessions that turn
    out to share a call with another are read again, together, and merged.  Counted on the
    progress line as ``adding up days N/M`` (a phase of its own)."""
    progress = scanner.ctx.progress
    with progress.named(ADDING_UP_DAYS):
        progress.expect(len(chosen))
        return _export_days(scanner, refs, chosen, book, zone)


def _export_days(scanner: Scanner, refs: Sequence[SessionRef], chosen: Sequence[SessionRef], book: PriceBook,
                 zone: tzinfo | None) -> ExportDays:
    from agentscan.export.daymemo import DayMemo, said_nothing
    from agentscan.export.rows import usage_days
    from agentscan.scan import sharedmemo
    from agentscan.scan.collect import key_hashes_by_session, usage_by_session
    from agentscan.scan.sessionsums import key_hashes
    from agentscan.scan.sharing import merge_by_provider, sharers, sharing

    progress = scanner.ctx.progress
    advance = progress.advance
    wanted = {ref.id for ref in chosen}
    cache = scanner.cache
    # Each one's fingerprint, taken once for the questions below (each took it again): whether the
    # index holds its key hashes, its kept days, and the stamp of them all.
    prints = {ref.id: scanner.fingerprint(ref) for ref in chosen} if cache is not None else {}
    known = _known_keys(scanner, chosen, prints)  # (their key hashes are read below only if needed)
    keys: dict[str, bytes] = {}
    # Each session's days as if it shared nothing: right for every one but those that share
    # a call with another (made again below, together).  Kept by the session whose files
    # held the calls: a call's record may name another session (a resumed one's copies).
    alone: dict[str, list[UsageDay]] = {}
    costs: dict[str, Priced] = {}
    # Those kept from an earlier export, their calls unchanged (``daymemo``): not read.  A
    # session whose key hashes the index does not hold is read for them.
    memo = DayMemo.for_export(scanner, zone)
    recalled = memo.recall([ref for ref in chosen if ref.id in known], prints) if memo is not None else {}
    if progress.tells_upgrades():
        _tell_upgrade(scanner, [ref for ref in chosen if ref.id not in recalled], prints)
    for start in range(0, len(chosen), BATCH):
        batch = chosen[start:start + BATCH]
        unread = [ref for ref in batch if ref.id not in recalled]
        with scanner.ctx.warnings.capture() as said:
            # Counted as each session's calls come (read ahead: ``advance`` below counts them
            # no more), not a whole batch at once after it.
            per_session = usage_by_session(scanner, unread, told=progress.ahead) if unread else {}
            for ref in unread:
                own = per_session.get(ref.id, [])
                if ref.id not in known:
                    keys[ref.id] = key_hashes(own, ref.provider)
                alone[ref.id], costs[ref.id] = _alone(ref, own, book, zone)
                advance()
        if memo is not None:
            quiet = said_nothing(unread, said, said.passing, said.overflowed)
            for ref in unread:
                if ref.id in quiet:
                    memo.note(ref, (alone[ref.id], costs[ref.id]))
        for ref in batch:
            if ref.id in recalled:
                alone[ref.id], costs[ref.id] = recalled[ref.id]
                advance()
        del per_session
    if memo is not None:
        memo.keep(refs)
    rest = [ref for ref in refs if ref.id not in wanted]
    # Which sessions share calls is a fact of their files: a whole export of the same sessions
    # at the same fingerprints takes the answer the last one found (``scan.sharedmemo``).  An
    # unchanged export read all 15,000 sessions' key hashes again (0.1 CPU-s at the bench's
    # scale 10) and looked for a hash met twice among 420,000 (0.1 more).
    stamp = _sessions_stamp(chosen, prints) if not rest and cache is not None else None
    shared = sharedmemo.remembered(cache, SHARED_KEY, stamp)
    if shared is None or rest:
        held = _kept_keys(scanner, [ref for ref in chosen if ref.id in known and ref.id not in keys], prints)
        # One the index holds otherwise since (another run meanwhile): its calls are not known
        # here, as a damaged blob's: every session is merged, exactly.
        keys.update({ref.id: held.get(ref.id, b"") for ref in chosen if ref.id not in keys})
        if rest:
            keys.update(key_hashes_by_session(scanner, rest))
        shared = sharing(keys)  # every id when a blob is damaged: all merged, exactly
        if stamp is not None and cache is not None and len(shared) < len(keys):  # (not all: no blob damaged, or none said so)
            sharedmemo.remember(cache, SHARED_KEY, stamp, shared)
            cache.commit()
    others = sharers(keys, wanted) if rest else set()
    extra = [ref for ref in rest if ref.id in others]
    together = [ref for ref in chosen if ref.id in shared] + extra
    days = [day for ref in chosen if ref.id not in shared for day in alone[ref.id]]
    if together:
        days += usage_days(merge_by_provider(together, usage_by_session(scanner, together)), book, zone)
    days.sort(key=lambda day: day.order)
    return ExportDays(days, [ref.id for ref in extra], costs)


def _alone(ref: SessionRef, own: list[list], book: PriceBook, zone: tzinfo | None) -> tuple[list[UsageDay], Priced]:
    """The session's days as if it shared nothing, and its cost: priced from exactly the calls
    its row's tokens count, its own (``usage_by_session``), as ``costs.costs_of`` prices them.
    Each call's price key is worked out once for both (it was twice: a warm export's biggest
    cost after reading the calls)."""
    from agentscan.export.rows import add_days, days_of
    from agentscan.pricing import Spend
    from agentscan.scan.sharing import merge_duplicates

    provider = ref.provider
    entry_key = book.entry_key
    price_keys = [entry_key(provider, entry) for entry in own]
    spend = Spend()
    for entry, price_key in zip(own, price_keys):
        spend.add(entry, price_key)
    cost = spend.priced(book)  # first: a model with no price is said as ``costs_of`` said it
    kept = merge_duplicates(list(own))  # as ``merge_by_provider([ref], ...)``: its own copies of a call once
    if len(kept) < len(own):  # (a copy dropped: the others are the same objects, keyed above)
        key_of = {id(entry): price_key for entry, price_key in zip(own, price_keys)}
        price_keys = [key_of[id(entry)] for entry in kept]
    spends: dict[tuple[str, str, str, str | None], Spend] = {}
    add_days(spends, provider, kept, price_keys, zone)
    return days_of(spends, book), cost


def _tell_upgrade(scanner: Scanner, unread: Sequence[SessionRef], prints: dict[str, str | None]) -> None:
    """The note after an upgrade (``scan.upgraded``), as ``tokens`` and ``list`` say it: the
    calls the index keeps for ``unread`` are an older parser's.  An export after those two
    read every session's calls again (28 s at the bench's scale 10) and said nothing; counted
    here for every batch at once (the note is said once)."""
    cache = scanner.cache
    if cache is None or not unread:
        return
    from agentscan.scan import upgraded

    held = cache.fingerprints_in("calls", [ref.id for ref in unread])
    upgraded.tell(scanner, [(ref, held[ref.id]) for ref in unread
                            if ref.id in held and held[ref.id] != prints[ref.id]], "calls")


def _known_keys(scanner: Scanner, refs: Sequence[SessionRef], prints: dict[str, str | None]) -> set[str]:
    """The ids of ``refs`` whose key hashes the index holds for their files as they are (none
    read); ``prints``: each one's fingerprint."""
    cache = scanner.cache
    if cache is None:
        return set()
    held = cache.fingerprints_in("usage", [ref.id for ref in refs])
    return {ref.id for ref in refs if ref.id in held and held[ref.id] == prints[ref.id]}


#: the index's ``meta`` key of which sessions of a whole export share calls, at its sessions' stamp
SHARED_KEY = "exportdays:shared"


def _sessions_stamp(refs: Sequence[SessionRef], prints: dict[str, str | None]) -> str | None:
    """A digest of ``refs`` at their fingerprints (``None``: one has none), and of the code
    that hashes their calls' keys."""
    from agentscan.codeid import code_identity
    from agentscan.scan.sharedmemo import sessions_stamp

    return sessions_stamp(((ref.id, prints[ref.id]) for ref in refs), salt=code_identity())


def _kept_keys(scanner: Scanner, refs: Sequence[SessionRef], prints: dict[str, str | None]) -> dict[str, bytes]:
    """The key hashes the index holds for ``refs``' files as they are (sealed)."""
    cache = scanner.cache
    if cache is None:
        return {}
    held = cache.get_keys([ref.id for ref in refs])
    return {ref.id: held[ref.id][1] for ref in refs if ref.id in held and held[ref.id][0] == prints[ref.id]}
