"""The one walk back from ``list``'s last 1 MiB of a rollout that both Codex seeds share: the
model its first calls ran on (``turnseed``) and the totals reached before it (``totalseed``),
each a ``Search`` handed the lines its markers mark, the last first, in one pass over the bytes
for both (``totalseed.seeds_before``).
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO, Protocol

from agentscan.toolkit import jsonl
from agentscan.toolkit.fsutil import open_regular
from agentscan.toolkit.markedlines import MarkedLines, literal_finder

#: how far before the window a ``turn_context`` is looked for (a longer turn keeps ``-``
#: until a whole pass: a first ``list`` of a heavy user's newest sessions reads no gigabytes)
MAX_BACK_BYTES = 32 * 1024 * 1024


class Search(Protocol):
    """One thing looked for before a window (``walk_back``): the markers of its lines, and
    what it makes of each line found (``take``: ``True`` once it looks no further)."""

    markers: tuple[bytes, ...]

    def take(self, handle: BinaryIO, line: int, marker: bytes, walk: MarkedLines) -> bool: ...

    def ended(self, walk: MarkedLines) -> None: ...  # every line within reach was handed to it

    def cut(self) -> None: ...  # the file turned out shorter (cut meanwhile) before it was done

    def failed(self) -> None: ...  # a read failed before it was done


def walk_back(path: Path, end: int, searches: list[Search]) -> None:
    """Hand each of ``searches`` the lines its markers mark before byte ``end`` of ``path`` (a
    line's start), within ``MAX_BACK_BYTES`` of it, the last first, until each has done: one walk
    back for all (a window with both a call of no model and a drop walked 32 MiB twice)."""
    markers = tuple(dict.fromkeys(marker for search in searches for marker in search.markers))
    busy = list(searches)
    try:
        with open_regular(path) as handle:
            walk = MarkedLines(handle, end, literal_finder(markers), seam=max(map(len, markers)) - 1,
                               floor=end - MAX_BACK_BYTES, longest=jsonl.MAX_LINE_BYTES)
            for line, marker in walk:
                busy = [search for search in busy if marker not in search.markers
                        or not search.take(handle, line, marker, walk)]
                if not busy:
                    return
            if walk.cut:
                for search in busy:
                    search.cut()
                return
            for search in busy:
                search.ended(walk)
    except OSError:
        for search in busy:
            search.failed()
