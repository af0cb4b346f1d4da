"""When a composer last had a bubble, for ``list``'s sort key (``row.recency``).

A composer's ``lastUpdatedAt`` may stay at its creation while bubbles are added (seen on
current builds): the row's ``updated_at`` takes its bubbles' times (``records.bubble_moment``: read for the row
anyway), so the bound ``list`` reads sessions by must too, or ``list --since`` would stop
before such a session.  The live conversation's last bubble ids are in ``composerData``
(read for every composer already); the last one's value is read by exact key, once per
composer and scan, when that composer's ref is made, and only its time is kept; one with no
time (a prompt not answered yet, an old build's bubble with no ``timingInfo``) is passed for
the one before it, at most ``composer.TAIL_BUBBLES`` reads.  A discovery the index remembers
(nothing changed) asks nothing; one after a write to ``state.vscdb`` reads one bubble per
session (more only where the last ones have no time); ``show`` of a session with a transcript (``locate``) reads its own
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
    if not info.tail_bubbles:
        return info.last_inline
    # The last bubble with a time, of the last few (``TAIL_BUBBLES``): a prompt not answered
    # yet, or an old build's bubble with no ``timingInfo``, says none, and the composer's
    # ``lastUpdatedAt`` may be far older than the reply before it (which the row's time takes).
    for bubble_id in info.tail_bubbles:
        if valid_composer_id(bubble_id) is None:
            continue
        for _key, value in db.values([f"bubbleId:{composer_id}:{bubble_id}"]):
            when = _stored_moment(value)
            if when is not None:
                return when
        if db.unread() is not None:
            return None
    return None


def _stored_moment(value: object) -> datetime | None:
    """A stored bubble value's time (``records.bubble_moment``: its ``createdAt``, else its
    ``timingInfo``), silently ``None`` for anything unreadable (the row's build reads the
    bubble again, and says what is wrong with it)."""
    if not isinstance(value, (bytes, str)) or too_many_values(value):
        return None
    try:
        data = laxjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    return bubble_moment(data) if isinstance(data, dict) else None
