"""A chat of the Agent CLI store that has no transcript (docs/providers/cursor.md).

``~/.cursor/chats/<md5(cwd)>/<id>/store.db`` keeps the conversation as a
content-addressed tree: JSON message leaves (``messages.py``) and binary
nodes that order them.  Without a transcript the leaves are all there is:
they are read in row order (the tree itself is not walked), so a chat with
edited turns shows the abandoned branch's messages too.  The store records
no tokens.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Iterator

from agentscan.context import ScanContext
from agentscan.providers.cursor.events import Event
from agentscan.providers.cursor.messages import decode_message, message_events
from agentscan.toolkit.fsutil import stamp_now
from agentscan.toolkit.sqlite_ro import DatabaseUnavailable, has_table, readonly, unavailable_reason

#: a store is read at most this many message rows deep (memory and time stay bounded)
MAX_ROWS = 200_000
#: ``ScanContext.memo``: each store this scan could not open, why, its files' stamp and when
_UNREAD = "cursor.store_unread"
#: a store found unread is tried again after this many seconds even if none of its files
#: changed (a lock let go with no write leaves them as they were)
RETRY_AFTER_S = 20.0


def _stamp(path: Path) -> tuple[object, ...]:
    """The store's and its WAL's ``stamp_now``, and whether its rollback journal holds a
    write in progress (there and not empty): a write the lock was held for changes the first
    two, and a lock let go empties or deletes the journal (``released``)."""
    journal = stamp_now(f"{path}-journal")
    return (stamp_now(path), stamp_now(f"{path}-wal"), journal is not None and journal[0] > 0)


def released(then: tuple[object, ...], now: tuple[object, ...]) -> bool:
    """Whether the store may have been let go between two ``_stamp``s: its file or WAL changed,
    or its journal was emptied.  Not a journal that appeared or grew: the writer holding the
    lock writes it as it goes, and each change of it made every read of one command (the chat's
    meta, then its messages) wait out the busy timeout again."""
    return then[:2] != now[:2] or (bool(then[2]) and not now[2])


def not_read(path: Path, why: str, ctx: ScanContext) -> None:
    """Say a store could not be read, and remember it for the scan: its meta and its messages
    are read apart (``chats.store_meta``, ``store_events``), and a locked store made each wait
    out the busy timeout (3 chats of locked stores took 12 s to list)."""
    ctx.warn(path, f"Agent CLI store not read: {why}", passing=True)
    ctx.memo.setdefault(_UNREAD, {})[path] = (why, _stamp(path), time.monotonic())


def unread_expired(path: Path, ctx: ScanContext) -> bool:
    """Whether ``path`` was found unread and may be read now: it was let go since (``released``), or
    ``RETRY_AFTER_S`` went by (the memo is then forgotten).  A library ``Scanner`` lives for
    many questions: it kept a store locked once unread for its whole life."""
    unread = ctx.memo.get(_UNREAD, {})
    kept = unread.get(path)
    if kept is None:
        return False
    _, stamp, when = kept
    if not released(stamp, _stamp(path)) and time.monotonic() - when < RETRY_AFTER_S:
        return False
    del unread[path]
    return True


def said_unread(path: Path, ctx: ScanContext) -> str | None:
    """Why ``path`` could not be read earlier in this scan, said again (the sink says it once;
    a row computed meanwhile must see it could not be read this time, and is not kept for the
    next run); ``None``: it was read, or not tried."""
    if unread_expired(path, ctx):
        return None
    kept = ctx.memo.get(_UNREAD, {}).get(path)
    if kept is None:
        return None
    why: str = kept[0]
    ctx.warn(path, f"Agent CLI store not read: {why}", passing=True)
    return why


def store_events(path: Path, ctx: ScanContext, unread: list[str] | None = None) -> Iterator[Event]:
    """The store's messages as events; one that cannot be read (locked while the Agent CLI
    writes it, corrupt) is a warning, and ``unread`` is given why (its row's counts are then
    not known: ``standalone.store_row``)."""
    if ctx.linked_outside(path):  # found by name, not listed with ``admit``
        return
    known = said_unread(path, ctx)
    if known is not None:  # found locked (or broken) this scan already: not waited for again
        if unread is not None:
            unread.append(known)
        return
    try:
        with readonly(path) as conn:
            if not has_table(conn, "blobs"):
                ctx.warn(path, "Agent CLI store has no blobs table; its messages are not read")
                return
            rows = conn.execute("SELECT data FROM blobs ORDER BY rowid LIMIT ?", (MAX_ROWS,))
            for (data,) in rows:
                message = decode_message(data)
                if message is not None:
                    yield from message_events(message)
    except (DatabaseUnavailable, sqlite3.DatabaseError) as exc:
        why = unavailable_reason(exc, path)
        not_read(path, why, ctx)
        if unread is not None:
            unread.append(why)
