"""What a warning says of a JSON record a decoder refused: its place as a column of the line
the warning names, and, for bytes that are not UTF-8, which byte and where."""

from __future__ import annotations

import re

import orjson

#: orjson places an error as ``line 1 column 1075 (char 1074)`` within the text it was given:
#: for a JSON Lines record that is always line 1, beside the file's own line number
_ONE_LINE_PLACE = re.compile(r": line 1 column (\d+) \(char \d+\)$")


#: orjson's words for bytes that are not UTF-8, whatever they are: "surrogates not allowed"
#: sent a reader looking for surrogates in a file that held none
_NOT_UTF8 = "str is not valid UTF-8"


def short_json_error(exc: Exception, data: bytes | str | None = None) -> str:
    """What a decoder said of a bad record, for a warning: its place as a column of the
    line the warning names, and 120 characters at most.  ``data``: the record as read, for
    orjson's refusal of bytes that are not UTF-8, which names neither the byte nor its
    place; and a line ``laxjson.reparse`` refused though it reads such bytes failed for
    another fault, maybe: the one at the place its decoder stopped is named."""
    text = str(exc)
    if text.startswith(_NOT_UTF8):
        return _not_utf8(data)
    text = _ONE_LINE_PLACE.sub(r" at column \1", text)
    return text if len(text) <= 120 else text[:117] + "…"


def _not_utf8(data: bytes | str | None) -> str:
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
    try:
        orjson.loads(surrogate.sub("\ufffd", text))
    except orjson.JSONDecodeError as retry:
        if not (retry.pos < len(text) and surrogate.match(text, retry.pos)):
            return short_json_error(retry)
        at = retry.pos
    else:  # read whole once replaced: said at the first
        found = surrogate.search(text)
        if found is None:
            return "not valid UTF-8"
        at = found.start()
    code = ord(text[at])
    what = f"byte 0x{code - 0xDC00:02x}" if code >= 0xDC80 else f"U+{code:04X}"
    return f"not valid UTF-8 ({what} at column {at + 1})"
