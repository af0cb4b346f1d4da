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
    payloads: nothing copied), else a value that shares every container within bounds with
    the one given and copies only those on the way to what is replaced (one huge integer in
    a 5 MB tool response: the few dicts and lists above it, not the megabytes around it).

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
        if not _needs_copy(value, depth):
            return value
        return _copy(value, depth) if _odd(value) else _shared_copy(value, depth)
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


def _odd(container: Any) -> bool:
    """Not what ``json`` gives (a key that is no string, a subclass of dict or list): copied
    whole, as before, rather than shared (where no payload read from JSON ever goes)."""
    kind = type(container)
    return not (kind is dict or kind is list) or (kind is dict and not all(type(key) is str for key in container))


def _shared_copy(value: dict[str, Any] | list[Any], depth: int) -> Any:
    """``value`` with what is out of bounds replaced, each container on the way to it copied
    (shallow) and every other one shared.  Depth first, keeping only the path from ``value``
    to the container being walked: ``[container, its items, their level, its key, its copy]``."""
    root: list[Any] = [value, iter(value.items()) if type(value) is dict else enumerate(value), depth + 1, None, None]
    path = [root]
    while path:
        frame = path[-1]
        level = frame[2]
        for key, item in frame[1]:
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue
            if kind is dict or kind is list:
                if level >= MAX_DEPTH:
                    _own(path)[key] = TOO_DEEP
                elif kind is dict and not all(type(name) is str for name in item):
                    _own(path)[key] = _copy(item, level)
                else:
                    path.append([item, iter(item.items()) if kind is dict else enumerate(item), level + 1, key, None])
                    break  # walked now; this one's items go on where they stopped once it is done
            elif kind is int or kind is float:
                fixed = _scalar(item)
                if fixed is not item:
                    _own(path)[key] = fixed
            elif isinstance(item, (dict, list)):  # a subclass: copied whole, as before
                _own(path)[key] = TOO_DEEP if level >= MAX_DEPTH else _copy(item, level)
            elif (fixed := _scalar(item)) is not item:  # no JSON value (or a subclass of one)
                _own(path)[key] = fixed
        else:
            path.pop()
    return root[4] if root[4] is not None else value


def _own(path: list[list[Any]]) -> Any:
    """The copy of the container walked last, made (with that of each one above it that has
    none yet, each put in its parent's copy in place of the original) the first time."""
    start = len(path)
    while start > 0 and path[start - 1][4] is None:
        start -= 1
    for index in range(start, len(path)):
        frame = path[index]
        frame[4] = dict(frame[0]) if type(frame[0]) is dict else list(frame[0])
        if index:
            path[index - 1][4][frame[3]] = frame[4]
    return path[-1][4]


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
