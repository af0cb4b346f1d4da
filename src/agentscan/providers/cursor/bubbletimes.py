"""When each composer last had a bubble, for ``list``'s sort key (``row.recency``).

A composer's ``lastUpdatedAt`` may stay at its creation while bubbles are added (seen on
current builds): the row's ``updated_at`` takes its bubbles' ``createdAt`` (read for the row
anyway), so the bound ``list`` reads sessions by must too, or ``list --since`` would stop
before such a session.  The live conversation's last bubble id is in ``composerData``
(read for every composer already); its value is read by exact key, once per scan, and only ``createdAt`` is kept.  A discovery the index remembers (nothing
changed) asks nothing; one after a write to ``state.vscdb`` reads one bubble per composer.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import orjson

from agentscan.providers.cursor.records import valid_composer_id
from agentscan.timeutil import parse_iso
from agentscan.toolkit import laxjson
from agentscan.toolkit.jsondoc import too_many_values

if TYPE_CHECKING:
    from agentscan.providers.cursor.statedb import StateDb

_MEMO = "cursor.last_bubble_times"


def last_bubble_times(db: StateDb) -> dict[str, datetime]:
    """Composer id -> its last live bubble's ``createdAt`` (a legacy inline one's from the
    composer itself); memoised for the scan."""
    kept = db.memo.get(_MEMO)
    if isinstance(kept, dict):
        return kept
    found: dict[str, datetime] = {}
    keys: dict[str, str] = {}
    for composer_id, info in db.composers().items():
        if info.last_bubble is not None and valid_composer_id(info.last_bubble):
            keys[f"bubbleId:{composer_id}:{info.last_bubble}"] = composer_id
        elif info.last_inline is not None:
            found[composer_id] = info.last_inline
    for key, value in db.values(list(keys)):
        when = _created_at(value)
        if when is not None and key in keys:
            found[keys[key]] = when
    db.memo[_MEMO] = found
    return found


def _created_at(value: object) -> datetime | None:
    """A bubble value's ``createdAt``, silently ``None`` for anything unreadable (the row's
    build reads the bubble again, and says what is wrong with it)."""
    if not isinstance(value, (bytes, str)) or too_many_values(value):
        return None
    try:
        data = laxjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    return parse_iso(data.get("createdAt")) if isinstance(data, dict) else None
