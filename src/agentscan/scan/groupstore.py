"""One store of every session's sums and key hashes for all the grouped bases (``scan.groupbasis``).

A grouped basis (``--by day``, ``--by model``, … each as JSON and as the table: up
to four kept) must take a changed session's part out of its rows, so it needs the
session's sums as they were when the basis was kept; and a patch must tell that
the changed sessions' calls meet no other session's, so it needs every session's
key hashes.  Kept in each basis, they made each one 14 MB at the bench's scale
10 and cost a whole grouped run 0.4 CPU-s more (the key hashes read, sorted and
checked again, as the basis by session does, and written again each time).

So one store holds them for every basis, each entry a session at one fingerprint:
written whole (``SLOT``) by the first whole grouped run; later whole runs write
only the entries of sessions that changed, as a delta (``DELTA``, ``MAX_DELTA``
entries at most, then the store is written whole again).  A basis names its
sessions by id and fingerprint, and finds their sums here by both: an entry a
newer fingerprint superseded is kept beside the new one (``KEPT_BEFORE`` at most,
the last superseded first: the delta's backwards, then the base's), so a basis kept before another grouping's whole run
still finds its sessions' former sums; one not found makes the report whole
(never a wrong answer: an entry is a fact about a session at a fingerprint, true
whichever run wrote it).  The key hashes are only ever read for the sessions at
the fingerprint they have now (``clear``): a store written at any time serves,
and a session it holds at another fingerprint only has its key hashes read from
the index.
"""

from __future__ import annotations

from array import array
from itertools import islice
from operator import add, gt
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence

import orjson

from agentscan.scan.answerbasis import Sections
from agentscan.scan.changedkeys import key_hashes_at, repeated_at
from agentscan.sealing import sealed_parts, unseal_view

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.sessionsums import SessionSums

#: the index's key of the store (one for every grouped basis), and of the entries added since
#: it was written whole (``keep``)
SLOT = "groupstore"
DELTA = "groupstore:delta"
#: the entries a delta holds at most (0.7 MB at the bench's scale 10): more, and the store is
#: written whole again (10 MB, 0.1 CPU-s)
MAX_DELTA = 1024
#: its layout; a store of another is not read (and rewritten whole)
STORE_FORMAT = 1
#: entries of sessions at a fingerprint they no longer have, kept at most: a basis patches
#: at most ``answerpatch.MAX_CHANGED`` (64) changed sessions, and four bases are kept
KEPT_BEFORE = 256
#: sessions held at another fingerprint than the one they have now, whose key hashes a
#: patch reads from the index at most (more: the report is made whole, and writes the store)
MAX_STALE = 256


class Store:
    """The kept store, decoded as far as a patch needs: each entry's session, fingerprint and place."""

    def __init__(self, value: memoryview) -> None:
        """``value``: the unsealed store (raises ``ValueError`` when of another shape)."""
        split = value[:1 << 16].tobytes().find(b"\n")
        if split < 0:
            raise ValueError("no header")
        header = orjson.loads(value[:split])
        if type(header) is not dict or header.get("format") != STORE_FORMAT:
            raise ValueError("a store of another format")
        self.body = body = value[split + 1:]
        sections = header["sections"]
        ids, fingerprints, places, self.keys = (self._section(sections[name]) for name in (
            "ids", "fingerprints", "places", "keys"))
        self.ids = ids.tobytes().decode("utf-8", "surrogateescape").split("\n")
        self.fingerprints = fingerprints.tobytes().decode("utf-8", "surrogateescape").split("\n")
        if len(places) % 8:
            raise ValueError("places of another shape")
        # Each entry: where its sums are in the body, where its key hashes start and end in
        # ``keys`` (one after the other, in the entries' order: ``clear`` reads runs of them).
        self.places = places.cast("q")
        sums_at, sums_length, keys_at, keys_end = (self.places[field::4] for field in range(4))
        if len(self.ids) != len(self.fingerprints) or len(self.places) != 4 * len(self.ids) or (self.ids and (
                min(self.places) < 0 or max(map(add, sums_at, sums_length)) > len(body)
                or max(keys_end) > len(self.keys) // 8 or any(map(gt, keys_at, keys_end)))):
            raise ValueError("entries of another shape")
        self.keys = self.keys[:len(self.keys) // 8 * 8].cast("Q")
        self.index = dict(zip(zip(self.ids, self.fingerprints), range(len(self.ids))))

    def _section(self, place: list[int]) -> memoryview:
        start, length = place
        if not (type(start) is int and type(length) is int and 0 <= start <= start + length <= len(self.body)):
            raise ValueError("a section out of bounds")
        return self.body[start:start + length]

    def sums_bytes(self, index: int) -> memoryview:
        start, length = self.places[4 * index], self.places[4 * index + 1]
        return self.body[start:start + length]

    def keys_of(self, first: int, last: int) -> memoryview:
        """The key hashes of entries ``first`` to ``last``."""
        return self.keys[self.places[4 * first + 2]:self.places[4 * last + 3]]

    def sums(self, session_id: str, fingerprint: str) -> list[list] | None:
        """The session's groups at ``fingerprint`` (``SessionSums.groups``); ``None``: not held."""
        from agentscan.usagegroups import GROUP_WIDTH

        index = self.index.get((session_id, fingerprint))
        if index is None:
            return None
        data = self.sums_bytes(index)
        if not len(data):
            return None  # a session read call by call: none kept
        try:
            groups = orjson.loads(data)
        except ValueError:
            return None
        if type(groups) is not list or any(type(group) is not list or len(group) != GROUP_WIDTH for group in groups):
            return None
        return groups


class Stores:
    """The store as kept: its base and the delta of the entries added since (``keep``)."""

    def __init__(self, base: Store | None, delta: Store | None) -> None:
        self.parts = [part for part in (delta, base) if part is not None]
        self.base, self.delta = base, delta

    def find(self, pair: tuple[str, str | None]) -> tuple[Store, int] | None:
        for part in self.parts:
            at = part.index.get(pair)  # type: ignore[arg-type]
            if at is not None:
                return part, at
        return None

    def sums(self, session_id: str, fingerprint: str) -> list[list] | None:
        """The session's groups at ``fingerprint`` (``SessionSums.groups``); ``None``: not held."""
        found = self.find((session_id, fingerprint))
        return found[0].sums(session_id, fingerprint) if found is not None else None


def _part(scanner: Scanner, slot: str) -> Store | None:
    cache = scanner.cache
    value = unseal_view(cache.get_snapshot(slot, str(STORE_FORMAT))) if cache is not None else None
    if value is None:
        return None
    try:
        return Store(value)
    except (ValueError, KeyError, TypeError, IndexError):
        return None


#: ``ScanContext.memo``'s key of the store as this run loaded it: a patch that gave up loaded it,
#: and the whole report's ``keep`` asks again (10 MB decoded twice at the bench's scale 10)
_LOADED = "groupstore.loaded"


def load(scanner: Scanner) -> Stores | None:
    """The store (``None``: none kept, or its base damaged: every patch makes the report whole),
    decoded once a run until this run writes it (``_write``)."""
    memo = scanner.ctx.memo
    if _LOADED in memo:
        return memo[_LOADED]
    base = _part(scanner, SLOT)
    loaded = memo[_LOADED] = Stores(base, _part(scanner, DELTA)) if base is not None else None
    return loaded


#: an entry as written: session id, fingerprint, sums (JSON; empty: none kept), key hashes
Entry = tuple[str, str, "bytes | memoryview", "bytes | memoryview"]


def keep(scanner: Scanner, sessions: Sequence[tuple[str, str]], sums: Mapping[str, SessionSums | None]) -> bool:
    """Make the store hold ``sessions`` (id, fingerprint) with their ``sums`` (``None``: read
    call by call, none kept) and the index's key hashes; written only when it held one not:
    as a delta of those alone (``MAX_DELTA`` entries at most), else whole again.  ``False``: a
    session's key hashes are not in the index at its fingerprint (no basis kept)."""
    cache = scanner.cache
    assert cache is not None
    if any("\n" in text for pair in sessions for text in pair):
        return False  # the ids are kept a line each (a Gemini session id may hold anything)
    old = load(scanner)
    missing = [pair for pair in sessions if old is None or _unheld(old, pair, sums)]
    if not missing:
        return True
    read = key_hashes_at(cache, missing)
    if read is None:
        return False
    anew: dict[tuple[str, str], Entry] = {}
    for (session_id, fingerprint), (_, payload) in zip(missing, read):
        part = sums.get(session_id)
        anew[session_id, fingerprint] = (session_id, fingerprint, orjson.dumps(part.groups) if part is not None else b"",
                                         payload)
    delta = old.delta if old is not None else None
    if old is not None and old.base is not None and len(missing) + (len(delta.ids) if delta else 0) <= MAX_DELTA:
        # The base stays as it is: the delta holds what it held and the new entries.
        kept = [index for index in range(len(delta.ids)) if (delta.ids[index], delta.fingerprints[index]) not in anew] \
            if delta else []
        _write(scanner, DELTA, [*(_entries(delta, kept) if delta else ()), *anew.values()])
        return True
    entries: list[Entry] = []
    for pair in sessions:
        entry = anew.get(pair)
        if entry is None:
            assert old is not None
            part_of, at = old.find(pair)  # type: ignore[misc]
            entry = next(_entries(part_of, (at,)))
        entries.append(entry)
    if old is not None:
        # The entries a basis kept before may still name, the last superseded first: the
        # delta's newest last (so read backwards), then the base's, whose own sessions came
        # before the older entries it kept in turn.  (Oldest first, entries of sessions that
        # came and went since pushed out the ones the kept bases name.)
        entries.extend(islice(_superseded(old, set(sessions)), KEPT_BEFORE))
    _write(scanner, SLOT, entries)
    cache.put_snapshot(DELTA, str(STORE_FORMAT), b"")  # (what it held is in the base now)
    return True


def _unheld(old: Stores, pair: tuple[str, str], sums: Mapping[str, SessionSums | None]) -> bool:
    """Whether ``old`` lacks the entry of ``pair`` as it is now: none, or one of no sums (the
    session was read call by call then) while it has sums now (the calls it shared with
    another's no longer are): kept so, a patch taking it out was made whole every time."""
    found = old.find(pair)
    return found is None or (not len(found[0].sums_bytes(found[1])) and sums.get(pair[0]) is not None)


def _superseded(old: Stores, now: set[tuple[str, str | None]]) -> Iterator[Entry]:
    """``old``'s entries of sessions at a fingerprint they no longer have, each pair once."""
    ordered = [(old.delta, range(len(old.delta.ids) - 1, -1, -1))] if old.delta is not None else []
    if old.base is not None:
        ordered.append((old.base, range(len(old.base.ids))))
    for part, indexes in ordered:
        for entry in _entries(part, indexes):
            if entry[:2] not in now:
                now.add(entry[:2])  # (once: a pair both parts hold)
                yield entry


def _entries(store: Store, indexes: Iterable[int]) -> Iterator[Entry]:
    for index in indexes:
        yield store.ids[index], store.fingerprints[index], store.sums_bytes(index), store.keys_of(index, index)


def _write(scanner: Scanner, slot: str, entries: Sequence[Entry]) -> None:
    cache = scanner.cache
    assert cache is not None
    stored = Sections()
    places = array("q")
    keys: list[bytes | memoryview] = []
    count = 0  # key hashes so far
    sums = []
    at = 0
    for _, _, data, hashes in entries:
        length = len(hashes) // 8 if isinstance(hashes, bytes) else len(hashes)
        places.extend((at, len(data), count, count + length))
        sums.append(data)
        keys.append(hashes)
        at += len(data)
        count += length
    stored.append(b"".join(sums))  # (at 0: the sums' places are in the body from its start)
    stored.add("ids", "\n".join(entry[0] for entry in entries).encode("utf-8", "surrogateescape"))
    stored.add("fingerprints", "\n".join(entry[1] for entry in entries).encode("utf-8", "surrogateescape"))
    stored.add("places", places.tobytes())
    stored.add("keys", b"".join(keys))
    head = orjson.dumps({"format": STORE_FORMAT, "sections": stored.places})
    scanner.ctx.memo.pop(_LOADED, None)  # (read again if asked: what was loaded is not the store now)
    cache.put_snapshot_parts(slot, str(STORE_FORMAT), sealed_parts([head, b"\n", *stored.parts]))


def clear(scanner: Scanner, stores: Stores, now: Sequence[tuple[str, str | None]], changed: Sequence[int]) -> bool:
    """No key hash of a changed or new session (``now``'s at ``changed``) is another session's
    now, or twice among theirs: the store's key hashes of the sessions it holds at the
    fingerprint they have now, the index's of the others.  (Checked across providers at
    once: a hash of one agent's call met in another's, as unlikely as any two meeting,
    only makes the report whole.)"""
    if not changed:
        return True
    cache = scanner.cache
    assert cache is not None
    moved = {now[position][0] for position in changed}
    hashes = key_hashes_at(cache, [now[position] for position in changed])
    if hashes is None:
        return False  # not read at this fingerprint (a read that failed): nothing to tell by
    twice, every = repeated_at([packed for _, packed in hashes])
    if twice is not None:
        return False  # twice among theirs
    others = [pair for pair in now if pair[0] not in moved]
    held: list[list[int]] = []  # each part's entries of the other sessions at their fingerprint now
    for part in stores.parts[::-1]:  # (the base first: it holds most)
        found_at = list(map(part.index.get, others))  # type: ignore[arg-type]
        held.append([at for at in found_at if at is not None])
        others = [pair for pair, at in zip(others, found_at) if at is None]
    stale = [session_id for session_id, _ in others]
    for store, entries in zip(stores.parts[::-1], held):
        entries.sort()
        first = 0
        # Runs of adjacent entries, their key hashes read in one go (C speed): the store's
        # entries are in the order the sessions are found, so there are few.
        for position in range(1, len(entries) + 1):
            if position == len(entries) or entries[position] != entries[position - 1] + 1:
                if not every.isdisjoint(store.keys_of(entries[first], entries[position - 1])):
                    return False  # another session's call (or another agent's of the same hash): merged whole
                first = position
    if len(stale) > MAX_STALE:
        return False
    if stale:
        fingerprint_of = dict(now)
        read = key_hashes_at(cache, [(session_id, fingerprint_of[session_id]) for session_id in stale])
        if read is None or any(not every.isdisjoint(memoryview(payload).cast("Q")) for _, payload in read):
            return False
    return True


__all__ = ["DELTA", "KEPT_BEFORE", "MAX_DELTA", "MAX_STALE", "SLOT", "Store", "Stores", "clear", "keep", "load"]
