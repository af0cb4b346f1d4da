"""Whether a byte string occurs in a block, by the C library's ``memmem`` where there is one.

``linescan``'s several markers (Codex's seven) are each looked for in a whole block once, and
most are in no line of a rollout: a search that finds nothing reads the whole block.  glibc's
``memmem`` proves a 13-byte marker absent in less than half the time ``bytes.find`` takes (0.05
against 0.13 CPU-s a marker over scale 10's 241 MB of rollouts): ≈ 0.4 CPU-s of a cold
``tokens`` there.  Only whether the marker occurs is asked of it; where, ``bytes.find`` says.
"""

from __future__ import annotations

import sys
from typing import Callable

#: ``memmem`` once found (``None``: there is none here, ``bytes.find`` answers)
_found: list[Callable[[bytes, int, bytes, int], int | None] | None] = []


def _memmem() -> Callable[[bytes, int, bytes, int], int | None] | None:
    if not _found:
        search = None
        if sys.platform != "win32":
            try:
                import ctypes  # (a worker has it already: ``forking``)

                search = ctypes.CDLL(None).memmem
                search.restype = ctypes.c_void_p
                # ``c_char_p`` hands C the bytes object's own buffer: no copy of the block.
                search.argtypes = (ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t)
            except (ImportError, OSError, AttributeError):
                search = None
        _found.append(search)
    return _found[0]


def occurs(data: bytes, needle: bytes, end: int) -> bool:
    """Whether ``needle`` (not empty) occurs whole in ``data[:end]``: ``data.find(needle, 0, end) >= 0``."""
    search = _memmem()
    if search is None or end <= 0 or data.__class__ is not bytes:
        return data.find(needle, 0, end) >= 0
    return search(data, min(end, len(data)), needle, len(needle)) is not None
