"""A row's window state read back (``windowed.WindowedTotals.from_state``, ``from_settled``,
``halfjoin``): every field's type checked, so a damaged or hostile state is refused, not
summed.  Apart from ``windowed`` to keep each module readable.
"""

from __future__ import annotations

from typing import Iterator

from agentscan.providers.claude.usage import (
    C_CACHE_READ,
    C_CACHE_WRITE,
    C_CACHE_WRITE_1H,
    C_FROM_PROGRESS,
    C_INPUT,
    C_MODEL,
    C_ORDER,
    C_OUTPUT,
    C_SESSION_ID,
    C_SUBAGENT,
    C_TS,
    C_WEB_SEARCHES,
    HAS_SPEED,
    MESSAGE_ID,
    REQUEST_ID,
    SIDECHAIN,
    Call,
)


def sums_of_state(sums: object) -> dict[tuple, list[int]]:
    """``_state``'s sums (or ``settled``'s) back as the sums' dict, every field's type checked.
    Each item's list becomes its parts (its key taken off in place): a copy of each was held
    beside the items until the caller let go of them."""
    found: dict[tuple, list[int]] = {}
    for item in checked_items(sums):
        found[tuple(item[:5])] = item
        del item[:5]
    return found


def checked_items(sums: object) -> list[list]:
    """``_state``'s sums as written (``[*key, *parts]`` each), every field's type checked
    (raises ``ValueError``): a half's join adds them up as they are (``halfjoin``)."""
    if not isinstance(sums, list):
        raise ValueError("ill-shaped sums")
    for item in sums:
        if not (isinstance(item, list) and len(item) == 12 and all(type(v) is int and v >= 0 for v in item[5:])):
            raise ValueError("ill-shaped sums")
        subagent, model, bucket, tier, from_progress = item[:5]
        if not (_str_or_none(subagent) and _str_or_none(model) and (bucket is None or type(bucket) is int)
                and type(tier) is int and type(from_progress) is bool):
            raise ValueError("ill-shaped sums")
    return sums


def _str_or_none(value: object) -> bool:
    return value is None or isinstance(value, str)


_NONE = type(None)
#: the types each field of a call tuple may have (``usage.call_of`` makes them)
_CALL_FIELD_TYPES: dict[int, frozenset[type]] = {
    MESSAGE_ID: frozenset({str}), REQUEST_ID: frozenset({str, _NONE}), SIDECHAIN: frozenset({bool}),
    HAS_SPEED: frozenset({bool}), C_INPUT: frozenset({int}), C_CACHE_READ: frozenset({int}),
    C_CACHE_WRITE: frozenset({int}), C_OUTPUT: frozenset({int}), C_TS: frozenset({float, _NONE}),
    C_MODEL: frozenset({str, _NONE}), C_SUBAGENT: frozenset({str, _NONE}), C_ORDER: frozenset({int}),
    C_CACHE_WRITE_1H: frozenset({int}), C_WEB_SEARCHES: frozenset({int}), C_FROM_PROGRESS: frozenset({bool}),
    C_SESSION_ID: frozenset({str, _NONE}),
}
_COUNTS = (C_INPUT, C_CACHE_READ, C_CACHE_WRITE, C_OUTPUT, C_CACHE_WRITE_1H, C_WEB_SEARCHES)


def calls_of_state(columns: object, count: int) -> Iterator[Call]:
    """Call tuples from ``to_state``'s columns, every field's type checked (a column in one sweep)."""
    if not (isinstance(columns, list) and len(columns) == (len(_CALL_FIELD_TYPES) if count else 0)):
        raise ValueError("ill-shaped calls")
    for index, column in enumerate(columns):
        if not (isinstance(column, list) and len(column) == count and set(map(type, column)) <= _CALL_FIELD_TYPES[index]):
            raise ValueError("ill-shaped calls")
        if index in _COUNTS and min(column) < 0:
            raise ValueError("ill-shaped calls")
    return zip(*columns)
