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

import gc
import math
from typing import Any

#: nesting levels kept in a payload; real payloads use fewer than ten
MAX_DEPTH = 64
TOO_DEEP = f"[nested deeper than {MAX_DEPTH} levels]"
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1


def sanitize(value: Any, depth: int = 0) -> Any:
    """``value`` within the bounds above: the very value given when it already is (most
    payloads: nothing copied), else a copy with what is out of bounds replaced.

    Walks with their own stack, not recursion: the recursive copy of a payload of megabytes
    of small containers took a second and ~25 times the payload's size in memory."""
    if not isinstance(value, (dict, list)):
        return _scalar(value)
    if depth >= MAX_DEPTH:
        return TOO_DEEP
    # The walks make no reference cycle, but their million small allocations would start the
    # cycle collector over and over, each pass through the whole payload: 5x the walk's time.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _copy(value, depth) if _needs_copy(value, depth) else value
    finally:
        if collecting:
            gc.enable()


def _needs_copy(value: dict[Any, Any] | list[Any], depth: int) -> bool:
    """Whether anything in ``value`` is out of bounds (or a dict key is no string)."""
    stack = [(value, depth)]
    while stack:
        container, level = stack.pop()
        level += 1
        if isinstance(container, dict):
            if not all(type(key) is str for key in container):
                return True
            items: Any = container.values()
        else:
            items = container
        for item in items:
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue
            if kind is dict or kind is list:
                if level >= MAX_DEPTH:
                    return True
                stack.append((item, level))
            elif _scalar(item) is not item:
                return True
    return False


def _copy(value: dict[Any, Any] | list[Any], depth: int) -> Any:
    """``value`` copied within the bounds, top down: each container is made empty and filled
    when it is taken off the stack (keys keep their order)."""
    top: Any = {} if isinstance(value, dict) else []
    stack = [(value, top, depth)]
    while stack:
        source, target, level = stack.pop()
        level += 1
        pairs = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in pairs:
            if isinstance(item, (dict, list)):
                if level >= MAX_DEPTH:
                    fixed: Any = TOO_DEEP
                else:
                    fixed = {} if isinstance(item, dict) else []
                    stack.append((item, fixed, level))
            else:
                fixed = _scalar(item)
            if isinstance(target, list):
                target.append(fixed)
            else:
                target[key if isinstance(key, str) else str(key)] = fixed
    return top


def _scalar(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if _INT_MIN <= value <= _INT_MAX else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return str(value)
