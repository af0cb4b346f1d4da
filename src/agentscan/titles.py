"""A session's title as a person reads it: without the Markdown its prompt was written in.

A first prompt is often Markdown (``## Task: **read** the files``); on one line, its
heading marks and bold stars are noise.  The tables and ``show``'s card print the title so
(``cli.term.title_text``), and ``--grep`` finds a session by what they print as well as by
the title as recorded (``title_spellings``).  ``--json`` keeps the title as recorded.

Only what is surely markup goes: a title is one line already (its newlines are spaces), so
a heading further in is told only by two marks or more (``## Steps``: one ``#`` there is
"press the # key"), and stars only around words (``2**10``, ``build/**/cache`` stay).
"""

from __future__ import annotations

import re

# Patterns, not compiled ones: ``list`` imports this for ``--grep`` and most titles need
# none of them (``re`` compiles and keeps one on first use).
_HEADING_FIRST = r"^#{1,6}(?: |$)"
_HEADING_FURTHER = r"(?<= )#{2,6}(?: |$)"
_BOLD = r"(?<![\w*/])\*\*(?=[^\s*/])(.+?)(?<=[^\s*/])\*\*(?![\w*/])"


def plain_title(title: str) -> str:
    """``title`` (one line) without its heading marks and bold stars, its spaces one each."""
    if "#" not in title and "**" not in title:
        return title  # (most titles: no pattern is run)
    plain = re.sub(_BOLD, r"\1", re.sub(_HEADING_FURTHER, "", re.sub(_HEADING_FIRST, "", title)))
    return " ".join(plain.split())


def title_spellings(title: str | None) -> tuple[str, ...]:
    """What ``--grep`` looks in for a title: as recorded, and as the tables print it."""
    if not title:
        return ()
    plain = plain_title(title)
    return (title,) if plain == title else (title, plain)


__all__ = ["plain_title", "title_spellings"]
