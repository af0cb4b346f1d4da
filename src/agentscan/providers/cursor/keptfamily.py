"""What ``composerData`` says of which run is whose, kept in the index with the state DB's
stamp, for ``children.family`` while the DB cannot be read (docs/providers/cursor.md).

A parent composer lists its delegated runs (``subComposerIds``, ``subagentComposerIds``) and a
child names its parent (``subagentInfo.parentComposerId``); whose runs are whose decides each
session's ``children``, which are part of its fingerprint, and which transcripts are sessions
at all.  While the DB was locked those links read as none: a parent's fingerprint never equalled
the one kept from the run that read the DB, so an unchanged chat lost its kept figures, and a
run with a top-level transcript of its own was listed as a session beside its parent.  The DB's
own stat is in the fingerprint, so the links it held at that very stat are the ones read last at
it: those are taken (as ``keptheaders`` takes the headers).  A DB changed since has another
stat: nothing is taken, and nothing kept matches anyway.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Mapping, NamedTuple

import orjson

from agentscan.providers.cursor.keptstamp import FAMILY_KIND as KIND
from agentscan.providers.cursor.keptstamp import FAMILY_VERSION as VERSION
from agentscan.sealing import seal, unseal_json
from agentscan.timeutil import from_epoch, newest

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.providers.cursor.composer import ComposerInfo


class Links(NamedTuple):
    """One composer's part in ``children.family``: the parent it names, the runs it lists,
    whether it holds a conversation (it may be a session of its own), and its name: a chat only
    the DB holds, listed from these while the DB cannot be read, had no title with no row kept
    of it (only its sums: ``tokens`` ran last), its name being the DB's alone.  ``updated``: the
    newest time the composer itself records (``lastUpdatedAt``, a legacy inline conversation's
    last time: ``ComposerInfo.last_inline``), in epoch seconds: such a chat's row had only its kept calls' quarter
    hour for its update time, a time nothing recorded."""

    parent_id: str | None
    sub_ids: tuple[str, ...]
    talking: bool
    name: str | None = None
    updated: float | None = None


def family_links(ctx: ScanContext, composers: Mapping[str, ComposerInfo]) -> dict[str, Links]:
    """Composer id -> its ``Links``: of ``composers`` as read now, or, when the DB could not be
    read, as last read with the DB at the stamp it has now (else ``{}``).  Only the composers that
    weigh in: those with a conversation or a link, and those a child names (a parent must be
    there to be chosen); an empty composer nothing names changes no one's family."""
    from agentscan.providers.cursor.keptstamp import family_key, path_stamp
    from agentscan.providers.cursor.statedb import state_db

    db = state_db(ctx)
    cache = ctx.file_cache
    if db.unread() is None:
        named = {info.parent_id for info in composers.values() if info.parent_id}
        found = {composer_id: Links(info.parent_id, info.sub_ids, info.has_conversation, info.name,
                                    _epoch(newest(info.updated, info.last_inline)))
                 for composer_id, info in composers.items()
                 if info.has_conversation or info.parent_id or info.sub_ids or composer_id in named}
        # Kept only when read whole: not from a DB opened without its -wal (``caveat``).
        if cache is not None and found and db.caveat() is None:
            stamp, key = path_stamp(db.path, ctx), family_key(str(db.path))
            stored = cache.get_file(key, KIND)
            if stored is None or stored[2] != VERSION or stored[3] != stamp:
                cache.put_file(key, KIND, 0, 0, VERSION, stamp, 0,
                               seal(orjson.dumps({c: [links.parent_id, list(links.sub_ids), links.talking, links.name,
                                                      links.updated]
                                                  for c, links in found.items()})))
        return found
    stored = cache.get_file(family_key(str(db.path)), KIND) if cache is not None else None
    if stored is None or stored[2] != VERSION or stored[3] != path_stamp(db.path, ctx):
        return {}
    document = unseal_json(stored[5])
    kept: dict[str, Links] = {}
    for composer_id, value in (document.items() if isinstance(document, dict) else ()):
        if isinstance(value, list) and len(value) in (4, 5) and isinstance(value[1], list):
            parent = value[0] if isinstance(value[0], str) else None
            name = value[3] if isinstance(value[3], str) else None
            when = value[4] if len(value) == 5 else None  # (kept before pass 58: no time)
            updated = when if type(when) in (int, float) and from_epoch(when) is not None else None
            kept[str(composer_id)] = Links(parent, tuple(s for s in value[1] if isinstance(s, str)), value[2] is True,
                                           name, updated)
    return kept


def _epoch(when: datetime | None) -> float | None:
    return None if when is None else when.timestamp()
