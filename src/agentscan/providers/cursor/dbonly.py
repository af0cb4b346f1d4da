"""The chats only Cursor's state DB holds, said when this run could not list them.

An IDE chat with no transcript (and none of a workspace DB's) is a composer of the global
``state.vscdb`` alone.  While that DB is locked (Cursor writing) or corrupt, discovery cannot
read its composers, so such chats are not listed: no row is made up for them.  The DB's
warning said only that chats were "listed without it", and a user saw sessions vanish from
``list`` with nothing to say so.  Its warning now says they are left out (``left_out_words``),
with how many were listed from the DB on the last run that read it (``remember_db_only``: one
fact by the DB's path, read only when the DB could not be).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from agentscan.context import ScanContext
from agentscan.toolkit.words import plural

if TYPE_CHECKING:
    from agentscan.providers.cursor.statedb import StateDb

#: the index's facts: the DB's path -> how many chats only it held when last read whole
_FACTS = "cursor.db-only/1"


def remember_db_only(ctx: ScanContext, db: StateDb, listed: int) -> None:
    """Remember ``listed`` (the chats discovery listed from the DB's composers alone) when
    this run read every composer of ``db`` (``statedb.state_db``: handed in, as that module
    imports this one, through its reader)."""
    if db.failed or not db.composers_whole:
        return
    path = str(db.path)
    facts = ctx.remembered(_FACTS)
    if facts.last(path) == listed:
        return  # (written only when it changes)
    try:
        facts.put(path, os.stat(path), listed)
    except OSError:
        pass


def left_out_words(ctx: ScanContext, path: os.PathLike[str] | str) -> str:
    """``, those only it holds left out (2 were listed from it on the last run that read
    it)``: what the DB's warning says of the chats this run cannot list, its composers unread."""
    if not os.path.exists(path):
        return ""  # (no DB: no chat is in it)
    last = ctx.remembered(_FACTS).last(str(path))
    known = (f" ({plural(last, 'was', 'were')} listed from it on the last run that read it)"
             if isinstance(last, int) and not isinstance(last, bool) and last > 0 else "")
    return f", those only it holds left out{known}"
