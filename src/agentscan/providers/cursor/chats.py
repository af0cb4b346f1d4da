"""The Cursor Agent CLI's own store (docs/providers/cursor.md), for names and models.

::

    <home>/.cursor/chats/<md5(cwd)>/<id>/{meta.json, store.db}
    <home>/.cursor/acp-sessions/<id>/{meta.json, store.db}

``meta.json`` gives ``cwd`` and times (``createdAtMs``/``updatedAtMs``) or a
``title``; ``store.db``'s ``meta`` table holds, under key ``0``, hex-encoded
JSON with ``name``, ``createdAt`` and ``lastUsedModel``.  The message blobs
(a content-addressed DAG) are not read: transcripts carry the conversation.
Finding the dirs costs two directory listings; a store is read only for a
session that is shown, and at most once per scan.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from agentscan.toolkit import laxjson

from agentscan.bounds import MAX_SIDE_FILE_BYTES
from agentscan.context import ScanContext
from agentscan.toolkit.jsondoc import load_json_file
from agentscan.toolkit.jsonerrors import short_json_error
from agentscan.toolkit.jsonkinds import json_kind
from agentscan.providers.cursor.roots import chat_roots
from agentscan.providers.sessionnames import usable_id
from agentscan.providers.cursor.records import as_dict, as_epoch_ms, as_str, model_name
from agentscan.errors import DatabaseUnavailable
from agentscan.toolkit.sqlite_ro import has_table, readonly, unavailable_reason
from agentscan.timeutil import from_epoch
from agentscan.toolkit.fsutil import is_dir

_INDEX_KEY = "cursor.chats.index"
_META_KEY = "cursor.chats.meta"


class ChatMeta(NamedTuple):
    """What the Agent CLI store says of a chat (a named tuple: see ``cli.term.Terminal``)."""

    name: str | None = None
    cwd: str | None = None
    model: str | None = None
    created: datetime | None = None
    updated: datetime | None = None


#: the name the CLI gives a chat until it has one: no title
DEFAULT_NAME = "New Agent"


def _dirs(path: Path, ctx: ScanContext) -> list[Path]:
    try:
        return [Path(entry.path) for entry in ctx.listed(path) if ctx.admit(entry) and is_dir(entry)]
    except OSError:
        return []


def chat_dirs(ctx: ScanContext) -> dict[str, Path]:
    """Composer id → its store dir (memoised per scan)."""
    index = ctx.memo.get(_INDEX_KEY)
    if index is None:
        index = {}
        roots = chat_roots(ctx)  # (chats, acp-sessions) of each config dir, the first one winning
        ctx.confine_to([root.path for root in roots])
        for chats, acp in zip(roots[::2], roots[1::2]):
            sessions = [session for bucket in _dirs(chats.path, ctx) for session in _dirs(bucket, ctx)]
            for session in sessions + _dirs(acp.path, ctx):
                if session.name not in index and usable_id(session.name, session, ctx):
                    index[session.name] = session
        ctx.memo[_INDEX_KEY] = index
    return index


def meta_json(directory: Path, ctx: ScanContext) -> dict[str, Any]:
    cache: dict[Path, dict[str, Any]] = ctx.memo.setdefault("cursor.chats.meta_json", {})
    if directory not in cache:
        path = directory / "meta.json"
        found = os.path.lexists(path)
        cache[directory] = as_dict(load_json_file(path, ctx, max_bytes=MAX_SIDE_FILE_BYTES)) if found else {}
    return cache[directory]


def _decode_meta_value(value: object) -> tuple[dict[str, Any], str | None]:
    """Key ``0`` of ``meta``: hex of JSON (older stores wrote the JSON itself), and what is
    wrong with it when it cannot be used, in the words of the line readers (an array, a
    depth limit exceeded, bytes that are not UTF-8), not all said to be "not hex"."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return {}, f"meta key 0 is {_sql_kind(value)}, not hex-encoded JSON; skipped"
    text = value.strip()
    try:
        data = bytes.fromhex(text) if not text.startswith("{") else text.encode()
    except ValueError:
        return {}, "meta key 0 is not hex-encoded JSON; skipped"
    try:
        decoded = laxjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return {}, f"meta key 0 is not valid JSON ({short_json_error(exc, data)}); skipped"
    if not isinstance(decoded, dict):
        return {}, f"meta key 0 is {json_kind(decoded)}, not an object; skipped"
    return decoded, None


def _sql_kind(value: object) -> str:
    """What SQLite held instead of text (``meta.value`` is TEXT, but SQLite stores any type)."""
    if value is None:
        return "NULL"
    return "a number" if isinstance(value, (int, float)) else f"a {type(value).__name__}"


def store_meta(path: Path, ctx: ScanContext) -> dict[str, Any]:
    """Key ``0`` of a store's ``meta`` (memoised: discovery and the row both ask)."""
    cache: dict[Path, dict[str, Any]] = ctx.memo.setdefault("cursor.chats.store_meta", {})
    if path not in cache or _unread_expired(path, ctx):  # a lock let go: read again
        cache[path] = _store_meta(path, ctx)
    return cache[path]


def _unread_expired(path: Path, ctx: ScanContext) -> bool:
    from agentscan.providers.cursor.storechat import unread_expired

    return unread_expired(path, ctx)


def _store_meta(path: Path, ctx: ScanContext) -> dict[str, Any]:
    if not os.path.isfile(path) or ctx.linked_outside(path):  # found by name
        return {}
    try:
        with readonly(path) as conn:
            if not has_table(conn, "meta"):
                return {}
            row = conn.execute("SELECT value FROM meta WHERE key = '0'").fetchone()
    except (DatabaseUnavailable, sqlite3.DatabaseError) as exc:
        from agentscan.providers.cursor.storechat import not_read

        not_read(path, unavailable_reason(exc, path), ctx)
        return {}
    if not row:
        return {}
    decoded, problem = _decode_meta_value(row[0])
    if problem is not None:
        ctx.warn(path, problem)
    return decoded


def chat_meta(native_id: str, ctx: ScanContext) -> ChatMeta | None:
    cache: dict[str, ChatMeta | None] = ctx.memo.setdefault(_META_KEY, {})
    if native_id not in cache:
        directory = chat_dirs(ctx).get(native_id)
        cache[native_id] = None if directory is None else _read(directory, ctx)
    return cache[native_id]


def _read(directory: Path, ctx: ScanContext) -> ChatMeta:
    meta = meta_json(directory, ctx)
    store = store_meta(directory / "store.db", ctx)
    created = as_epoch_ms(store.get("createdAt")) or as_epoch_ms(meta.get("createdAtMs"))
    name = as_str(store.get("name"))
    return ChatMeta(
        name=(name if name is not None and name.strip() != DEFAULT_NAME else None) or as_str(meta.get("title")),
        cwd=as_str(meta.get("cwd")) or as_str(store.get("cwd")),
        model=model_name(store.get("lastUsedModel")),
        created=from_epoch(created),
        updated=from_epoch(as_epoch_ms(meta.get("updatedAtMs"))),
    )


def known_chat_cwds(ctx: ScanContext) -> set[str]:
    """Every ``meta.json`` cwd: a cheap read, no DB opened."""
    cwds = set()
    for directory in chat_dirs(ctx).values():
        cwd = as_str(meta_json(directory, ctx).get("cwd"))
        if cwd:
            cwds.add(cwd)
    return cwds


def subagent_parents(directory: Path, ctx: ScanContext) -> tuple[str, ...]:
    """The chats a CLI subagent's store names its parent, preferred first: ``store.db`` meta
    ``subagentInfo`` (``parentAgentId``, then ``rootParentAgentId``), then ``meta.json``'s
    (``parentAgentId`` beside ``isSubagent``); ``()`` for a chat of its own.  The first one
    that is there wins (``children.build``): a grandchild whose parent chat is gone still
    rolls into the root.  Opens the store (asked only of a chat that has no transcript)."""
    meta = meta_json(directory, ctx)
    store = store_meta(directory / "store.db", ctx)
    found: dict[str, None] = {}
    for info in (as_dict(store.get("subagentInfo")), as_dict(meta.get("subagentInfo")), meta):
        for key in ("parentAgentId", "rootParentAgentId", "parentComposerId"):
            parent = as_str(info.get(key))
            if parent is not None and parent.strip() and parent.strip() != directory.name:
                found[parent.strip()] = None
    # ``isSubagent`` with no parent named: attached to none, so listed on its own (not lost).
    return tuple(found)
