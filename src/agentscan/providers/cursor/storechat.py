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
from pathlib import Path
from typing import Iterator

from agentscan.context import ScanContext
from agentscan.providers.cursor.events import Event
from agentscan.providers.cursor.messages import decode_message, message_events
from agentscan.toolkit.sqlite_ro import DatabaseUnavailable, has_table, readonly, unavailable_reason

#: a store is read at most this many message rows deep (memory and time stay bounded)
MAX_ROWS = 200_000


def store_events(path: Path, ctx: ScanContext) -> Iterator[Event]:
    if ctx.linked_outside(path):  # found by name, not listed with ``admit``
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
        ctx.warn(path, f"Agent CLI store not read: {unavailable_reason(exc, path)}", passing=True)
