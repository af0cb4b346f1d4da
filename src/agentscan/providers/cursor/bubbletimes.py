"""When a composer last had a bubble, for ``list``'s sort key (``row.recency``).

A composer's ``lastUpdatedAt`` may stay at its creation while bubbles are added (seen on
current builds): the row's ``updated_at`` takes its bubbles' times (``records.bubble_moment``: read for the row
anyway), so the bound ``list`` reads sessions by must too, or ``list --since`` would stop
before such a session.  The live conversation's last bubble id is in ``composerData``
(read for every composer already); its value is read by exact key, once per composer and
scan, when that composer's ref is made, and only its time is kept.  A discovery the
index remembers (nothing changed) asks nothing; one after a write to ``state.vscdb`` reads
one bubble per session; ``show`` of a session with a transcript (``locate``) reads its own
alone, not every composer's.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import orjson

from agentscan.providers.cursor.records import bubble_moment, valid_composer_id
from agentscan.toolkit import laxjson
from agentscan.toolkit.jsondoc import too_many_values

if TYPE_CHECKING:
    from agentscan.providers.cursor.statedb import StateDb

_MEMO = "cursor.last_bubble_times"


def last_bubble_time(db: StateDb, composer_id: str) -> datetime | None:
    """The time (``bubble_moment``) of the composer's last live bubble (a legacy inline one's from the
    composer itself); memoised for the scan, composer by composer."""
    kept = db.memo.get(_MEMO)
    if not isinstance(kept, dict):
        kept = db.memo[_MEMO] = {}
    if composer_id not in kept:
        kept[composer_id] = _read(db, composer_id)
    return kept[composer_id]


def _read(db: StateDb, composer_id: str) -> datetime | None:
    info = db.composers().get(composer_id)
    if info is None:
        return None
    if info.last_bubble is not None and valid_composer_id(info.last_bubble):
        found = None
        for _key, value in db.values([f"bubbleId:{composer_id}:{info.last_bubble}"]):
            found = _created_at(value)
        return found
    return info.last_inline


def _created_at(value: object) -> datetime | None:
    """A bubble value's time (``bubble_moment``), silently ``None`` for anything unreadable (the row's
    build reads the bubble again, and says what is wrong with it)."""
    if not isinstance(value, (bytes, str)) or too_many_values(value):
        return None
    try:
        data = laxjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    return bubble_moment(data) if isinstance(data, dict) else None
