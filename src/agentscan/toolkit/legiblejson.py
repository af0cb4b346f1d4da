"""JSON of a document that may hold text typed on the command line.

An argument holds whatever bytes the shell passed: one that is not UTF-8 (a
path of a latin-1 file system, a mistyped ``$'\\xff'``) reaches Python with
surrogate escapes, which orjson refuses ("str is not valid UTF-8").  A
document that echoes it (``tokens --cwd``'s ``cwd``, ``export``'s output
path, ``prices``' query) is printed with each such byte as U+FFFD, as a file
name that is not UTF-8 is in a warning (``fsview.legible``): after the export
was written, a traceback and exit 1 said it failed.
"""

from __future__ import annotations

from typing import Any

from agentscan.fsview import legible


def dumps(document: Any, option: int = 0) -> bytes:
    """``orjson.dumps(document, option=option)``, each string made valid UTF-8 first when one
    is not (only then: a document of valid text is not walked)."""
    import orjson

    try:
        return orjson.dumps(document, option=option)
    except orjson.JSONEncodeError:
        # Any other reason (a type orjson cannot write) raises again, from the second call.
        return orjson.dumps(legible_value(document), option=option)


def legible_value(value: Any) -> Any:
    """``value`` with every string of it (keys too) valid UTF-8 (``fsview.legible``)."""
    if isinstance(value, str):
        return legible(value)
    if isinstance(value, dict):
        return {legible(key) if isinstance(key, str) else key: legible_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [legible_value(item) for item in value]
    return value
