"""What ``--grep`` compares: a text without its case and, unless ASCII, in one Unicode spelling.

macOS hands out decomposed names (NFD: ``e`` and a combining accent), so a directory
``café app`` may be recorded so in a transcript while the user types the composed ``é``
(or the other way round).  ``--cwd`` compares paths in one spelling (``cwdmatch``);
``--grep`` compared bytes of both spellings and did not find the session.  Both the text
asked for and every field searched are taken in their canonical caseless form: NFC of
the case folding of the NFD form (Unicode's canonical caseless match).  An ASCII text,
nearly every one, is only case folded: no ``unicodedata`` call.
"""

from __future__ import annotations

from typing import Iterable


def grep_key(text: str) -> str:
    """``text`` as ``--grep`` compares it."""
    if text.isascii():
        return text.casefold()
    from unicodedata import normalize

    return normalize("NFC", normalize("NFD", text).casefold())


def grep_hit(needle: str, haystack: Iterable[str | None]) -> bool:
    """Whether ``needle`` (a ``grep_key``) is in any of the fields of ``haystack``."""
    return any(needle in grep_key(value) for value in haystack if value)
