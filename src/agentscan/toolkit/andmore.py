"""A list cut short, as every message says it: ``a, b, c and 4 more`` on a line, or its
first lines and ``… and 4 more files`` under them.

One place: such lists were built apart in nine places, and drifted (``and 1 more events``,
``2000 more`` beside ``2,000 more``, one list's last line without its ``…``).  What is left out is counted
in words after the shown items, never ``, …`` alone, which an ASCII-only stream
(``PYTHONIOENCODING=ascii``, a cron mail) showed as ``a, b, c, ~``; a line of its own that
begins ``…`` still reads there (``~ and 4 more``, ``cli.streams``' stand-in).
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from agentscan.toolkit.words import plural

T = TypeVar("T")


def and_more(left: int, noun: str = "", nouns: str | None = None) -> str:
    """``and 4 more``; with a noun, ``and 1 more file``, ``and 2 more files`` (``nouns``: its
    plural when it is not ``noun`` + ``s``: ``rows of that index``)."""
    if not noun:
        return f"and {left:,} more"
    return f"and {plural(left, f'more {noun}', f'more {nouns}' if nouns else None)}"


def first_of(items: Sequence[T], limit: int, noun: str = "", nouns: str | None = None, *,
             say: Callable[[T], str] = str) -> str:
    """``a, b, c`` when ``items`` are ``limit`` or fewer, else the first ``limit`` and
    ``and 4 more`` (``say``: an item's words, asked of the shown ones alone)."""
    shown = ", ".join(say(item) for item in items[:limit])
    return f"{shown} {and_more(len(items) - limit, noun, nouns)}" if len(items) > limit else shown


def cut_lines(lines: Sequence[str], limit: int, noun: str = "", nouns: str | None = None, *,
              indent: str = "") -> list[str]:
    """``lines`` when they are ``limit`` or fewer, else the first ``limit`` and a last line
    ``… and 4 more`` at ``indent``."""
    if len(lines) <= limit:
        return list(lines)
    return [*lines[:limit], f"{indent}… {and_more(len(lines) - limit, noun, nouns)}"]
