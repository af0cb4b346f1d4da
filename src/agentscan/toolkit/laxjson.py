"""JSON that Node's ``JSON.parse`` reads and orjson refuses: a lone surrogate escape, and
bytes that are not UTF-8.

Claude Code, Gemini CLI and Cursor write their records with ``JSON.stringify``, which
escapes a lone UTF-16 surrogate as ``"\\ud83d"``: a string cut in the middle of an emoji
(a truncated tool output, a reply cut when a stream aborts) is written so, valid JSON
(anthropics/claude-code#69927).  orjson refuses it, as it refuses any byte that is not
UTF-8, and the readers then skipped the whole line: a billed call lost, and a legacy
Gemini chat lost after its first such string.  ccusage (Node) reads those lines.

So the readers keep orjson for every line (the fast path) and, for a line it refused
for exactly these reasons, ask ``reparse``: the text decoded as a JavaScript reader
decodes a file (a byte that is not UTF-8 becomes U+FFFD), parsed by the standard
library (which takes lone surrogate escapes), every lone surrogate then made U+FFFD so
that the record can be printed, cached and exported.  Anything else orjson refused (a
cut line, ``NaN``, nesting too deep) is refused again, with orjson's own error.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import orjson

#: what orjson says of a lone surrogate escape ("no low surrogate", "invalid high
#: surrogate", …) and of bytes that are not UTF-8 ("str is not valid UTF-8: …")
_OURS = ("surrogate", "UTF-8")
#: compiled (and cached by ``re``) on first use: every start imports this module
SURROGATES = "[\ud800-\udfff]"
_INT64 = (-(2**63), 2**63 - 1)
#: said once per record whose bytes were not UTF-8
NOT_UTF8 = "bytes that are not UTF-8 read as U+FFFD"


def reparse(data: bytes | str, error: orjson.JSONDecodeError, note: Callable[[str], None] | None = None) -> Any:
    """What ``JSON.parse`` makes of ``data``, which orjson refused with ``error``.

    Raises ``error`` again when the refusal is not one of the two above, or when the
    text is not JSON for the standard library either.  ``note`` hears ``NOT_UTF8`` when
    bytes had to be replaced (a lone surrogate escape is valid JSON: nothing is said).
    """
    try:
        if not any(word in str(error) for word in _OURS):
            raise error
        text, replaced = _decoded(data)
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            import json  # only for these rare lines: ``json`` costs the start-up milliseconds

            try:
                value = _legible(json.loads(text, parse_constant=_refuse, parse_int=_integer, parse_float=_finite))
            except (ValueError, RecursionError):
                raise error from None
        if replaced and note is not None:
            note(NOT_UTF8)
        return value
    finally:
        # ``error`` raised again keeps this frame in its traceback, and the frame kept ``error``
        # (and the line, and ``note``, a partial of the sink): a cycle, which the CLI's
        # collector, off (``entry``), never freed: 10,050 bad lines held 55 MB to the end.
        del data, error, note


def _decoded(data: bytes | str) -> tuple[str, bool]:
    """``data`` as text, and whether a byte that is not UTF-8 was replaced."""
    if isinstance(data, str):
        try:  # read with ``surrogateescape``: back to the bytes read
            raw = data.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            return re.sub(SURROGATES, "\ufffd", data), True
    else:
        raw = data
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace"), True


def _integer(text: str) -> int | float:
    """An integer beyond 64 bits as a float, as JavaScript holds it (orjson writes neither
    kind of number otherwise); one beyond a float's range is refused, as orjson refuses it."""
    value = int(text)
    if _INT64[0] <= value <= _INT64[1]:
        return value
    return _finite(text)


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):  # ``1e400``: orjson says "number is infinity"
        raise ValueError(f"{text[:20]} is out of range")
    return value


def _refuse(constant: str) -> None:
    # ``NaN`` and ``Infinity`` are Python's, not JSON's: JSON.parse refuses them too.
    raise ValueError(f"{constant} is not JSON")


def _legible(value: Any) -> Any:
    """``value`` with every lone surrogate U+FFFD: orjson writes none."""
    if isinstance(value, str):
        return re.sub(SURROGATES, "\ufffd", value)
    if isinstance(value, dict):
        return {_legible(key): _legible(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_legible(item) for item in value]
    return value


def loads(data: bytes | str) -> Any:
    """orjson's parse, else ``reparse``'s: for readers off the line readers' hot path
    (a probe, a header, a database value).  Raises ``orjson.JSONDecodeError``."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return reparse(data, exc)
