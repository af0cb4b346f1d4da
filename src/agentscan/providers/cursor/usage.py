"""Bubble tokens of a Cursor session, its sub-composers' included.

Each run is in one session only (``children``); each call's dedupe key is still its
composer and bubble id (docs/providers/cursor.md).
"""

from __future__ import annotations

from typing import NamedTuple

from agentscan.model import TokenUsage, UsageEntry, sum_usage
from agentscan.providers.cursor.composer import BubbleStats
from agentscan.providers.cursor.statedb import StateDb


class SessionUsage(NamedTuple):
    """Bubble tokens of a session: its own composer and each child apart (a named tuple:
    see ``cli.term.Terminal``)."""

    own: BubbleStats
    children: dict[str, BubbleStats]

    def tokens(self) -> TokenUsage | None:
        return sum_usage([self.own.tokens(), *(s.tokens() for s in self.children.values())])

    def entries(self, native_id: str, db: StateDb, session_model: str | None) -> list[UsageEntry]:
        found = []
        for child, stats in [(None, self.own), *self.children.items()]:
            composer_id = child or native_id
            info = db.composers().get(composer_id)
            fallback_time = (info.updated or info.created) if info else None
            fallback_model = (info.model if info else None) or session_model
            for item in stats.usage:
                found.append(UsageEntry(
                    session=native_id,
                    tokens=item.tokens,
                    timestamp=item.timestamp or fallback_time,
                    model=item.model or fallback_model,
                    subagent=child,
                    # Unique: a run is in one session only (``children``).
                    dedupe_key=f"{composer_id}:{item.bubble_id}",
                ))
        return found


def session_usage(native_id: str, children: tuple[str, ...], db: StateDb) -> SessionUsage:
    return SessionUsage(db.bubble_stats(native_id), {child: db.bubble_stats(child) for child in children})
