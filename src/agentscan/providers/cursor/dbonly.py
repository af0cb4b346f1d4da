"""The chats only Cursor's state DB holds, as the DB's warning says them when it cannot be read.

An IDE chat with no transcript (and none of a workspace DB's) is a composer of the global
``state.vscdb`` alone.  While that DB is locked (Cursor writing) or corrupt, discovery cannot
read its composers: such chats are listed from the composer links the index keeps with the
DB's stamp (``keptfamily``, ``children``), as the last run that read the DB as it is now found
them, and the warning says so.  With none kept at that stamp (the DB changed since), they are
not listed, no row made up for them: the warning says they are left out (``left_out_words``),
with how many were listed from the DB on the last run that read it (``remember_db_only``: one
fact by the DB's path, read only when the DB could not be).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from agentscan.context import ScanContext
from agentscan.toolkit.words import plural

if TYPE_CHECKING:
    from pathlib import Path

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


def left_out_words(ctx: ScanContext, path: Path) -> str:
    """``, those only it holds left out (2 were listed from it on the last run that read
    it)``: what the DB's warning says of the chats this run cannot list, its composers unread.
    While the index keeps its composer links from a run that read it at the stamp it has now,
    those chats are listed as that run found them (``children``), and the warning says so."""
    from agentscan.providers.cursor.keptstamp import family_at_stamp

    if not os.path.exists(path):
        return ""  # (no DB: no chat is in it)
    if family_at_stamp(ctx, path):
        return ", those only it holds as its last read found them"
    last = ctx.remembered(_FACTS).last(str(path))
    known = (f" ({plural(last, 'was', 'were')} listed from it on the last run that read it)"
             if isinstance(last, int) and not isinstance(last, bool) and last > 0 else "")
    return f", those only it holds left out{known}"
