"""How two copies of one append-only log stand to each other: the same, one the start of the
other (a stale snapshot: everything it holds is in the other), or different.  Read only when
one session's file is found twice (rare), two chunks of each: an append log's middle does not
change, so two copies that agree at their start and at the end of the shorter agree between."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Callable

from agentscan.toolkit.fsutil import open_regular

#: how ``first`` stands to ``second`` (``compare_copies``)
SAME, SHORTER, LONGER, DIFFERENT = range(4)
#: how ``second`` stands to ``first`` when ``first`` stands so to it
FLIPPED = {SAME: SAME, SHORTER: LONGER, LONGER: SHORTER, DIFFERENT: DIFFERENT}

#: how much of each end of two copies ``compare_copies`` reads
_COMPARE_CHUNK = 1 << 20


def compare_copies(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> int | None:
    """``SAME``, ``SHORTER`` (``first`` is a proper start of ``second``), ``LONGER`` (``second``
    is one of ``first``) or ``DIFFERENT``; ``None``: one cannot be read (read-only, regular
    files only; what is wrong is said where the file is read for its content)."""
    try:
        with open_regular(Path(first)) as one, open_regular(Path(second)) as other:
            return compare_open(one, other, lambda handle, span: handle.read(span))
    except OSError:
        return None


def compare_open(one: IO[bytes], other: IO[bytes], read: Callable[[IO[bytes], int], bytes],
                 chunk: int = _COMPARE_CHUNK) -> int:
    """``compare_copies`` of two open plain files, ``read(handle, span)`` reading each of the
    two ``chunk``-long pieces (a reader may say what failed and raise)."""
    sizes = (os.fstat(one.fileno()).st_size, os.fstat(other.fileno()).st_size)
    shorter = min(sizes)
    for at in sorted({0, max(0, shorter - chunk)}):
        one.seek(at)
        other.seek(at)
        span = min(chunk, shorter - at)
        if read(one, span) != read(other, span):
            return DIFFERENT
    return SAME if sizes[0] == sizes[1] else SHORTER if sizes[0] < sizes[1] else LONGER
