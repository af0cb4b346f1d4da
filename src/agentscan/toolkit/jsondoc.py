"""Whole-file JSON documents a provider keeps (Gemini's legacy chats and project list,
Cursor's ``cli-config.json``, …), read in one piece within bounded memory.

A document is refused above ``MAX_JSON_DOCUMENT_BYTES`` or ``MAX_JSON_VALUES``
(``agentscan.bounds``): parsing it whole is then safe.  As the line readers
(``toolkit.jsonl``), these never raise for bad content: a warning, and ``None``.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from agentscan import bounds
from agentscan.context import EMPTY_FILE, ScanContext
from agentscan.toolkit.fsutil import read_capped
from agentscan.toolkit.jsonerrors import short_json_error
from agentscan.toolkit.jsonl import BOM
from agentscan.toolkit.laxjson import reparse


def load_json_file(
    path: Path, ctx: ScanContext, *, max_bytes: int = bounds.MAX_JSON_DOCUMENT_BYTES
) -> object | None:
    """A whole-file JSON document, or ``None`` with a warning.

    The file must be a regular file inside the provider roots, at most
    ``max_bytes`` long and with at most ``MAX_JSON_VALUES`` values (see
    ``bounds``), so that parsing it in one piece stays within bounded memory.
    """
    if ctx.outside_roots(path):
        return None
    try:
        data = read_capped(path, max_bytes)
    except OSError as exc:
        ctx.cannot_read(path, exc)
        return None
    data = data.removeprefix(BOM)
    if not data.strip():
        ctx.warn(path, EMPTY_FILE)
        return None
    if too_many_values(data):
        ctx.warn(path, f"holds more than {bounds.MAX_JSON_VALUES:,} JSON values; skipped")
        return None
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        try:  # a lone surrogate escape, or bytes that are not UTF-8 (``laxjson``)
            return reparse(data, exc, lambda note: ctx.warn(path, note))
        except orjson.JSONDecodeError:
            ctx.warn(path, f"invalid JSON: {short_json_error(exc, data)}")
            return None


def too_many_values(data: bytes | str) -> bool:
    """Whether a JSON text may hold more than ``MAX_JSON_VALUES`` values.

    Every value but the first opens a container or follows a ``,`` or ``:``,
    so counting those bytes (in C, without parsing) bounds the count from
    above; bytes inside strings only make it overcount.
    """
    budget = bounds.MAX_JSON_VALUES
    if len(data) <= budget:
        return False  # one byte per value at least, so it cannot pass the budget
    marks = (b"[", b"{", b",", b":") if isinstance(data, bytes) else ("[", "{", ",", ":")
    found = 0
    for mark in marks:
        found += data.count(mark)  # type: ignore[arg-type]
        if found > budget:
            return True
    return False
