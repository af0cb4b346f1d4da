"""Bounds on a hook payload's shape, applied when it is stored and again when it is read.

A payload is whatever the agent (or anything that can run the hook) sends.
Python's ``json`` accepts what the readers cannot hold: ``NaN``, ``Infinity``
and integers of any length (orjson, and with it ``trace --json`` and
``otlp``, refuses them), and nesting hundreds of levels deep (every walk of
the tree would recurse as deep).  So, as for transcripts:

* a container deeper than ``MAX_DEPTH`` levels is replaced by a marker string;
* a number outside a signed 64-bit integer, or not finite, becomes a string
  (its digits are kept; ``NaN`` stays readable as ``"NaN"``).

Stdlib only, and cheap: it runs on the hook's hot path.
"""

from __future__ import annotations

import math
from typing import Any

#: nesting levels kept in a payload; real payloads use fewer than ten
MAX_DEPTH = 64
TOO_DEEP = f"[nested deeper than {MAX_DEPTH} levels]"
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1


def sanitize(value: Any, depth: int = 0) -> Any:
    """``value`` within the bounds above (a new structure where anything changed)."""
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return TOO_DEEP
        return {key if isinstance(key, str) else str(key): sanitize(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            return TOO_DEEP
        return [sanitize(item, depth + 1) for item in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if _INT_MIN <= value <= _INT_MAX else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return str(value)
