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
    if _TONES[0] <= ch <= _TONES[1] or unicodedata.category(ch) == "Me":
        return 0  # a skin tone, or an enclosing mark (a keycap's U+20E3): drawn into the glyph before
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def width_of(text: str) -> int:
    """Columns ``text`` takes on a terminal (wide CJK and emoji take two; an emoji sequence,
    a family or a job joined by U+200D, one glyph: two, as terminals draw it and ``wcwidth``
    counts it)."""
    if text.isascii():
        return len(text)
    # Only the characters past ASCII are looked up: a title cut with "…" is mostly
    # ASCII, and a heavy user's table has 15,000 of them.
    others = _not_ascii().findall(text)
    width = len(text) - len(others) + sum(char_width(ch) for ch in others)
    if "\u200d" in text or "\ufe0f" in text or any(_TONES[0] <= ch <= _TONES[1] for ch in others):
        width += _emoji_sequences(text)
    return width


def _emoji_sequences(text: str) -> int:
    """What ``text``'s emoji sequences add to the sum of its characters' widths: a narrow
    character asked to look like an emoji (U+FE0F: ``❤️``, ``1️⃣``) takes two columns; a skin
    tone after an emoji is drawn into it (alone, it is an emoji of its own); an emoji joined
    to the one before (U+200D) takes none of its own.  A joiner between letters (an Indic
    conjunct) only shapes them."""
    extra = 0
    glyph = 0  # the width of the glyph the last character drew into, as drawn
    joining = False
    for ch in text:
        if ch == "\u200d":
            joining = glyph == 2
            continue
        if ch == "\ufe0f":
            if glyph == 1:
                extra += 1
                glyph = 2
            continue
        width = char_width(ch)
        if _TONES[0] <= ch <= _TONES[1]:
            if glyph != 2:
                extra += 2  # a tone alone: an emoji of two columns
                glyph = 2
            continue
        if joining and width == 2:
            extra -= 2  # drawn into the emoji before it
        elif width:
            glyph = width
        joining = False
    return extra


@functools.cache
def _not_ascii() -> re.Pattern[str]:
    import re  # compiled on first use: most runs print only ASCII

    return re.compile(r"[^\x00-\x7f]")


#: what a path cut from its start begins with where the stream cannot hold ``…``: ``...``
#: (``.../weather-app``), three columns, the cut keeping three fewer of the path.  The
#: stream's one-column stand-in for ``…`` (``~``, ``cli.streams``) ends a cut well
#: (``Upgrade to Pyth~``) but reads as the home at a path's start (``~/weather-app``).
ASCII_LEFT_MARK = "..."


def left_mark(stream: object, mark: str) -> str:
    """``mark`` (``…``) where ``stream`` can hold it, else ``ASCII_LEFT_MARK``: what a path
    cut from its start begins with (``term.cut_left``, a trace's path)."""
    return ASCII_LEFT_MARK if cannot_hold(stream) else mark


def cannot_encode_all(stream: object) -> bool:
    """Whether ``stream`` fails on a character its encoding cannot hold: Python's default
    handlers (``strict``, ``surrogateescape``) on an encoding that is not a UTF.  Stderr's
    ``backslashreplace``, and a handler the user chose (``PYTHONIOENCODING=ascii:replace``), never fail."""
    errors = getattr(stream, "errors", None)
    if errors not in ("strict", "surrogateescape") or not hasattr(stream, "reconfigure"):
        return False
    return cannot_hold(stream)


def cannot_hold(stream: object) -> bool:
    """Whether ``stream``'s encoding (named, and known) is not a UTF: some characters have no
    bytes in it (``PYTHONIOENCODING=ascii``), whatever its handler then writes for them."""
    import codecs  # loaded with the interpreter

    encoding = getattr(stream, "encoding", None)
    if not encoding:
        return False
    try:
        return not codecs.lookup(encoding).name.startswith("utf-")
    except LookupError:
        return False
