"""The bounds of ``show``: keep the newest items within fixed budgets.

Collectors accept items as a transcript streams past and hold at most the
configured number, so memory stays bounded whatever the file's size.  Byte
budgets are filled newest first when the detail is finalised.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Callable, Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Bounds:
    prompts: int = 1_000
    responses: int = 2_000
    tools: int = 2_000
    prompt_bytes: int = 2 * 1024 * 1024
    response_bytes: int = 2 * 1024 * 1024
    tool_bytes: int = 1024 * 1024
    message_bytes: int = 64 * 1024


DEFAULT_BOUNDS = Bounds()

#: The largest token count a provider field may hold (per call, or a Codex
#: running total); anything above is garbage and counts as zero.  No call or
#: session comes near it, and it keeps every sum an exact integer that JSON,
#: SQLite and CSV can hold (a hostile ``1e308`` would not fit in 64 bits).
MAX_TOKEN_COUNT = 10**12


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


def clip_text(text: str, limit: int) -> tuple[str, bool]:
    """Cut ``text`` to at most ``limit`` UTF-8 bytes; say whether it was cut."""
    encoded = text.encode("utf-8", "replace")
    if len(encoded) <= limit:
        return text, False
    return encoded[: max(0, limit - 3)].decode("utf-8", "ignore") + "…", True


class NewestKept(Generic[T]):
    """Keeps the newest ``limit`` items and counts the ones it dropped."""

    def __init__(self, limit: int) -> None:
        self._items: deque[T] = deque(maxlen=max(limit, 0))
        self.dropped = 0

    def add(self, item: T) -> None:
        if self._items.maxlen == 0:
            self.dropped += 1
            return
        if len(self._items) == self._items.maxlen:
            self.dropped += 1
        self._items.append(item)

    def __len__(self) -> int:
        return len(self._items)

    def items(self) -> list[T]:
        return list(self._items)


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
