"""The pieces of ``linescan``'s block reader: a block's lines numbered lazily, where its lines
over the cap are, where its ``count``-th line ends, a file read up to an offset, and a line
over the cap read without its long strings (``shrinkline``)."""

from __future__ import annotations

from typing import IO

from agentscan.toolkit.shrinkline import Shrinker


class LongLine:
    """A line over the cap: where it starts, its number, whether it is the file's first, and
    its bytes shrunk (``shrinkline``) as they are read (``feed``), or (``shrunk``) all at once."""

    __slots__ = ("start", "number", "first", "shrinker", "shrunk")

    def __init__(self, start: int, number: int, first: bool, cap: int) -> None:
        self.start, self.number, self.first = start, number, first
        self.shrinker: Shrinker | None = Shrinker(cap)
        self.shrunk: bytes | None = None

    @classmethod
    def whole(cls, start: int, number: int, first: bool, shrunk: bytes | None) -> LongLine:
        line = cls(start, number, first, 0)
        line.shrinker, line.shrunk = None, shrunk
        return line

    def feed(self, piece: bytes) -> None:
        if self.shrinker is not None:
            self.shrinker.feed(piece)

    def result(self) -> bytes | None:
        return self.shrunk if self.shrinker is None else self.shrinker.result()


class Upto:
    """A file read no further than ``end``: the reader meets its end there."""

    __slots__ = ("_handle", "_left")

    def __init__(self, handle: IO[bytes], position: int, end: int) -> None:
        self._handle, self._left = handle, max(0, end - position)

    def read(self, size: int) -> bytes:
        data = self._handle.read(min(size, self._left)) if self._left else b""
        self._left -= len(data)
        return data


class Block:
    """One block of complete lines, numbered lazily."""

    __slots__ = ("data", "lines_before", "_counted_to", "_counted")

    def __init__(self, data: bytes, offset: int, lines_before: int) -> None:
        self.data = data
        self.lines_before = lines_before  # complete lines before data[0]
        self._counted_to = 0
        self._counted = 0

    def line_number(self, position: int) -> int:
        """1-based number of the line that starts at ``position``."""
        if position >= self._counted_to:
            self._counted += self.data.count(b"\n", self._counted_to, position)
        else:
            self._counted = self.data.count(b"\n", 0, position)
        self._counted_to = position
        return self.lines_before + self._counted + 1


def after_newline(data: bytes, count: int) -> int:
    """The offset just after the ``count``-th newline of ``data`` (0 for none): a bisection
    on ``bytes.count``, so the cut of a block of millions of lines costs no Python loop."""
    if count <= 0:
        return 0
    low, high = 0, len(data)
    while low < high:
        middle = (low + high) // 2
        if data.count(b"\n", 0, middle + 1) >= count:
            high = middle
        else:
            low = middle + 1
    return low + 1


def long_lines(data: bytes, end: int, max_line: int) -> list[tuple[int, int]]:
    """Spans of lines longer than ``max_line`` among ``data[:end]``.

    Any such line holds a whole newline-free window of half that size at an
    aligned position, so probing those windows finds them all.
    """
    found: list[tuple[int, int]] = []
    half = max(1, max_line // 2)
    position = 0
    while position < end:
        window_end = min(position + half, end)
        if data.find(b"\n", position, window_end) < 0:
            line_start = data.rfind(b"\n", 0, position) + 1
            line_end = data.find(b"\n", position, end)
            line_end = end - 1 if line_end < 0 else line_end
            if line_end - line_start > max_line and (not found or found[-1][0] != line_start):
                found.append((line_start, line_end))
            position = max(window_end, line_end + 1)
        else:
            position = window_end
    return found
