"""What a warning says of a JSON record a decoder refused, in plain words: what is wrong
with it and where (a column of the line the warning names), never the decoder's own words.

orjson's messages ("invalid literal, expected 'null'", "unexpected content after document",
"str is not valid UTF-8: surrogates not allowed") are its parser's jargon: a reader of a
warning wants to know what is wrong with the line and where to look, and ``unexpected
"NaN" at column 7`` says both.  Each of orjson's messages is said as one of a few phrases
(``_PHRASES``); one this module does not know is said as ``malformed`` with its place.
"""

from __future__ import annotations

import re

import orjson

#: orjson's words for bytes that are not UTF-8, whatever they are: "surrogates not allowed"
#: sent a reader looking for surrogates in a file that held none
_NOT_UTF8 = "str is not valid UTF-8"
#: its words for such bytes inside a string, where it reads bytes itself (either case)
_NOT_UTF8_IN_STRING = "invalid utf-8 encoding in string"

#: orjson's message (how it starts) → what a warning says, before the place (``{code}``: the
#: character there, ``_code``); its messages are the strings in orjson's (yyjson's) build.
#: Those about a word, a key or a value found where another belongs: ``_phrase``.
_PHRASES: tuple[tuple[str, str], ...] = (
    ("unexpected end of data", "it stops mid-record"),
    ("unexpected content after document", "more text after the record's end"),
    ("unexpected character, expected ':' after key", 'a missing ":" after a key'),
    ("unexpected character, expected ',' or '}'", 'a missing "," or "}"'),
    ("unexpected character, expected ',' or ']'", 'a missing "," or "]"'),
    ("trailing comma is not allowed", "an extra comma before a closing bracket"),
    ("unexpected control character in string", "a raw control character{code} inside quotes"),
    ("invalid escape", "a bad backslash escape inside quotes"),  # "… escape in string", "… escaped sequence …"
    ("no low surrogate", "an unpaired \\u escape inside quotes"),
    ("invalid high surrogate", "an unpaired \\u escape inside quotes"),
    ("invalid low surrogate", "an unpaired \\u escape inside quotes"),
    ("number with leading zero", "a number with a leading zero"),
    ("no digit after", "a malformed number"),  # "… sign", "… decimal point", "… exponent sign"
    ("number is infinity", "a number too large to read"),
    ("depth limit exceeded", "nested too deeply"),
    ("UTF-8 byte order mark (BOM)", "a stray byte order mark (BOM)"),
    ("input data is empty", "it is empty"),
    ("Input is a zero-length", "it is empty"),
    ("input length is 0", "it is empty"),
)

#: orjson's messages about what it found where something else belongs
_FOUND_THERE = ("unexpected character", "invalid literal")
#: where a word of a line ends: JSON's punctuation and whitespace
_WORD_END = re.compile(r'[\s,:\[\]{}"]')
#: the longest excerpt a warning quotes: enough for ``undefined`` or ``Infinity``
_EXCERPT = 12


def line_json_error(exc: Exception, line: bytes, stripped: bytes) -> str:
    """``short_json_error`` of a JSON Lines record decoded as ``stripped`` (``line.strip()``),
    its column a place in ``line`` as a person's editor counts it: the indent the strip
    took (ASCII whitespace: a character a byte) is counted back in."""
    return short_json_error(exc, stripped, indent=len(line) - len(line.lstrip()))


def short_json_error(exc: Exception, data: bytes | str | None = None, *, indent: int = 0) -> str:
    """What is wrong with a record a decoder refused, in plain words, and where: ``unexpected
    "NaN" at column 7``, ``it stops mid-record at column 8``, ``not valid UTF-8 (byte 0xff at
    column 1)``; 120 characters at most.  ``data``: the record as the decoder was given it,
    to quote the word found where it stopped, and for orjson's refusal of bytes that are not
    UTF-8, which names neither the byte nor its place; a line ``laxjson.reparse`` refused
    though it reads such bytes failed for another fault, maybe: the one at the place its
    decoder stopped is named.  ``indent``: characters the line had before ``data``, added to
    a column of its one line."""
    said = getattr(exc, "msg", None)
    said = said if isinstance(said, str) else ""
    if said.startswith(_NOT_UTF8) or said.lower().startswith(_NOT_UTF8_IN_STRING):
        return _not_utf8(data, indent)
    text = _phrase(said, getattr(exc, "pos", None), data) + _place(exc, indent)
    return text if len(text) <= 120 else text[:117] + "…"


def _phrase(said: str, pos: object, data: bytes | str | None) -> str:
    """orjson's message ``said`` in plain words (``pos``: where in ``data`` it stopped)."""
    word = _token(data, pos) if isinstance(pos, int) else None
    if word and not word[0].isprintable() and said.startswith(_FOUND_THERE):
        # Seen as nothing, or as a space, on a terminal: named, not quoted (a byte order mark
        # pasted mid-line, a NUL, a vertical tab, a bidi override)
        return "a stray byte order mark (BOM)" if word[0] == "\ufeff" else f"an invisible character{_code(word)}"
    if said.startswith(("unexpected character, expected a JSON value", "unexpected character, expected a string key",
                        "invalid literal")):  # "nulx" for null, "tru" for true
        if data is None:  # what is there is not known: no guess at what is wrong with it
            return "unexpected text"
        if word == ",":
            return "a stray comma"
        if not said.startswith("unexpected character, expected a string key"):
            return "a missing value" if word in ("}", "]", None) else f"unexpected {_quoted(word)}"
        return "a missing key" if word in ("}", ":", None) else f"a key not in double quotes ({_quoted(word)})"
    for start, phrase in _PHRASES:
        if said.startswith(start):
            return phrase.replace("{code}", _code(word))
    return "malformed"


def _place(exc: Exception, indent: int = 0) -> str:
    """Where the decoder stopped: a column of the one line it was given (a JSON Lines
    record, beside the file's own line number), or a line and column of a document."""
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    if not isinstance(column, int) or not isinstance(line, int):
        return ""
    return f" at column {column + indent}" if line == 1 else f" at line {line}, column {column}"


def _token(data: bytes | str | None, pos: int) -> str | None:
    """The word of ``data`` that starts at character ``pos`` (a punctuation mark alone),
    ``None`` past its end: what a warning quotes of the place a decoder stopped."""
    if data is None:
        return None
    text = data if isinstance(data, str) else bytes(data).decode("utf-8", "surrogateescape")
    if not 0 <= pos < len(text):
        return None
    end = _WORD_END.search(text, pos)
    stop = pos + 1 if end is not None and end.start() == pos else (len(text) if end is None else end.start())
    return text[pos:stop]


def _quoted(word: str) -> str:
    """``word`` in double quotes, cut at ``_EXCERPT`` characters, each that a terminal would
    not show as itself (a control character, a lone surrogate, a bidi override) as ``\\uXXXX``."""
    shown = "".join(char if char.isprintable() else f"\\u{ord(char):04x}" for char in word[:_EXCERPT])
    return f'"{shown}…"' if len(word) > _EXCERPT else f'"{shown}"'


def _code(word: str | None) -> str:
    """The first character of ``word`` by its code point, `` (U+0009)`` for a tab: a control
    character is seen by no terminal; nothing when the record was not given to say which."""
    return f" (U+{ord(word[0]):04X})" if word else ""


def _not_utf8(data: bytes | str | None, indent: int = 0) -> str:
    """The fault of a line with bytes that are not UTF-8: ``not valid UTF-8 (byte 0xff at
    column 1)`` where its decoder stops at one (columns count characters, as a decoder's
    other errors do), else what stops it there (``{"b": "\xff", x}``: the ``x``)."""
    if data is None:
        return "not valid UTF-8"
    # Each byte that is not UTF-8 one character (U+DC80-U+DCFF), read again as U+FFFD: a
    # character no UTF-8 text holds, as ``laxjson`` finds them (compiled on this rare path).
    from agentscan.toolkit.laxjson import SURROGATES

    surrogate = re.compile(SURROGATES)
    text = data if isinstance(data, str) else bytes(data).decode("utf-8", "surrogateescape")
    replaced = surrogate.sub("\ufffd", text)
    try:
        orjson.loads(replaced)
    except orjson.JSONDecodeError as retry:
        if not (retry.pos < len(text) and surrogate.match(text, retry.pos)):
            return short_json_error(retry, replaced, indent=indent)
        at = retry.pos
    else:  # read whole once replaced: said at the first
        found = surrogate.search(text)
        if found is None:
            return "not valid UTF-8"
        at = found.start()
    code = ord(text[at])
    what = f"byte 0x{code - 0xDC00:02x}" if code >= 0xDC80 else f"U+{code:04X}"
    return f"not valid UTF-8 ({what} at column {at + 1 + indent})"
