"""Identifiers that capture, the tree and the OTLP exporter must read alike.

Stdlib only: the hook's hot path imports it.
"""

from __future__ import annotations


def canonical_generation_id(value: str | None) -> str | None:
    """Cursor ≥3.19 sends ``<36-char guid>-<digits>-<4 alnum>`` on some thought events.

    The turn is the guid; the suffix names a step inside it.
    """
    if value is None or len(value) <= 36 or value[36] != "-":
        return value
    head, _, tail = value[37:].partition("-")
    if head.isdigit() and len(tail) == 4 and tail.isalnum() and value[8] == value[13] == "-":
        return value[:36]
    return value
