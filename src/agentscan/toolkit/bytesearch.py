"""Whether a byte string occurs in a block, by the C library's ``memmem`` where there is one.

``linescan``'s several markers (Codex's seven) are each looked for in a whole block once, and
most are in no line of a rollout: a search that finds nothing reads the whole block.  glibc's
``memmem`` proves a 13-byte marker absent in less than half the time ``bytes.find`` takes (0.05
against 0.13 CPU-s a marker over scale 10's 241 MB of rollouts): the block scan of a cold
``tokens`` there took 0.27 to 0.31 CPU-s less.  Only whether the marker occurs is asked of it;
where, ``bytes.find`` says.  Over a block of a few KB ``find`` is as quick as the call through
``ctypes`` alone (they break even at 2 to 4 KB, measured): a shorter block is left to ``find``
(``SHORT``).
"""

from __future__ import annotations

import sys
from functools import cache
from typing import Callable

#: blocks shorter than this are searched by ``bytes.find`` alone (``memmem``'s call costs more)
SHORT = 4096


@cache
def _memmem() -> Callable[[bytes, int, bytes, int], int | None] | None:
    """The C library's ``memmem``, looked up once (``None``: there is none here, or the lookup
    failed in any way: ``bytes.find`` answers from then on)."""
    if sys.platform == "win32":
        return None
    try:
        # (on Linux a worker has ctypes imported already: ``forking``; elsewhere this imports it)
        import ctypes

        search = ctypes.CDLL(None).memmem
        search.restype = ctypes.c_void_p
        # ``c_char_p`` hands C the bytes object's own buffer: no copy of the block.
        search.argtypes = (ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t)
    except Exception:
        return None
    return search


def occurs(data: bytes, needle: bytes, end: int) -> bool:
    """Whether ``needle`` (not empty) occurs whole in ``data[:end]``: ``data.find(needle, 0, end) >= 0``."""
    if end < SHORT or data.__class__ is not bytes:
        return data.find(needle, 0, end) >= 0
    search = _memmem()
    if search is None:
        return data.find(needle, 0, end) >= 0
    return search(data, min(end, len(data)), needle, len(needle)) is not None
