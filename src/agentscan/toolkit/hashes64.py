"""An exact set of 64-bit hashes in a flat array: 16 bytes a member, where a ``set`` spends ~90.

A row pass over a 1 GB transcript settles 400,000 calls and keeps the hash
of each (``WindowedTotals``): as a ``set`` of Python ints that was ≈ 50 MB
of a first ``show``'s peak, twice over (the side pass's helper held the set
and this process unpickled it).  Here the members live in an open-addressing
table of signed 64-bit slots (``array('q')``, at most half full, probed a
few slots on, then as a ``set`` probes: ``_probe``); zero marks an empty
slot, so a member zero is kept in a flag of its own.  Pickled, and in
``to_bytes``, only the members travel (8 bytes each); the table is built
again on the first lookup, so a set that is only passed on (a helper's
answer, a resume state kept again) is never probed here.

Lookups cost a few bytecodes where a ``set`` costs one: the callers make a
set only once hashes must be kept (a row that never leaves its window has none).
"""

from __future__ import annotations

import sys
from array import array
from typing import Iterable

_FIRST_SLOTS = 1024
#: a member as the unsigned 64 bits whose high bits choose where ``_probe`` goes on
_UNSIGNED = (1 << 64) - 1
#: bits of those shifted in at each jump (CPython's ``PERTURB_SHIFT``)
_SHIFT = 5
#: a signed 64-bit slot as bytes, in the machine's order (``to_bytes`` and ``from_bytes`` agree)
_ORDER = sys.byteorder


def from_digest(digest: bytes) -> int:
    """An 8-byte digest as the signed 64-bit member ``to_bytes`` writes back as those bytes."""
    return int.from_bytes(digest, _ORDER, signed=True)


class Hashes64:
    """Membership of signed 64-bit integers (``hash()`` values, or ``from_digest`` of a digest)."""

    __slots__ = ("_table", "_mask", "_count", "_zero", "_packed")

    def __init__(self, members: Iterable[int] = ()) -> None:
        self._table = _empty(_FIRST_SLOTS)
        self._mask = _FIRST_SLOTS - 1
        self._count = 0  # non-zero members in the table
        self._zero = False
        self._packed: bytes | None = None  # members not put in the table yet (``from_bytes``)
        for member in members:
            self.add(member)

    @classmethod
    def from_bytes(cls, packed: bytes) -> Hashes64:
        """The set ``to_bytes`` wrote; raises ``ValueError`` unless ``packed`` is whole 8-byte members."""
        if len(packed) % 8:
            raise ValueError("not a whole number of 64-bit members")
        hashes = cls()
        hashes._packed = bytes(packed) if packed else None
        return hashes

    def to_bytes(self) -> bytes:
        """Every member, 8 bytes each in no particular order."""
        if self._packed is not None:
            return self._packed
        members = array("q", (slot for slot in self._table if slot))
        if self._zero:
            members.append(0)
        return members.tobytes()

    def __reduce__(self) -> tuple:
        return (Hashes64.from_bytes, (self.to_bytes(),))

    def __len__(self) -> int:
        if self._packed is not None:
            self._unpack()
        return self._count + self._zero

    def __contains__(self, member: int) -> bool:
        if self._packed is not None:
            self._unpack()
        if not member:
            return self._zero
        table = self._table
        slot = member & self._mask
        found = table[slot]
        if found == member:
            return True
        if not found:
            return False
        return table[self._probe(member, slot)] == member

    def any_in(self, members: Iterable[int]) -> bool:
        """Whether any of ``members`` is one: ``member in self`` for each, in one loop (the
        join of a 1 GB ``show``'s halves asks it of ≈ 100,000 hashes, three sets in turn,
        after both halves: a call of ``__contains__`` each was ≈ 0.07 CPU-s of its serial end)."""
        if self._packed is not None:
            self._unpack()
        table, mask, zero, probe = self._table, self._mask, self._zero, self._probe
        for member in members:
            if not member:
                if zero:
                    return True
                continue
            slot = member & mask
            found = table[slot]
            if found == member:
                return True
            if found:  # (``_probe``'s first step inline: the next slot is most often empty)
                found = table[(slot + 1) & mask]
                if found == member or (found and table[probe(member, slot)] == member):
                    return True
        return False

    def add(self, member: int) -> None:
        if self._packed is not None:
            self._unpack()
        if not member:
            self._zero = True
            return
        table = self._table
        slot = member & self._mask
        found = table[slot]
        if found:
            if found == member:
                return
            slot = self._probe(member, slot)
            if table[slot]:
                return  # (``member`` itself)
        table[slot] = member
        self._count += 1
        if self._count * 2 > self._mask:
            self._grow()

    def _grow(self) -> None:
        members = self._table
        self._table, self._mask, self._count = _empty(2 * len(members)), 2 * len(members) - 1, 0
        self._fill(members, empty_slots=True)

    def _probe(self, member: int, slot: int) -> int:
        """The slot holding ``member``, else the first empty one where it would go, after its
        first (``slot``) held another: the next three (a cache line), then a jump chosen by its
        high bits, and so on.  Only ever the next slot made members alike in their low bits
        (hashes crafted so, which unkeyed BLAKE2b lets anyone search for; or ``i << 32``) one
        run that every add and lookup walked; this is a ``set``'s sequence, which reaches
        every slot once ``perturb`` is 0."""
        table, mask = self._table, self._mask
        perturb = member & _UNSIGNED
        while True:
            for step in (1, 2, 3):
                found = table[(slot + step) & mask]
                if not found or found == member:
                    return (slot + step) & mask
            perturb >>= _SHIFT
            slot = (5 * slot + perturb + 1) & mask
            found = table[slot]
            if not found or found == member:
                return slot

    def _unpack(self) -> None:
        packed, self._packed = self._packed, None
        members = array("q")
        members.frombytes(packed or b"")
        slots = _FIRST_SLOTS
        while slots < 2 * len(members) + 2:
            slots *= 2
        self._table, self._mask, self._count = _empty(slots), slots - 1, 0
        self._fill(members, empty_slots=False)

    def _fill(self, members: array, *, empty_slots: bool) -> None:
        """Put ``members`` in a table with room for all of them: one loop, no call per member
        but on a collision (a resumed row pass of a 256 MiB transcript unpacks ≈ 170,000).
        ``empty_slots``: ``members`` is an old table, whose zeros are its empty slots."""
        table, mask, count, probe = self._table, self._mask, self._count, self._probe
        for member in members:
            if not member:
                self._zero = self._zero or not empty_slots
                continue
            slot = member & mask
            found = table[slot]
            if found:
                if found == member:
                    continue  # twice in a damaged state's bytes: once here
                slot = probe(member, slot)
                if table[slot]:
                    continue
            table[slot] = member
            count += 1
        self._count = count


def _empty(slots: int) -> array:
    """A table of ``slots`` empty slots (``array('q', bytes(...))`` held the zeros twice)."""
    return array("q", [0]) * slots
