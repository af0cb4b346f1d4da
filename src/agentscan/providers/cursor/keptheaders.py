"""Which workspace each ``composerHeaders`` row names, kept in the index with the state DB's
stamp, for a Cursor row's fingerprint while the DB cannot be read.

A Cursor 3.0 composer's cwd comes from the ``workspace.json`` its header names
(``workspace.folder_by_id``), so its fingerprint covers that file.  While the DB was locked
the headers read as ``{}``: the file dropped out of the fingerprint, which then never equalled
the one kept from the run that read the DB, and an unchanged chat lost its kept figures
("could not be read", ``tokens_unknown``).  The DB's own stat is in the fingerprint, so the
headers it held at that very stat are the ones read last at it: those are taken.  A DB changed
since has another stat: nothing is taken, and nothing kept matches anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from agentscan.providers.cursor.keptstamp import HEADERS_KIND as KIND
from agentscan.providers.cursor.keptstamp import HEADERS_VERSION as VERSION
from agentscan.providers.cursor.keptstamp import db_key, path_stamp
from agentscan.sealing import seal, unseal_json

if TYPE_CHECKING:
    from agentscan.context import ScanContext

_MEMO_KEY = "cursor.header_workspaces"


def header_workspaces(ctx: ScanContext) -> dict[str, str]:
    """Composer id -> the workspace id its header names: as read now, or, when the DB could not
    be read, as last read with the DB at the stamp it has now (else ``{}``)."""
    found = ctx.memo.get(_MEMO_KEY)
    if isinstance(found, dict):
        return found
    from agentscan.providers.cursor.statedb import state_db

    db = state_db(ctx)
    headers = db.headers()
    cache = ctx.file_cache
    key = db_key(str(db.path))
    if db.unread() is None:
        found = {composer_id: header.workspace_id for composer_id, header in headers.items() if header.workspace_id}
        # Kept only when read whole: not from a DB opened without its -wal (``caveat``).
        if cache is not None and found and db.caveat() is None:
            stamp = path_stamp(db.path, ctx)
            stored = cache.get_file(key, KIND)
            if stored is None or stored[2] != VERSION or stored[3] != stamp:
                cache.put_file(key, KIND, 0, 0, VERSION, stamp, 0, seal(orjson.dumps(found)))
    else:
        stored = cache.get_file(key, KIND) if cache is not None else None
        found = {}
        if stored is not None and stored[2] == VERSION and stored[3] == path_stamp(db.path, ctx):
            document = unseal_json(stored[5])
            if isinstance(document, dict):
                found = {str(k): v for k, v in document.items() if isinstance(v, str)}
    if cache is not None:  # (asked before the index was opened: asked again once it is)
        ctx.memo[_MEMO_KEY] = found
    return found
