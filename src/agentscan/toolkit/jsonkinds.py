"""What a decoded JSON value is, in JSON's words, for the warnings of every reader that
skips a value of the wrong kind (a JSON line that is no object, a chat file, a usage field).

Apart from ``jsonerrors`` and without imports: a provider's counting rules
(``claude/usage``) say it too, and must not load orjson for it."""

from __future__ import annotations


def json_kind(value: object) -> str:
    """What a decoded JSON value is, in JSON's words with its article, for a warning:
    ``null``, ``a boolean``, ``a number``, ``a string``, ``an array``, ``an object``.  A
    warning is read by someone who wrote JSON, not Python: "a NoneType", "a int" and "a
    list" named the decoder's types."""
    if value is None:
        return "null"
    if value is True or value is False:  # before numbers: a bool is an int in Python
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"  # never from a JSON decoder
