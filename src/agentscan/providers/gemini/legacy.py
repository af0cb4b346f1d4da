"""Reading a legacy whole-file chat (Gemini CLI ≤ v0.38), even a truncated one.

Gemini CLI rewrote the whole pretty-printed file on every update, without a
rename, so a reader can catch it half written (docs/providers/gemini.md).
Rather than lose the session, a file that does not parse is salvaged: the
metadata strings before ``"messages"`` and every message object that is
complete are kept, with a warning that says so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson

from agentscan.context import ScanContext, say
from agentscan.bounds import MAX_JSON_DOCUMENT_BYTES
from agentscan.toolkit.fsutil import read_capped
from agentscan.toolkit.jsondoc import load_json_file, too_many_values
from agentscan.toolkit.jsonkinds import json_kind
from agentscan.toolkit import laxjson

_MESSAGES = re.compile(r'"messages"\s*:\s*\[')
_META_STRING = re.compile(r'"(sessionId|projectHash|startTime|lastUpdated|kind|summary)"\s*:\s*("(?:[^"\\]|\\.)*")')
_SEPARATOR = re.compile(r"[\s,]*")


def load_legacy(path: Path, ctx: ScanContext) -> dict[str, Any] | None:
    # The parser's complaint is held back: a file that is salvaged gets one
    # warning, the salvage's (what was read), not that one as well.
    with ctx.held_warnings() as held:
        document = load_json_file(path, ctx)
    if document is None and held.said:  # nothing said: outside the roots, never read
        salvaged = _salvage(path, ctx)
        if salvaged is None:
            say(ctx, held.said)
        return salvaged
    say(ctx, held.said)
    if isinstance(document, dict):
        return document
    # Here ``None`` is the file's JSON ``null``, read without a word: said as any other kind.
    ctx.warn(path, f"chat file's JSON is {json_kind(document)}, not an object; skipped")
    return None


def _strict(text: str) -> Any:
    """``text`` parsed as every other reader parses a record: orjson's bounded nesting,
    a lone surrogate U+FFFD (``toolkit.laxjson``).  ``None`` when it is not JSON."""
    try:
        return laxjson.loads(text)
    except orjson.JSONDecodeError:
        return None


def _salvage(path: Path, ctx: ScanContext) -> dict[str, Any] | None:
    # A file load_json_file refused for its size or its number of values
    # (bounds.py) is refused here too (``load_legacy`` then says why).
    try:
        data = read_capped(path, MAX_JSON_DOCUMENT_BYTES)
    except OSError:
        return None
    if too_many_values(data):
        return None
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    start = _MESSAGES.search(text)
    head = text[: start.start()] if start else text
    document: dict[str, Any] = {}
    for match in _META_STRING.finditer(head):
        value = _strict(match.group(2))
        if isinstance(value, str):
            document.setdefault(match.group(1), value)
    if not document.get("sessionId"):
        return None
    messages: list[Any] = []
    if start is not None:
        decoder = json.JSONDecoder()
        position = start.end()
        while True:
            position = _SEPARATOR.match(text, position).end()  # type: ignore[union-attr]
            if position >= len(text) or text[position] == "]":
                break
            try:
                # Python's decoder only finds where the message ends; it recurses
                # per nesting level, so a deeply nested one ends the salvage.
                _, end = decoder.raw_decode(text, position)
            except (ValueError, RecursionError):
                break
            message = _strict(text[position:end])
            if message is not None:
                messages.append(message)
            position = end
    document["messages"] = messages
    ctx.warn(path, f"chat file is truncated or corrupt; read the {len(messages)} complete messages before the damage")
    return document
