"""Collecting usage for many sessions: sums from the index, calls only where needed.

Each session's usage is parsed on its own (so it can be cached under its own
fingerprint) and deduplicated within the session by its provider.  The index
keeps, per session, token sums grouped by subagent, model, quarter hour and
input-size class (``sums_of``: enough to price every group exactly, see
``agentscan.pricing``) and the 64-bit hashes of its dedupe keys; a warm
``tokens`` adds up sums and decodes no call.

Calls that can appear in several sessions' files carry a dedupe key, and the
copy with the highest rank counts once across sessions.  So the calls
themselves are needed only for sessions whose keys are shared with another
selected session (found by comparing key hashes, remembered per selection),
for sessions a time window cuts through, and for callers that want every
call (``export``, ``otlp``); those are decoded from the index's ``calls`` or
parsed again, and merged exactly by ``merge_duplicates``.

What the index cannot answer is parsed by ``scan.usageparse`` (in worker
processes when there is much), imported only then: a warm run parses nothing.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import TYPE_CHECKING, Callable, Collection, Sequence


from agentscan.model import SESSION, SessionRef
from agentscan.progress import BUNDLING, CACHING
from agentscan.scan.providerusage import ProviderUsage
from agentscan.scan.saidorder import in_session_order
from agentscan.scan.sessionsums import Parsed, SessionSums
from agentscan.scan.sharing import merge_duplicates
from agentscan.scan import usagesnapshot
from agentscan.scan.sharedmemo import sessions_stamp
from agentscan.readsums import note_read

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.usageparse import UsageParser
    from agentscan.scan.windowrefs import WindowRefs
    from agentscan.scan.windowspans import Picked


def collect_usage(scanner: Scanner, refs: Sequence[SessionRef]) -> dict[str, list[list]]:
    """Provider name -> packed entries of every counted call of ``refs`` (``export``, ``otlp``)."""
    return {name: part.entries for name, part in Collector(scanner, _always, all_calls=True).run(refs).items()}


def _always(provider: str, sums: SessionSums) -> bool:  # (every session's calls)
    return True


def usage_by_session(scanner: Scanner, refs: Sequence[SessionRef],
                     told: Callable[[int], None] | None = None) -> dict[str, list[list]]:
    """Session id -> its own packed entries, not deduplicated against other sessions.

    These add up to the session's row ``tokens``, so a row's cost is priced
    from exactly the calls its tokens count.  ``told``: called with how many sessions'
    calls are at hand as they come (an export's ``adding up days`` line stood 2-3 s a
    batch of 1,000 at the bench's scale 10, then jumped by 1,000), at most once a session.
    """
    collector = Collector(scanner, _always, all_calls=True, told=told)
    collector.run(refs)
    return collector.calls_by_session


def sums_by_session(scanner: Scanner, refs: Sequence[SessionRef]) -> dict[str, SessionSums]:
    """Session id -> its own token sums (not deduplicated against other sessions), from
    the index or parsed: what a row's cost is priced from (``costs.with_costs``)."""
    return Collector(scanner, None).sums(refs)[1]


def key_hashes_by_session(scanner: Scanner, refs: Sequence[SessionRef]) -> dict[str, bytes]:
    """Session id -> its calls' key hashes, sealed (``sessionsums.key_hashes``), from the
    index or parsed: which sessions may share calls (``sharing.sharers``)."""
    collector = Collector(scanner, None)
    keys = collector.sums(refs)[2]
    ids = [ref.id for ref in refs]
    collector.fill_keys(ids, keys)
    return {ref_id: keys.get(ref_id, b"") for ref_id in ids}  # none known: b"", decoded as sharing


def collect(scanner: Scanner, refs: Sequence[SessionRef],
            needs_calls: Callable[[str, SessionSums], bool] | None = None,
            known: Collection[str] = (), window: tuple[float | None, float | None] | None = None,
            picked: WindowRefs | None = None) -> dict[str, ProviderUsage]:
    """Usage of ``refs`` by provider: sums where they answer, calls where ``needs_calls``
    says a session's sums do not, or its calls may be shared with another's.

    ``known``: ids of sessions the caller has an answer for already (``scan.rowmemo``):
    their sums are not read, and they are in neither ``sums`` nor ``exact`` unless their
    calls may be shared with another session's (then ``exact``: the answer does not stand).
    ``window``: (since, until), epoch seconds: sessions with no call in it may go unread (``outside``);
    ``picked``: the window's pick of some providers, made before ``refs`` were (``scan.windowrefs``).
    """
    return Collector(scanner, needs_calls, window=window, picked=picked).run(refs, frozenset(known))


class Collector:
    """One report's reading of usage: every session's sums, and the calls of those read call by
    call.  Its fields and ``stored_sums``, ``read_misses``, ``every_session``, ``fill_keys`` and
    ``parser`` are the seam of ``exactcalls`` and ``windowsettle`` (split from it, imported by a
    report alone)."""

    def __init__(self, scanner: Scanner, needs_calls: Callable[[str, SessionSums], bool] | None, *, all_calls: bool = False,
                 window: tuple[float | None, float | None] | None = None,
                 told: Callable[[int], None] | None = None, picked: WindowRefs | None = None) -> None:
        self.scanner = scanner
        self.told = told  # (``usage_by_session``)
        self.ctx = scanner.ctx
        self.cache = scanner.cache
        self.needs_calls = needs_calls
        self.all_calls = all_calls
        self.fingerprints: dict[str, str | None] = {}
        self.parsed: dict[str, Parsed] = {}
        self.stamps: dict[str, str | None] = {}
        self.unsnapped: list[str] = []  # providers whose snapshot did not hold
        #: sessions the index holds under another fingerprint, with that one (``scan.upgraded``)
        self.outdated: list[tuple[SessionRef, str]] = []
        #: session id -> its calls, for the sessions read call by call
        self.calls_by_session: dict[str, list[list]] = {}
        self.window = window
        self.outside: dict[str, set[str]] = {}  # provider -> sessions the window left unread
        self.picked_shared: dict[str, set[str]] = {}  # provider -> the sharing answer its pick took
        self.picked = picked  # (``collect``)

    def run(self, refs: Sequence[SessionRef], known: frozenset[str] = frozenset()) -> dict[str, ProviderUsage]:
        by_provider, sums, keys = self.sums(refs, known)
        found: dict[str, ProviderUsage] = {name: ProviderUsage() for name in by_provider}
        for name, outside in self.outside.items():
            found[name].outside = outside
        exact: dict[str, list[SessionRef]] = {}
        needs = self.needs_calls
        for name, pairs in by_provider.items():
            shared = self._shared(name, pairs, keys)
            part = found[name]
            wanted = exact[name] = []
            for ref, ref_id in pairs:
                if ref_id in shared or (ref_id not in known and needs is not None and needs(name, sums[ref_id])):
                    wanted.append(ref)
                    part.exact.add(ref.native_id)
                elif ref_id not in known:  # (one known was answered already: its sums were not read)
                    part.sums[ref.native_id] = sums[ref_id]
        calls = self.calls_by_session = self._calls([ref for wanted in exact.values() for ref in wanted])
        for name, wanted in exact.items():
            part = found[name]
            part.entries = merge_duplicates([entry for ref in wanted for entry in calls[ref.id]])
            if len(wanted) > 1:
                counted = {entry[SESSION] for entry in part.entries}
                part.elsewhere = {ref.native_id for ref in wanted if calls[ref.id] and ref.native_id not in counted}
        if self.cache is not None:
            self.cache.commit()
        return found

    @in_session_order
    def sums(self, refs: Sequence[SessionRef], known: frozenset[str] = frozenset()
             ) -> tuple[dict[str, list[tuple[SessionRef, str]]], dict[str, SessionSums], dict[str, bytes]]:
        """Every session's own sums (and key hashes), but those of ``known`` sessions:
        from the index, or parsed; their warnings said in ``refs``' order (``saidorder``)."""
        # (ref, id) pairs: a heavy user has 10,000+ sessions, and ``ref.id`` builds a string.
        # (Each provider met in the order of every session's, though a pick left out its first.)
        by_provider: dict[str, list[tuple[SessionRef, str]]] = {name: [] for name in self.picked.providers} \
            if self.picked is not None else {}
        for ref in refs:
            by_provider.setdefault(ref.provider, []).append((ref, ref.id))
        sums: dict[str, SessionSums] = {}
        keys: dict[str, bytes] = {}
        misses: list[SessionRef] = []
        stale: set[str] = set()
        unsettled: dict[str, tuple[list[tuple[SessionRef, str]], Picked]] = {}  # ``windowsettle``
        if self.window is not None:  # (imported by a --since/--until report alone: 0.4 ms of every other's start)
            from agentscan.scan import windowsettle, windowspans
        fingerprints = self.fingerprints
        fingerprint_of = self.scanner.fingerprint
        for name, pairs in by_provider.items():
            for ref, ref_id in pairs:
                fingerprints[ref_id] = fingerprint_of(ref) if self.cache is not None else None
            taken = self.picked.taken.get(name) if self.picked is not None else None
            if taken is not None:  # picked from the index's rows, as ``windowspans.pick`` picks
                self.stamps[name], self.outside[name], self.picked_shared[name] = taken.stamp, taken.outside, taken.shared
                self.stored_sums(pairs, sums, keys, misses, stale)
                continue
            stamp = self.stamps[name] = self._stamp(pairs)  # of them all: ``_shared`` remembers by it
            if known:
                pairs = [(ref, ref_id) for ref, ref_id in pairs if ref_id not in known]
                if len(pairs) < len(by_provider[name]):
                    # A few sessions: read alone, and no snapshot of the provider is made.
                    self.stored_sums(pairs, sums, keys, misses, stale)
                    continue
            picked = windowspans.pick(self.cache, name, stamp, pairs, fingerprints, *self.window) \
                if self.window is not None and stamp is not None and self.cache is not None else None
            if picked is not None and windowsettle.taken(self, name, pairs, picked, keys, unsettled):
                by_provider[name] = picked.pairs  # the stamp stays that of them all: ``_shared`` answers for them all
                self.stored_sums(picked.pairs, sums, keys, misses, stale)
                continue
            snapshot, whole = self._load_snapshot(name, stamp, pairs)
            if whole:
                for unchanged in snapshot.values():
                    unchanged.say(self.ctx)
                sums.update(snapshot)
                continue
            self.unsnapped.append(name)
            self.stored_sums(pairs, sums, keys, misses, stale, snapshot)
        keep_entries = self.all_calls or (self.needs_calls is not None and len(misses) < 64)
        self.read_misses(misses, stale, sums, keys, keep_entries)
        for name, (every, picked) in unsettled.items():
            windowsettle.settle(self, name, every, picked, by_provider, sums, keys, keep_entries)
        # What a parse read is kept (its sums were, "caching sessions": ``UsageParser.parse``),
        # each provider's sessions together, counted as each provider's snapshot is written: the
        # line stood on "caching sessions" with no count for 0.3-0.5 s at scale 10.  A phase of
        # its own: counted on as "caching sessions", its total doubled in mid-phase.
        caching = bool(misses) and self.told is None
        progress = self.ctx.progress
        bundled = sum(len(by_provider[name]) for name in self.unsnapped)
        phase = nullcontext() if not caching else progress.named(BUNDLING, 0, bundled) if bundled \
            else progress.named(CACHING, len(misses), len(misses))  # (no snapshot: the parse's count stands)
        with phase:
            for name in self.unsnapped:
                self._store_snapshot(name, by_provider[name], sums)
                if caching:
                    progress.advance(len(by_provider[name]))
            if self.window is not None and self.cache is not None:  # for the next window (every session read)
                windowsettle.store_spans(self, by_provider, sums)
            note_read(self.ctx, dict(fingerprints), sums)  # for rows read next (``readsums``)
            if self.cache is not None:
                self.cache.commit()
        return by_provider, sums, keys

    def read_misses(self, misses: list[SessionRef], stale: set[str], sums: dict[str, SessionSums],
                    keys: dict[str, bytes], keep_entries: bool) -> None:
        """The sums and key hashes of ``misses``, parsed (those ``stored_sums`` found no sums of)."""
        if self.outdated:
            from agentscan.scan import upgraded  # here: a warm run has none

            upgraded.tell(self.scanner, self.outdated, "tokens")
            self.outdated = []
        if misses:
            self.parser().parse(misses, stale, keep_entries=keep_entries, told=self.told, sums_alone=not self.all_calls)
        for ref in misses:
            parsed = self.parsed[ref.id]
            sums[ref.id], keys[ref.id] = parsed.sums, parsed.keys

    def stored_sums(self, pairs: list[tuple[SessionRef, str]], sums: dict[str, SessionSums], keys: dict[str, bytes],
                 misses: list[SessionRef], stale: set[str], snapshot: dict[str, SessionSums] | None = None) -> None:
        """Sums of ``pairs`` from ``snapshot`` (the unchanged ones) or the index; the rest are ``misses``."""
        snapshot = snapshot or {}
        fingerprints = self.fingerprints
        wanted = [ref_id for _, ref_id in pairs if ref_id not in snapshot]
        cached = self.cache.get_usage(wanted) if self.cache is not None and wanted else {}
        for ref, ref_id in pairs:
            unchanged = snapshot.get(ref_id)
            if unchanged is not None:  # as in the provider's last snapshot
                unchanged.say(self.ctx)
                sums[ref_id] = unchanged
                continue
            hit = cached.get(ref_id)
            fingerprint = fingerprints[ref_id]
            if hit is None or fingerprint is None:
                misses.append(ref)
                continue
            cached_sums = SessionSums.from_bytes(hit[1]) if hit[0] == fingerprint else None
            if cached_sums is None:
                misses.append(ref)
                stale.add(ref_id)  # known before and changed since: an active session
                self.outdated.append((ref, hit[0]))  # (or an older parser's: ``scan.upgraded``)
                continue
            cached_sums.say(self.ctx)
            sums[ref_id], keys[ref_id] = cached_sums, hit[2]

    # -- one value for every session of a provider ---------------------------

    def _stamp(self, pairs: list[tuple[SessionRef, str]]) -> str | None:
        """A digest of these sessions at their fingerprints (``None``: not cacheable)."""
        if self.cache is None or not pairs:
            return None
        fingerprints = self.fingerprints
        return sessions_stamp((ref_id, fingerprints[ref_id]) for _, ref_id in pairs)

    def _load_snapshot(self, provider: str, stamp: str | None,
                       pairs: list[tuple[SessionRef, str]]) -> tuple[dict[str, SessionSums], bool]:
        """The sums the provider's snapshot holds for ``pairs`` at their fingerprints, and
        whether that is all of them.  A snapshot of other fingerprints still answers for
        the sessions that did not change (an agent at work changes one or two)."""
        if stamp is None or self.cache is None:
            return {}, False
        key = usagesnapshot.key(provider)
        value = self.cache.get_snapshot(key, stamp)
        whole = value is not None
        if value is None and self.every_session(provider, pairs):
            # Every session of the provider (not the rows ``list`` shows: decoding them
            # all would cost more than reading those few alone).
            latest = self.cache.latest_snapshot(key)
            value = latest[1] if latest is not None else None
        found = usagesnapshot.sums_of(value, pairs, self.fingerprints, whole=whole)
        return ({}, False) if found is None else (found, whole)

    def every_session(self, provider: str, pairs: list[tuple[SessionRef, str]]) -> bool:
        """Whether ``pairs`` are every session of the provider (its snapshot's business)."""
        return len(pairs) == len(self.scanner.refs([provider]))

    def _store_snapshot(self, provider: str, pairs: list[tuple[SessionRef, str]], sums: dict[str, SessionSums]) -> None:
        stamp = self.stamps.get(provider)
        if stamp is None or self.cache is None:
            return
        if not self.every_session(provider, pairs):
            return  # a few sessions (the rows ``list`` shows): the provider's snapshot stays
        ids = [ref_id for _, ref_id in pairs]
        if any(sums[ref_id].passing for ref_id in ids):
            return  # a snapshot stands for every session while the census is the same
        self.cache.put_snapshot(usagesnapshot.key(provider), stamp, usagesnapshot.sealed(ids, sums, self.fingerprints))

    # -- parsing ------------------------------------------------------------

    def parser(self) -> UsageParser:
        """What parses the sessions the index cannot answer (imported only then)."""
        from agentscan.scan.usageparse import UsageParser

        return UsageParser(self.scanner, self.cache, self.parsed, self.fingerprints)

    # -- calls (``exactcalls``: imported by a report alone, not by ``list``'s start) --

    def _shared(self, provider: str, pairs: list[tuple[SessionRef, str]], keys: dict[str, bytes]) -> set[str]:
        from agentscan.scan import exactcalls

        return exactcalls.shared(self, provider, pairs, keys)

    def fill_keys(self, ids: list[str], keys: dict[str, bytes]) -> None:
        """The key hashes of ``ids`` that ``sums`` left out (their sums came from a provider's
        snapshot), from the index's rows at the same fingerprints."""
        absent = [ref_id for ref_id in ids if ref_id not in keys]
        if absent and self.cache is not None:
            for ref_id, (fingerprint, blob) in self.cache.get_keys(absent).items():
                if fingerprint == self.fingerprints.get(ref_id):
                    keys[ref_id] = blob

    def _calls(self, refs: list[SessionRef]) -> dict[str, list[list]]:
        from agentscan.scan import exactcalls

        return exactcalls.calls(self, refs)
