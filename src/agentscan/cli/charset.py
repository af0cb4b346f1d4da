"""What a terminal can show: the columns a character takes, and whether a stream can
encode every character (``cli.term``, ``cli.streams``).  Nothing here imports more than
the stdlib, most of it only when asked."""

from __future__ import annotations

import functools
import unicodedata

TYPE_CHECKING = False  # typing itself is not imported (as in agentscan/__init__.py)
if TYPE_CHECKING:
    import re


#: an emoji's skin tone (U+1F3FB..U+1F3FF): drawn into the emoji before it
_TONES = ("\U0001f3fb", "\U0001f3ff")


def char_width(ch: str) -> int:
    if unicodedata.combining(ch) or ch in "\u200b\u200c\u200d\ufeff\ufe0e\ufe0f":
        return 0
    if _TONES[0] <= ch <= _TONES[1]:
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def width_of(text: str) -> int:
    """Columns ``text`` takes on a terminal (wide CJK and emoji take two; an emoji sequence
    joined by U+200D, a family or a job, one glyph: two, as terminals draw it and ``wcwidth``
    counts it)."""
    if text.isascii():
        return len(text)
    # Only the characters past ASCII are looked up: a title cut with "…" is mostly
    # ASCII, and a heavy user's table has 15,000 of them.
    others = _not_ascii().findall(text)
    width = len(text) - len(others) + sum(char_width(ch) for ch in others)
    if "\u200d" in text:
        # Each emoji a joiner joins to the emoji before it takes no column of its own (between
        # letters, a joiner only shapes them: Indic conjuncts keep their width).
        width -= sum(2 for at, ch in enumerate(text[:-1])
                     if ch == "\u200d" and at and char_width(text[at + 1]) == 2 and not text[at - 1].isascii()
                     and (char_width(text[at - 1]) == 2 or text[at - 1] in "\ufe0f" or _TONES[0] <= text[at - 1] <= _TONES[1]))
    return width


@functools.cache
def _not_ascii() -> re.Pattern[str]:
    import re  # compiled on first use: most runs print only ASCII

    return re.compile(r"[^\x00-\x7f]")


def cannot_encode_all(stream: object) -> bool:
    """Whether ``stream`` fails on a character its encoding cannot hold: Python's default
    handlers (``strict``, ``surrogateescape``) on an encoding that is not a UTF.  Stderr's
    ``backslashreplace``, and a handler the user chose (``PYTHONIOENCODING=ascii:replace``), never fail."""
    import codecs  # loaded with the interpreter

    encoding, errors = getattr(stream, "encoding", None), getattr(stream, "errors", None)
    if not encoding or errors not in ("strict", "surrogateescape") or not hasattr(stream, "reconfigure"):
        return False
    try:
        return not codecs.lookup(encoding).name.startswith("utf-")
    except LookupError:
        return False
