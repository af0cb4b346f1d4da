"""An exact set of 64-bit hashes in a flat array: 16 bytes a member, where a ``set`` spends ~90.

A row pass over a 1 GB transcript settles 400,000 calls and keeps the hash
of each (``WindowedTotals``): as a ``set`` of Python ints that was ≈ 50 MB
of a first ``show``'s peak, twice over (the side pass's helper held the set
and this process unpickled it).  Here the members live in an open-addressing
table of signed 64-bit slots (``array('q')``, linear probing, at most half
full); zero marks an empty slot, so a member zero is kept in a flag of its
own.  Pickled, and in ``to_bytes``, only the members travel (8 bytes each);
the table is built again on the first lookup, so a set that is only passed
on (a helper's answer, a resume state kept again) is never probed here.

Lookups cost a few bytecodes where a ``set`` costs one: the callers make a
set only once hashes must be kept (a row that never leaves its window has none).
"""

from __future__ import annotations

import sys
from array import array
from typing import Iterable

_FIRST_SLOTS = 1024
#: a signed 64-bit slot as bytes, in the machine's order (``to_bytes`` and ``from_bytes`` agree)
_ORDER = sys.byteorder


def from_digest(digest: bytes) -> int:
    """An 8-byte digest as the signed 64-bit member ``to_bytes`` writes back as those bytes."""
    return int.from_bytes(digest, _ORDER, signed=True)


class Hashes64:
    """Membership of signed 64-bit integers (``hash()`` values, or ``from_digest`` of a digest)."""

    __slots__ = ("_table", "_mask", "_count", "_zero", "_packed")

    def __init__(self, members: Iterable[int] = ()) -> None:
        self._table = array("q", bytes(8 * _FIRST_SLOTS))
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
        table, mask = self._table, self._mask
        slot = member & mask
        while True:
            found = table[slot]
            if found == member:
                return True
            if not found:
                return False
            slot = (slot + 1) & mask

    def add(self, member: int) -> None:
        if self._packed is not None:
            self._unpack()
        if not member:
            self._zero = True
            return
        table, mask = self._table, self._mask
        slot = member & mask
        while True:
            found = table[slot]
            if found == member:
                return
            if not found:
                break
            slot = (slot + 1) & mask
        table[slot] = member
        self._count += 1
        if self._count * 2 > mask:
            self._grow()

    def _grow(self) -> None:
        old = self._table
        self._table = array("q", bytes(16 * len(old)))
        self._mask = 2 * len(old) - 1
        self._count = 0
        for member in old:
            if member:
                self._put(member)

    def _put(self, member: int) -> None:
        """A non-zero member known not to be in the table, which has room."""
        table, mask = self._table, self._mask
        slot = member & mask
        while table[slot]:
            slot = (slot + 1) & mask
        table[slot] = member
        self._count += 1

    def _unpack(self) -> None:
        packed, self._packed = self._packed, None
        members = array("q")
        members.frombytes(packed or b"")
        slots = _FIRST_SLOTS
        while slots < 2 * len(members) + 2:
            slots *= 2
        self._table, self._mask = array("q", bytes(8 * slots)), slots - 1
        for member in members:
            if not member:
                self._zero = True
            elif member not in self:
                self._put(member)
