"""Every bound agentscan puts on what it reads, and the bounded collections of ``show``.

Collectors accept items as a transcript streams past and hold at most the
configured number, so memory stays bounded whatever the file's size.  Byte
budgets are filled newest first when the detail is finalised.

The reading bounds below keep a hostile home (docs/security.md) from
hanging a command or exhausting memory.  Each is far above anything a real
agent writes: "the largest sane transcript" is taken as 256 MiB and a
million lines (a months-long Codex thread is tens of MiB), and the caps
are four times that.  Reaching one is a warning, and what was read before
it is kept.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Generic, NamedTuple, TypeVar

T = TypeVar("T")

#: the sessions ``list`` shows unless told (``--limit``, ``--all``)
DEFAULT_LIMIT = 25


class Bounds(NamedTuple):
    """How much ``show`` keeps (a named tuple: see ``cli.term.Terminal``)."""

    prompts: int = 1_000
    responses: int = 2_000
    tools: int = 2_000
    prompt_bytes: int = 2 * 1024 * 1024
    response_bytes: int = 2 * 1024 * 1024
    tool_bytes: int = 1024 * 1024
    message_bytes: int = 64 * 1024


DEFAULT_BOUNDS = Bounds()

#: The largest token count a provider field may hold (per call, or a Codex
#: running total); anything above is garbage and counts as zero (a hostile
#: ``1e308`` would not fit in 64 bits).
MAX_TOKEN_COUNT = 10**12

#: The largest sum of token counts (a session, a day, a report's total): a
#: million calls at ``MAX_TOKEN_COUNT``.  Sums do *not* always fit by
#: themselves: 10 million hostile calls at the per-call cap pass 2**63, which
#: JSON (orjson), SQLite and CSV readers cannot hold.  So sums saturate here,
#: with a warning, and even the total of four saturated fields stays below
#: 2**63 (``4 * 10**18 < 9.2 * 10**18``).
MAX_TOKEN_SUM = 10**18
TOKEN_SUM_CAPPED = "token sums reached 10^18 and were capped there (hostile token counts?)"

#: Bytes a compressed (``.zst``) file may expand to: four times the largest
#: sane transcript.  A 262 KB zstd "bomb" expands to 8 GB; reading stops here.
MAX_DECOMPRESSED_BYTES = 1024 * 1024 * 1024

#: Lines read from one file (plain or compressed), four times the largest sane
#: transcript's: a file of nothing but newlines costs a loop turn per byte.
MAX_FILE_LINES = 4_000_000

#: A whole-file JSON document (a legacy Gemini chat, ``logs.json``) is parsed
#: in one piece, so it is refused above this size ...
MAX_JSON_DOCUMENT_BYTES = 64 * 1024 * 1024

#: ... and above this many values.  A parsed value costs ~72-100 bytes of
#: memory whatever its text (``[]`` is 2 bytes of input and a 72-byte list), so
#: a 250 MiB file of ``[]`` would take 6.5 GB.  The count is estimated, without
#: parsing, from the bytes that open or separate values (``[ { , :``), which
#: can only overcount; 2 million of them cost at most ~200 MB.
MAX_JSON_VALUES = 2_000_000

#: A side file (Claude ``*.meta.json``, Gemini ``.project_root`` and
#: ``projects.json``, Cursor chat metadata) is small; larger is not one.
MAX_SIDE_FILE_BYTES = 1024 * 1024

#: Seconds one query of a provider database may run before it is interrupted
#: (SQLite's progress handler): a recursive view or a hostile schema must not
#: hold a command.  The clock restarts at every row returned.
MAX_QUERY_SECONDS = 5.0


def token_count(value: object) -> int:
    """A token count from untrusted JSON: a non-negative whole number up to
    ``MAX_TOKEN_COUNT``; bools, strings, NaN, negatives and absurd values are 0."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, float):
        if not value == value or value in (float("inf"), float("-inf")):
            return 0
        value = int(value)
    if isinstance(value, int) and 0 <= value <= MAX_TOKEN_COUNT:
        return value
    return 0


def token_sum(value: int) -> int:
    """A sum of token counts, saturated at ``MAX_TOKEN_SUM``."""
    return value if value <= MAX_TOKEN_SUM else MAX_TOKEN_SUM


def clip_text(text: str, limit: int) -> tuple[str, bool]:
    """Cut ``text`` to at most ``limit`` UTF-8 bytes; say whether it was cut."""
    encoded = text.encode("utf-8", "replace")
    if len(encoded) <= limit:
        return text, False
    return encoded[: max(0, limit - 3)].decode("utf-8", "ignore") + "…", True


def shorten_kept(text: str, limit: int) -> str:
    """``text`` cut to a little over ``limit`` UTF-8 bytes, for items held before
    they reach a collector: memory stays bounded, and the collector still sees
    the text as over its limit, so it cuts it and counts the cut as usual."""
    if len(text) <= limit // 4:  # at most 4 bytes a character: surely short enough
        return text
    encoded = text.encode("utf-8", "replace")
    if len(encoded) <= limit + 4:
        return text
    return encoded[: limit + 4].decode("utf-8", "ignore")


#: what an item taken back (``NewestKept.revise``) leaves in its place: its place in the order
#: stays, so a mark taken before it (``SessionDetail.mark``) still counts it
_TAKEN: Any = object()


class NewestKept(Generic[T]):
    """Keeps the newest ``limit`` items and counts the ones it dropped."""

    def __init__(self, limit: int) -> None:
        self._items: deque[T] = deque(maxlen=max(limit, 0))
        self.dropped = 0
        self.taken = 0  # items taken back (``revise``), pushed out since: no drop, still a place
        self._blanks = 0  # items taken back still held (their places: ``_TAKEN``)
        # the places of the ``taken`` ones (rising): a rewind gives back only those past its mark
        self._taken_at: list[int] = []

    def add(self, item: T) -> None:
        if self._items.maxlen == 0:
            self.dropped += 1
            return
        if len(self._items) == self._items.maxlen:
            if self._blanks and self._items[0] is _TAKEN:  # (no look at all, in the common case)
                self._blanks -= 1
                self._taken_at.append(self.dropped + self.taken)  # every item before it is out
                self.taken += 1
            else:
                self.dropped += 1
        self._items.append(item)

    def __len__(self) -> int:
        return len(self._items)

    def position(self) -> int:
        """How many items were added and not taken back by ``take_back``: a mark to rewind to."""
        return len(self._items) + self.dropped + self.taken

    def take_back(self, count: int) -> int:
        """Forget the newest ``count`` items added (a conversation rewound past them): those
        still kept go, and those already pushed out no longer count as dropped (or as ``taken``).
        Returns how many of them had been taken back already (``revise``): not taken back twice."""
        kept = min(count, len(self._items))
        blanks = 0
        for _ in range(kept):
            blanks += self._items.pop() is _TAKEN
        self._blanks -= blanks
        out = min(count - kept, self.dropped + self.taken)  # pushed out, at or after the mark
        mark = self.dropped + self.taken - out
        taken_at = self._taken_at
        while taken_at and taken_at[-1] >= mark:
            taken_at.pop()
            self.taken -= 1
            blanks += 1
            out -= 1
        self.dropped -= out
        return blanks

    def items(self) -> list[T]:
        return [item for item in self._items if item is not _TAKEN]

    def revise(self, match: Callable[[T], bool], change: Callable[[T], T] | None) -> bool:
        """Change the kept item ``match`` picks (``change``: into what it makes of it; ``None``:
        it goes, counted nowhere: it was taken back, not dropped, its place kept for
        ``take_back``); none picked, nothing changes.  Returns whether one went."""
        for index, kept in enumerate(self._items):
            if kept is not _TAKEN and match(kept):
                self._items[index] = _TAKEN if change is None else change(kept)
                self._blanks += change is None
                return change is None
        return False


def fill_newest_first(
    items: list[T], budget: int, size: Callable[[T], int]
) -> tuple[list[T], int]:
    """Keep the newest items whose sizes fit the byte budget; count the rest."""
    kept: list[T] = []
    used = 0
    for item in reversed(items):
        cost = size(item)
        if used + cost > budget:
            break
        used += cost
        kept.append(item)
    kept.reverse()
    return kept, len(items) - len(kept)
