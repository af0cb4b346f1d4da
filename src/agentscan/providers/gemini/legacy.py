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
from typing import Any, Iterator

import orjson

from agentscan.context import ScanContext, say
from agentscan.bounds import MAX_JSON_DOCUMENT_BYTES
from agentscan.settling import CUT_SHORT_FRESH, CUT_SHORT_SETTLED
from agentscan.toolkit.fsutil import read_capped
from agentscan.toolkit.jsondoc import load_json_file, too_many_values
from agentscan.toolkit.jsonkinds import json_kind
from agentscan.toolkit import laxjson
from agentscan.toolkit.words import plural

_MESSAGES = re.compile(r'"messages"\s*:\s*\[')
_META_STRING = re.compile(r'"(sessionId|projectHash|startTime|lastUpdated|kind|summary)"\s*:\s*("(?:[^"\\]|\\.)*")')
_SEPARATOR = re.compile(r"[\s,]*")


def load_legacy(path: Path, ctx: ScanContext, damage: list[str] | None = None) -> dict[str, Any] | None:
    """The chat's document, salvaged up to its damage when it does not parse; ``damage`` is
    given the salvage's warning then (the mark a row keeps: ``SessionRow.usage_cut``)."""
    # The parser's complaint is held back: a file that is salvaged gets one
    # warning, the salvage's (what was read), not that one as well.
    with ctx.held_warnings() as held:
        document = load_json_file(path, ctx)
    if document is None and held.said:  # nothing said: outside the roots, never read
        salvaged = _salvage(path, ctx, damage)
        if salvaged is None:
            say(ctx, held.said)
        return salvaged
    say(ctx, held.said)
    if isinstance(document, dict):
        return document
    # Here ``None`` is the file's JSON ``null``, read without a word: said as any other kind.
    ctx.warn(path, f"chat file's JSON is {json_kind(document)}, not an object; skipped")
    return None


#: what ``_strict`` gives for text that is no JSON (``None`` is JSON's ``null``)
_INVALID = object()


def _strict(text: str) -> Any:
    """``text`` parsed as every other reader parses a record: orjson's bounded nesting,
    a lone surrogate U+FFFD (``toolkit.laxjson``).  ``_INVALID`` when it is not JSON."""
    try:
        return laxjson.loads(text)
    except orjson.JSONDecodeError:
        return _INVALID


def _text(path: Path) -> str | None:
    """The file as text; ``None`` when it cannot be read, or load_json_file refused it for
    its size or its number of values (bounds.py): it is refused here too."""
    try:
        data = read_capped(path, MAX_JSON_DOCUMENT_BYTES)
    except OSError:
        return None
    if too_many_values(data):
        return None
    return data.decode("utf-8", "replace").lstrip("\ufeff")


def _messages(text: str, position: int) -> Iterator[tuple[int, Any]]:
    """Where each complete message of the list that starts at ``position`` begins, and the
    message, until the list ends or the first that is not whole (one that is whole but no
    JSON as every reader takes it is passed over, as the salvage leaves it out)."""
    decoder = json.JSONDecoder()
    while True:
        position = _SEPARATOR.match(text, position).end()  # type: ignore[union-attr]
        if position >= len(text) or text[position] == "]":
            return
        try:
            # Python's decoder only finds where the message ends; it recurses
            # per nesting level, so a deeply nested one ends the walk.
            _, end = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            return
        message = _strict(text[position:end])
        if message is not _INVALID:
            yield position, message
        position = end


class MessageLines:
    """The line each message of a legacy chat starts on, by its index in ``messages`` (a bad
    value's line: ``valuewarnings.FileTally.locate``).  Found only when asked, by walking the
    file again: a file's first bad value asks once, a file of none never.  The index counts
    every complete message, ``null`` too, as the salvage keeps them: a salvaged list and a
    whole one are indexed alike."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def line_of(self, index: int) -> int:
        """The number of the line the ``index``-th message starts on."""
        text = _text(self.path)
        start = _MESSAGES.search(text) if text is not None else None
        if text is None or start is None:
            return 1  # (the file changed since it was read: its one document, from its start)
        found = start.start()  # a message not found again: the list that holds it
        for at, (offset, _) in enumerate(_messages(text, start.end())):
            if at == index:
                found = offset
                break
        return text.count("\n", 0, found) + 1


def _salvage(path: Path, ctx: ScanContext, damage: list[str] | None = None) -> dict[str, Any] | None:
    text = _text(path)
    if text is None:
        return None
    start = _MESSAGES.search(text)
    head = text[: start.start()] if start else text
    document: dict[str, Any] = {}
    for match in _META_STRING.finditer(head):
        value = _strict(match.group(2))
        if isinstance(value, str):
            document.setdefault(match.group(1), value)
    if not document.get("sessionId"):
        return None
    # Every complete one, ``null`` too: indexed as ``MessageLines`` indexes them.  Only an
    # object is a message the chat is read for: only those are counted.
    messages = [message for _, message in _messages(text, start.end())] if start is not None else []
    document["messages"] = messages
    complete = sum(isinstance(message, dict) for message in messages)
    # A document that stops before it is whole was read while Gemini CLI rewrote it, maybe
    # (said so while the file is young: ``settling``).  NUL bytes at its end are a crash's (its
    # size set before its data reached the disk): no writer comes back.
    cut = not text.endswith("\x00") and _ends_early(text)
    said = f"{CUT_SHORT_FRESH if cut else CUT_SHORT_SETTLED}; read the {plural(complete, 'complete message')} before the damage"
    ctx.warn(path, said)
    if damage is not None:
        damage.append(said)
    return document


#: a ``\uD800``–``\uDFFF`` escape (paired ones too: only the end of the parse is asked for)
_LONE_SURROGATE = re.compile(r"(?<!\\)((?:\\\\)*)\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _ends_early(text: str) -> bool:
    """Whether ``text`` is a JSON document cut short: the parse fails at the end of its input
    (``unexpected end of data``), not on a wrong byte before it.  Its last character tells
    nothing: a pretty-printed chat cut just after a message's (or any object's) ``}`` ends
    with one, as a whole document does."""
    # A lone surrogate's escape (``JSON.stringify`` writes one for half an emoji) stops orjson
    # where it is: each is made U+FFFD's, as long, for the parse to go on to where the text ends.
    text = _LONE_SURROGATE.sub(r"\1\\ufffd", text)
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        return exc.pos >= len(text.rstrip())  # (for a ``str``, orjson's position counts characters)
    return False

