"""A session's token sums for ``list`` and ``show``, deduplicated in bounded memory.

A row needs only sums, and must stay bounded on a 1 GB transcript with half
a million API calls.  Copies of one call are written next to each other, so
the full keep-the-best comparison (``dedupe.CallDeduper``'s rules: ``call_rank``)
runs over a window of the most recent ``window`` calls; a call that leaves
the window is settled into the sums and only a 64-bit hash of its key is
kept (``toolkit.hashes64``: 16 bytes a call, not a ``set``'s ~90), so a
much later copy is still never counted twice, under the same key or rule 3's
other one (``windowkeys``); it just cannot replace the settled one.  ``tokens``
keeps every call exactly.

A pass whose state will outlive the process (a row's resume state,
``rowresume``: ``to_state``/``from_state``) hashes with BLAKE2b (``stable``):
a string's ``hash()`` changes from one process to the next.  Other passes
keep ``hash()``, ten times cheaper (a 1 GB transcript settles 430,000 calls).

The sums, and what a row reads of them (its total, each subagent's, the cost
groups), are ``windowsums``': this module decides which calls count.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Iterator

import orjson

from agentscan.providers.claude.dedupe import better_copy, call_rank
from agentscan.providers.claude.usage import (
    C_CACHE_READ,
    C_CACHE_WRITE,
    C_FROM_PROGRESS,
    C_INPUT,
    C_ORDER,
    C_OUTPUT,
    HAS_SPEED,
    MESSAGE_ID,
    REQUEST_ID,
    SIDECHAIN,
    Call,
)
from agentscan.digests import blake2b
from agentscan.toolkit.hashes64 import Hashes64, from_digest
from agentscan.providers.claude.windowkeys import copy_of_settled, settle_keys
from agentscan.providers.claude.windowstate import calls_of_state, sums_of_state, checked_items
from agentscan.providers.claude.windowsums import SumsReadout, add_to_sums

__all__ = ["WINDOW", "SettledTotals", "WindowedTotals", "checked_items"]


#: calls compared in full before they are settled (copies of one call are written close together)
WINDOW = 20_000


class WindowedTotals(SumsReadout):
    def __init__(self, window: int | None = None, *, stable: bool = False) -> None:
        self._window = WINDOW if window is None else window
        self.stable = stable
        self._hash: Callable[[object], int] = _stable_hash if stable else hash
        self._recent: dict[tuple[str, str | None], Call] = {}  # the window
        # Its keys, oldest first: ``next(iter(dict))`` after many deletions from the
        # front walks over their dead slots, which made a 1 GB pass quadratic.
        self._order: deque[tuple[str, str | None]] = deque()
        # Message id -> its requests in the window: a tuple of the one (most messages have one),
        # not a set (216 bytes each, 4 MB of a huge transcript's window); a set from the second
        # on (``_with_request``).
        self._requests: dict[str, tuple[str | None] | set[str | None]] = {}
        # Made when the first call leaves the window (most rows never fill it).
        self._settled_keys: Hashes64 | None = None
        # Message ids of settled parent (not sidechain) calls: a sidechain replay of one
        # under another request, however much later (a subagent file is read after the
        # whole main transcript), is still rule 4's replay and counts nothing.
        self._settled_parents: Hashes64 | None = None
        # A copy without ``requestId`` settled alone (``windowkeys.settle_keys``): rare, so only
        # then do the calls under a request pay a lookup for it.
        self._bare_settled = False
        # (subagent, model, bucket, tier class, from a progress copy) -> [input, cache read,
        # cache write, output, calls, one-hour cache write]
        self._sums: dict[tuple, list[int]] = {}
        self._everything: dict[tuple, list[int]] | None = None  # ``_all_sums``, until the next call comes
        self.evictions = 0  # calls that left the window (a pair's two: ``_partner``)
        self.unkeyed = 0  # calls without a message id (settled as they came)

    def add(self, call: Call) -> None:
        self._everything = None
        message_id = call[MESSAGE_ID]
        if message_id is None:
            self.unkeyed += 1
            self._settle(call)  # cannot be deduplicated: counts as it is
            return
        key = (message_id, call[REQUEST_ID])
        recent = self._recent
        current = recent.get(key)
        if current is None:
            # Nothing is settled before the window first fills: no hash to take.
            settled = self._settled_keys
            if settled is not None and (self._hash(key) in settled or (
                    (call[SIDECHAIN] or key[1] is None or self._bare_settled)  # (most calls: nothing more to look up)
                    and copy_of_settled(settled, self._settled_parents, self._bare_settled, self._hash, key,
                                        call[SIDECHAIN]))):
                return
            recent[key] = call
            self._order.append(key)
            # (The key was not in the window: its request is not among the message's yet.)
            requests = self._requests
            found = requests.get(message_id)
            # (``_with_request``'s common case inline: the message's first request in the window.)
            requests[message_id] = (key[1],) if found is None else _with_request(found, key[1])
            if len(recent) > self._window:
                self._evict_oldest()
        elif (call[SIDECHAIN] is current[SIDECHAIN] and call[HAS_SPEED] is current[HAS_SPEED]
              and call[C_FROM_PROGRESS] is current[C_FROM_PROGRESS]):
            # ``call_rank``'s flags alike (a reply's next record, its usage repeated or grown: a
            # call in two of a huge transcript's five records): the larger total ranks higher.
            if (call[C_INPUT] + call[C_CACHE_READ] + call[C_CACHE_WRITE] + call[C_OUTPUT]
                    > current[C_INPUT] + current[C_CACHE_READ] + current[C_CACHE_WRITE] + current[C_OUTPUT]):
                recent[key] = call
        elif call_rank(call) > call_rank(current):
            recent[key] = call

    @property
    def exact(self) -> bool:
        """No call ever left the window: the sums are exactly ``tokens``' (every copy of
        a call was compared in full), not only as long as copies stay close."""
        return self._settled_keys is None

    def _replays_parent(self, message_id: str, request_id: str | None) -> bool:
        """A sidechain copy whose message also exists, unsidechained, under another request."""
        for other in self._requests.get(message_id, ()):
            if other != request_id and not self._recent[(message_id, other)][SIDECHAIN]:
                return True
        return False

    def _partner(self, message_id: str, request_id: str | None) -> str | None | bool:
        """The other request of a message whose copies in the window are under exactly one
        ``requestId`` and none (rule 3: ``dedupe._join_unrequested``): the two are one call.
        ``False`` when they are not such a pair."""
        requests = self._requests.get(message_id)
        if isinstance(requests, set) and len(requests) == 2 and None in requests:
            (other,) = requests - {request_id}
            return other
        return False

    def _counted(self) -> Iterator[Call]:
        """The window's calls that count: all but a sidechain replay of a parent (rule 4) and
        the lesser of a pair of copies with and without ``requestId`` (``_partner``)."""
        recent = self._recent
        for (message_id, request_id), call in recent.items():
            other = self._partner(message_id, request_id)
            if other is not False:
                if not better_copy(recent[(message_id, other)], call):  # type: ignore[index]
                    yield call
            elif not (call[SIDECHAIN] and self._replays_parent(message_id, request_id)):
                yield call

    def _evict_oldest(self) -> None:
        order, recent = self._order, self._recent
        key = order.popleft()
        # Passing over the keys a pair's eviction took out of the window (removing them from
        # ``_order`` there would make a pass quadratic).
        while key not in recent:
            key = order.popleft()
        call = recent.pop(key)
        message_id, request_id = key
        requests = self._requests[message_id]
        if requests.__class__ is tuple and request_id is not None and not call[SIDECHAIN]:
            # The common case, spelt out (a 1 GB transcript settles 214,000 calls): the message's
            # one request in the window, an unsidechained call under a ``requestId``: no pair
            # (``_partner``), no replay (``_replays_parent``), no rule 3 key (``settle_keys``);
            # what the general path below does for it (``_settle`` inline: no subclass has its own).
            del self._requests[message_id]
            settled, parents = self._settled_keys, self._settled_parents
            if settled is None:
                settled = self._settled_keys = Hashes64()
            if parents is None:
                parents = self._settled_parents = Hashes64()
            settled.add(self._hash(key))
            parents.add(self._hash(message_id))
            self.evictions += 1
            add_to_sums(self._sums, call)
            return
        self._evicted(key, call)
        other = self._partner(message_id, request_id)
        if other is not False:
            # A pair (``_partner``) leaves together: its better copy settles, both keys'
            # hashes are kept (a later copy under either is that call's), and no replay rule.
            partner = self._recent.pop((message_id, other))  # type: ignore[arg-type]
            del self._requests[message_id]
            if self._settled_keys is None:
                self._settled_keys = Hashes64()
            self._settled_keys.add(self._hash(key))
            self._settled_keys.add(self._hash((message_id, other)))
            if not (call[SIDECHAIN] and partner[SIDECHAIN]):
                if self._settled_parents is None:
                    self._settled_parents = Hashes64()
                self._settled_parents.add(self._hash(message_id))
            self.evictions += 2
            self._settle(partner if better_copy(partner, call) else call)
            return
        self.evictions += 1
        replay = call[SIDECHAIN] and self._replays_parent(message_id, request_id)
        alone = not isinstance(requests, set)  # (a tuple: its one request, this one)
        if isinstance(requests, set):
            requests.discard(request_id)
            if not requests:
                del self._requests[message_id]
        else:
            del self._requests[message_id]
        if self._settled_keys is None:
            self._settled_keys = Hashes64()
        self._settled_keys.add(self._hash(key))
        if alone and (request_id is None or call[SIDECHAIN]):  # (rule 3's other key: most calls have none to keep)
            self._bare_settled |= settle_keys(self._settled_keys, self._hash, message_id, request_id)
        if not call[SIDECHAIN]:
            if self._settled_parents is None:
                self._settled_parents = Hashes64()
            self._settled_parents.add(self._hash(message_id))
        if not replay:
            self._settle(call)

    def _evicted(self, key: tuple[str, str | None], call: Call) -> None:
        """Told of a call leaving the window by age that is not the common case (a sidechain's,
        one without ``requestId``, one of a message with more requests), before it is settled:
        ``halfpass.HalfTotals`` notes a sidechain's message id."""

    def _settle(self, call: Call) -> None:
        add_to_sums(self._sums, call)

    def _all_sums(self) -> dict[tuple, list[int]]:
        """The settled sums with the window's winners added (the window stays as it is;
        a row asks for the total, each subagent's and the groups: computed once)."""
        if self._everything is not None:
            return self._everything
        sums = {key: list(parts) for key, parts in self._sums.items()}
        for call in self._counted():
            add_to_sums(sums, call)
        self._everything = sums
        return sums

    def counted_calls(self) -> list[Call] | None:
        """The calls these totals count, in file order: ``dedupe.CallDeduper.winners``' for the same
        calls.  ``None`` unless all are at hand: one that left the window or had no message id
        was added to the sums and let go (all of ``SettledTotals``' are)."""
        if not self.exact or self._sums:
            return None
        if any(isinstance(requests, set) and None in requests for requests in self._requests.values()):
            return None  # a copy without ``requestId`` (rule 3): joined in ``tokens``' own steps, not here
        return sorted(self._counted(), key=lambda call: call[C_ORDER])

    # -- a resume state (``rowresume``) ---------------------------------------

    def to_state(self) -> tuple[dict[str, Any], bytes]:
        """Everything, as JSON and one blob of the settled hashes (8 bytes each; ``stable`` ones)."""
        if not self.stable:
            raise ValueError("the settled hashes of this pass do not outlive it")
        return self._state()

    def packed(self) -> tuple[bytes, bytes]:
        """The totals as JSON and the settled hashes, for a forked helper's answer (``sidepass``;
        ``hash()`` values hold in the process it forked from): pickled as objects, the window's
        calls and the pickler's memo of each doubled the helper's memory at its end."""
        doc, hashes = self._state()
        return orjson.dumps(doc), hashes

    @classmethod
    def unpacked(cls, packed: tuple[bytes, bytes], *, stable: bool) -> WindowedTotals:
        """The totals ``packed`` wrote (``stable``: as they were made)."""
        body, hashes = packed
        return cls.from_state(orjson.loads(body), hashes, stable=stable)

    def settled(self) -> bytes:
        """What a row needs of these totals once no call will join them and no resume state
        keeps them (``sidepass``): the sums with the window's winners added, and whether they
        are exact.  A few groups, where ``packed`` holds the window's calls and 8 bytes a
        settled call: taken back for a 1 GB transcript, those were 33 MB of this process."""
        return orjson.dumps({"sums": [[*key, *parts] for key, parts in self._all_sums().items()], "exact": self.exact})

    @staticmethod
    def from_settled(body: bytes, *, stable: bool) -> SettledTotals:
        """The totals ``settled`` wrote; raises ``ValueError``/``TypeError``/``KeyError`` on an ill-shaped answer."""
        doc = orjson.loads(body)
        if type(doc["exact"]) is not bool:
            raise ValueError("ill-shaped answer")
        return SettledTotals(sums_of_state(doc["sums"]), doc["exact"], stable=stable)

    def _state(self) -> tuple[dict[str, Any], bytes]:
        # Counted from the packed bytes: a set still packed (a helper's answer) is not unpacked for it.
        keys, parents = packed_hashes(self._settled_keys), packed_hashes(self._settled_parents)
        doc = {
            "window": self._window,
            # Column by column (each checked in one sweep on the way back), oldest first as ``_order`` has them.
            "recent": [list(column) for column in zip(*self._recent.values())],
            "calls": len(self._recent),
            "sums": [[*key, *parts] for key, parts in self._sums.items()],
            "keys": len(keys) // 8,
            "bare": self._bare_settled,
        }
        return doc, keys + parents

    @classmethod
    def from_state(cls, doc: dict[str, Any], hashes: bytes, *, stable: bool = True) -> WindowedTotals:
        """The totals ``to_state`` saw; raises ``ValueError``/``TypeError``/``KeyError`` on an ill-shaped state.
        ``doc`` is consumed: its sums' lists become the totals' (a state is parsed for this alone)."""
        window, calls, sums, keys, bare = doc["window"], doc["calls"], doc["sums"], doc["keys"], doc["bare"]
        if not (type(window) is int and window >= 1 and type(calls) is int and 0 <= calls <= window and type(bare) is bool
                and type(keys) is int and 0 <= keys * 8 <= len(hashes) and len(hashes) % 8 == 0):
            raise ValueError("ill-shaped window")
        totals = cls(window, stable=stable)
        for call in calls_of_state(doc["recent"], calls):
            key = (call[MESSAGE_ID], call[REQUEST_ID])
            if key in totals._recent:
                raise ValueError("a key twice in the window")
            totals._recent[key] = call
            totals._order.append(key)
            totals._requests[call[MESSAGE_ID]] = _with_request(totals._requests.get(call[MESSAGE_ID]), call[REQUEST_ID])
        totals._sums = sums_of_state(sums)
        cut = keys * 8
        # Kept packed until a pass goes on from them (``Hashes64.from_bytes``).
        totals._settled_keys = Hashes64.from_bytes(hashes[:cut]) if cut else None
        totals._settled_parents = Hashes64.from_bytes(hashes[cut:]) if len(hashes) > cut else None
        totals._bare_settled = bare
        return totals


class SettledTotals(WindowedTotals):
    """Totals no call joins any more (``WindowedTotals.settled``): their sums, nothing of the
    window or the settled hashes, so a call added could not be deduplicated: refused."""

    def __init__(self, sums: dict[tuple, list[int]], exact: bool, *, stable: bool) -> None:
        super().__init__(stable=stable)
        self._sums = sums
        self._exact = exact
        self._agents: dict[str | None, list[int]] | None = None

    def _per_agent(self) -> dict[str | None, list[int]]:
        # Worked out once: a row asks ``total`` and ``by_subagent`` of the same sums, each a
        # pass over every group (25,000 of a 1 GB transcript's, on ``show``'s serial end).
        if self._agents is None:
            self._agents = super()._per_agent()
        return self._agents

    @property
    def exact(self) -> bool:
        return self._exact

    def add(self, call: Call) -> None:
        raise TypeError("settled totals take no more calls")

    def _all_sums(self) -> dict[tuple, list[int]]:
        # No window to add: the sums themselves (read, never changed, by the callers), where a
        # copy of a 1 GB transcript's 25,000 groups was 4 MB more of its ``show``.
        return self._sums

    def _state(self) -> tuple[dict[str, Any], bytes]:
        raise TypeError("settled totals have no window or hashes to keep")


def _with_request(requests: tuple[str | None] | set[str | None] | None,
                  request_id: str | None) -> tuple[str | None] | set[str | None]:
    """A message's requests in the window with ``request_id`` (not among them) added: a tuple
    grown and filtered call by call made a message repeated under thousands of requests (a
    hostile transcript) quadratic in the window."""
    if requests is None:
        return (request_id,)
    if isinstance(requests, set):
        requests.add(request_id)
        return requests
    return {*requests, request_id}


def packed_hashes(hashes: Hashes64 | None) -> bytes:
    """``hashes``' members as ``Hashes64.to_bytes`` packs them (none: no bytes)."""
    return b"" if hashes is None else hashes.to_bytes()


def _stable_hash(value: object) -> int:
    """64 bits of BLAKE2b of a dedupe key or a message id (JSON tells the two apart), kept
    as the digest's bytes in a resume state (``hashes64.from_digest``)."""
    return from_digest(blake2b(orjson.dumps(value), digest_size=8).digest())
