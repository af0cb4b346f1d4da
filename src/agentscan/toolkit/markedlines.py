"""The lines of a file that hold a marker, found by searching its bytes backwards.

A reader that wants only a few kinds of line before a byte (Codex's window: the last
``turn_context``, the latest running totals; a hook store's lines whose payload time may come
later) need not split the file into lines: the bytes are searched a block at a time from that
byte back, in C (``bytes.rfind``, a regular expression), and only the lines a hit falls in are
placed.  Once, three readers did this each their own way (two with a seam join and a line-start
search, one with pieces cut at a line's start); this is the one they share.

A marker may run across two blocks' seam: the first bytes of the block after it are read with a
block (``seam`` of them), and a hit is taken in the block it starts in, so none is found twice.  A line's start is
found in the block read when it is there, else by reading back from the hit, and a line longer than
``longest`` is passed over as the line readers skip it (``line_start_of``): its start is not looked
for further back than that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import BinaryIO

#: read backwards this much at a time
BLOCK = 1024 * 1024
#: how far back a line's start is looked for at a time, past the block it was found in
_STEP = 64 * 1024

#: ``(where a hit starts, what it found)`` of each hit in ``searched`` that starts before ``stop``
Finder = Callable[[bytes, int], Iterable[tuple[int, bytes]]]


def literal_finder(markers: Sequence[bytes]) -> Finder:
    """The hits of each of ``markers`` (bytes), by ``bytes.rfind``."""

    def find(searched: bytes, stop: int) -> list[tuple[int, bytes]]:
        found = []
        for marker in markers:
            at = searched.rfind(marker, 0, stop + len(marker) - 1)
            while at >= 0:
                found.append((at, marker))
                at = searched.rfind(marker, 0, at)
        return found
    return find


class MarkedLines:
    """Each line before byte ``end`` of ``handle`` (a line's start) that holds a hit of ``find``
    starting at or after byte ``floor``, the last first, as ``(its start, the hit's marker)``:
    once for each marker a line holds.  ``seam``: how many bytes of the block after are read with
    a block (a marker's length less one: one running across the seam is found); ``longest``: a line longer
    than this is passed over (``None``: none is).  Iterate it once; then ``cut`` says whether the
    file turned out shorter than ``end`` (nothing further was searched)."""

    def __init__(self, handle: BinaryIO, end: int, find: Finder, *, seam: int, floor: int = 0,
                 longest: int | None = None, block: int = BLOCK) -> None:
        self.handle, self.end, self.find, self.seam = handle, end, find, seam
        self.floor, self.longest, self.block = max(0, floor), longest, block
        self.cut = False
        self._first = False  # the block being searched is the file's first
        self._left: list[tuple[int, bytes]] = []  # the hits of that block not yet taken, the last at the end

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        handle = self.handle
        position = self.end
        line, markers = -1, set[bytes]()  # the line last given, and its markers given
        while position > self.floor:
            start = max(self.floor, position - self.block)
            # A marker may run across the blocks' seam: the next block's first bytes are read
            # with it (read again: joined on, the block was copied whole).
            wanted = position - start + min(self.seam, self.end - position)
            handle.seek(start)
            searched = handle.read(wanted)
            if len(searched) < wanted:
                self.cut = True
                return
            self._first = start == 0
            self._left = sorted(self.find(searched, position - start))
            while self._left:
                at, marker = self._left.pop()
                newline = searched.rfind(b"\n", 0, at)
                found = start + newline + 1 if newline >= 0 else self._start_before(start + at, start)
                if found is None:
                    continue
                if found != line:
                    line, markers = found, set()
                if marker not in markers:
                    markers.add(marker)
                    yield found, marker
            position = start

    def none_below(self, marker: bytes) -> bool:
        """Whether the search stands in the file's first block and no hit of ``marker`` is left
        in it below the one last given: no line of it is before."""
        return self._first and all(found != marker for _, found in self._left)

    def _start_before(self, offset: int, read: int) -> int | None:
        """Where the line holding byte ``offset`` starts, when no newline is between byte
        ``read`` and it (the block read holds none): looked for back ``_STEP`` bytes at a time
        from ``offset``, and ``None`` once it is further than ``longest`` (a line a reader skips)."""
        handle, position = self.handle, offset
        while position > 0:
            start = max(0, position - _STEP)
            if start < read:  # (bytes from ``read`` on were the block's: no newline among them)
                handle.seek(start)
                newline = handle.read(min(position, read) - start).rfind(b"\n")
                if newline >= 0:
                    return start + newline + 1
            if self.longest is not None and offset - start > self.longest:
                return None
            position = start
        return 0
