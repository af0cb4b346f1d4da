"""Streams that end where a read must: at a byte offset (``iter_json_records``' ``end``) or
at the decompressed-size cap of a ``.zst`` file (``bounds.MAX_DECOMPRESSED_BYTES``)."""

from __future__ import annotations

import io
from typing import IO

from agentscan.toolkit.zstdframes import ends_mid_frame


class Bounded(io.RawIOBase):
    """A stream that ends ``limit`` bytes on (``iter_json_records``' ``end``, ``CappedStream``)."""

    def __init__(self, inner: IO[bytes], limit: int) -> None:
        self._inner = inner
        self._left = limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._left <= 0:
            return 0
        count = self._inner.readinto(memoryview(buffer)[: self._left]) or 0  # type: ignore[attr-defined]
        self._left -= count
        return count

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            super().close()


class CappedStream(Bounded):
    """A decompressed stream that ends after ``limit`` bytes, noting whether more was left.

    A few hundred KB of zstd can expand to gigabytes; the reader must stop
    at a size that no real transcript reaches (``MAX_DECOMPRESSED_BYTES``).
    At its end it notes whether the compressed file ``source`` (the decompressor's
    input) stops part way through a frame (``cut_short``): zstandard's reader ends
    quietly there, and a rollout cut short read as a whole one, or as an empty file.
    """

    def __init__(self, inner: IO[bytes], limit: int, source: IO[bytes] | None = None) -> None:
        super().__init__(inner, limit)
        self.capped = False
        self.cut_short = False
        self._source = source

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._left <= 0 and not self.capped and self._inner.read(1):
            self.capped = True
        count = super().readinto(buffer)
        if not count and self._source is not None and not self.capped and len(buffer):
            source, self._source = self._source, None  # checked once, at the end
            try:
                self.cut_short = ends_mid_frame(source.fileno(), source.tell())
            except (OSError, ValueError):  # not known: read as it decompressed
                pass
        return count


def decompression_capped(handle: IO[bytes]) -> bool:
    """Whether ``handle`` (from ``open_binary``) stopped at the decompressed-size cap."""
    return bool(getattr(getattr(handle, "raw", None), "capped", False))


def cut_short(handle: IO[bytes]) -> bool:
    """Whether ``handle`` (from ``open_binary``), read to its end, is of a ``.zst`` file cut
    short (``zstdframes.ends_mid_frame``): the lines it gave are those before the cut."""
    return bool(getattr(getattr(handle, "raw", None), "cut_short", False))
