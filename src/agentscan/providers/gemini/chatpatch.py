"""A Gemini chat's ``{"$patch": …}`` records, read as Gemini CLI's own loader reads them.

Newer Gemini CLI builds sync the chat with the model's history (``ChatRecordingService.
updateMessagesFromHistory``) by appending one line instead of whole messages again::

    {"$patch": {"updates": [{"id", "content"?, "toolCalls"?: [{"id", "result"}]}],
                "removeIds": [id, …], "orderIds": [id, …]}}

(or a single ``{"$patch": {"id", …}}``).  Its loader (``createJsonlRecordAccumulator``) applies
them to the live messages only, in this order: each update replaces a message's ``content``
and the ``result`` of its tool calls named by id (nothing else: never its ``tokens``, so a
patch bills nothing); ``removeIds`` takes messages out; ``orderIds`` moves the messages it
names, in its order, after the others.  A line holding ``$patch`` is never a message.

Only where a patch lives is kept (its line's offset and its place in ``updates``), never the
text it brings: ``show`` reads a message's last copy and applies its patches again
(``patch_all``).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, BinaryIO, Iterator, NamedTuple

import orjson

from agentscan.toolkit import laxjson
from agentscan.toolkit.jsonl import MAX_LINE_BYTES
from agentscan.toolkit.shrinkline import line_at


class PatchAt(NamedTuple):
    """Where one update of a message lives: its ``$patch`` line and its index in ``updates``
    (``None``: the ``$patch`` is the update itself)."""

    offset: int
    update: int | None


def updates_of(payload: dict[str, Any]) -> Iterator[tuple[int | None, dict[str, Any]]]:
    """The message updates of a ``$patch`` payload, with their index in ``updates``."""
    if isinstance(payload.get("id"), str):
        yield None, payload
    updates = payload.get("updates")
    for index, update in enumerate(updates if isinstance(updates, list) else ()):
        if isinstance(update, dict) and isinstance(update.get("id"), str):
            yield index, update


def removed_ids(payload: dict[str, Any]) -> list[str]:
    ids = payload.get("removeIds")
    return [value for value in ids if isinstance(value, str)] if isinstance(ids, list) else []


def reorder(live: OrderedDict[str, Any], payload: dict[str, Any]) -> bool:
    """Move the live messages ``orderIds`` names after the others, in its order (the first
    place of an id named twice); whether the payload has an ``orderIds``."""
    ids = payload.get("orderIds")
    if not isinstance(ids, list):
        return False
    moved: set[str] = set()
    for value in ids:
        if isinstance(value, str) and value in live and value not in moved:
            moved.add(value)
            live.move_to_end(value)
    return True


def apply_update(record: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """``record`` with ``update`` applied (a copy; ``record`` is left as it was)."""
    if "content" in update:
        record = {**record, "content": update["content"]}
    patches = update.get("toolCalls")
    calls = record.get("toolCalls")
    if isinstance(patches, list) and record.get("type") == "gemini" and isinstance(calls, list):
        calls = list(calls)
        for patch in patches:
            if not isinstance(patch, dict) or "result" not in patch:
                continue
            for index, call in enumerate(calls):
                if isinstance(call, dict) and call.get("id") == patch.get("id"):
                    calls[index] = {**call, "result": patch["result"]}
                    break
        record = {**record, "toolCalls": calls}
    return record


def record_at(handle: BinaryIO, offset: int) -> dict[str, Any]:
    """The JSON object on the line at ``offset`` (``{}`` for anything else)."""
    handle.seek(offset)
    line = line_at(handle, MAX_LINE_BYTES)  # (one over the cap shrunk, as the pass read it)
    if offset == 0 and line.startswith(b"\xef\xbb\xbf"):
        line = line[3:]
    try:
        record = laxjson.loads(line)
    except orjson.JSONDecodeError:
        return {}
    return record if isinstance(record, dict) else {}


def message_in(record: dict[str, Any], item: int | None) -> dict[str, Any] | None:
    """``record`` (a line's), or item ``item`` of its ``$set.messages``."""
    if item is None:
        return record
    update = record.get("$set")
    messages = update.get("messages") if isinstance(update, dict) else None
    if isinstance(messages, list) and item < len(messages) and isinstance(messages[item], dict):
        return messages[item]
    return None


def patch_all(handle: BinaryIO, records: dict[str, dict[str, Any]], patches: dict[str, list[PatchAt]]) -> None:
    """Each of ``records`` (by id) with its ``patches`` applied again, in file order (an update
    no longer where it was, the file rewritten since, is passed over).  Each ``$patch`` line is
    read once for all the messages it updates, and let go before the next: a sync updates
    every message, and a line read again for each made ``show`` quadratic."""
    wanted: dict[int, dict[int | None, str]] = {}
    for message_id, places in patches.items():
        for at in places:
            wanted.setdefault(at.offset, {})[at.update] = message_id
    for offset in sorted(wanted):
        payload = record_at(handle, offset).get("$patch")
        if not isinstance(payload, dict):
            continue
        updates = wanted[offset]
        for index, update in updates_of(payload):
            wanted_id = updates.get(index)
            if wanted_id is not None and update.get("id") == wanted_id:
                records[wanted_id] = apply_update(records[wanted_id], update)
