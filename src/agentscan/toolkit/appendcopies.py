"""How two copies of one append-only log stand to each other: the same, one the start of the
other (a stale snapshot: everything it holds is in the other), or different.  Read only when
one session's file is found twice (rare), two chunks of each: an append log's middle does not
change, so two copies that agree at their start and at the end of the shorter agree between."""

from __future__ import annotations

import os
from pathlib import Path

from agentscan.toolkit.fsutil import open_regular

#: how ``first`` stands to ``second`` (``compare_copies``)
SAME, SHORTER, LONGER, DIFFERENT = range(4)

#: how much of each end of two copies ``compare_copies`` reads
_COMPARE_CHUNK = 1 << 20


def compare_copies(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> int | None:
    """``SAME``, ``SHORTER`` (``first`` is a proper start of ``second``), ``LONGER`` (``second``
    is one of ``first``) or ``DIFFERENT``; ``None``: one cannot be read (read-only, regular
    files only; what is wrong is said where the file is read for its content)."""
    try:
        with open_regular(Path(first)) as one, open_regular(Path(second)) as other:
            sizes = (os.fstat(one.fileno()).st_size, os.fstat(other.fileno()).st_size)
            shorter = min(sizes)
            for at in sorted({0, max(0, shorter - _COMPARE_CHUNK)}):
                one.seek(at)
                other.seek(at)
                span = min(_COMPARE_CHUNK, shorter - at)
                if one.read(span) != other.read(span):
                    return DIFFERENT
    except OSError:
        return None
    return SAME if sizes[0] == sizes[1] else SHORTER if sizes[0] < sizes[1] else LONGER
