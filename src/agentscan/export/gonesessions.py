"""The index's rows of sessions this export did not list (``sqlite.write_sqlite``): marked
gone once their files left (``mark_gone``; those of providers not read, or whose files are
elsewhere, counted instead), and deleted when their file is now another session's
(``drop_merged``)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Collection, Iterable, Mapping, Sequence

from agentscan.export.children import delete_rows, surely_gone
from agentscan.export.unread import ELSEWHERE, UNLISTED, LeftAsTheyWere

if TYPE_CHECKING:
    from sqlite_utils import Database


def under_any(path: str, roots: Iterable[str]) -> bool:
    from agentscan.toolkit.paths import is_within

    return any(is_within(path, root) for root in roots)


def mark_gone(db: Database, present: set[str], scope: Collection[str] | None, now: str, unseen: Collection[str],
              roots: Mapping[str, Sequence[str]] | None = None,
              incomplete: Collection[str] = ()) -> tuple[int, dict[LeftAsTheyWere, int]]:
    """Sessions of the exported providers (``scope``; ``None``: all) whose files disappeared get
    ``gone_at`` once; those of ``unseen`` providers are counted instead, by provider, and so
    are those of ``incomplete`` ones (``UNLISTED``) and those whose files are elsewhere (``ELSEWHERE``)."""
    count = 0
    kept: dict[LeftAsTheyWere, int] = {}
    for (session_id, provider, path) in db.execute("SELECT id, provider, path FROM sessions WHERE gone_at IS NULL").fetchall():
        if provider in unseen and session_id not in present:
            left = LeftAsTheyWere(provider)
            kept[left] = kept.get(left, 0) + 1
            continue
        if session_id in present or (scope is not None and provider not in scope):
            continue
        if provider in incomplete and not surely_gone(path):
            # Its discovery could not list a folder (or read a file) this time: the session may
            # be there, unseen, as the index's pruning knows (``scan.prune``).  One whose file
            # the system says is not there is gone all the same: a folder that stays unreadable
            # must not keep every deleted session of its provider from being told gone.
            left = LeftAsTheyWere(provider, UNLISTED)
            kept[left] = kept.get(left, 0) + 1
            continue
        if path and roots is not None and not under_any(path, roots.get(provider, ())) and os.path.lexists(path):
            # Its file is still there, outside this run's roots: a cron job without the
            # shell's CLAUDE_CONFIG_DIR, say.  Not gone; counted, for a warning.
            left = LeftAsTheyWere(provider, ELSEWHERE)
            kept[left] = kept.get(left, 0) + 1
            continue
        db.execute("UPDATE sessions SET gone_at = ? WHERE id = ?", (now, session_id))
        count += 1
    return count, kept


def drop_merged(db: Database, present: set[str], scope: Collection[str] | None, unseen: Collection[str],
                owners: Mapping[str, str], written: set[str]) -> tuple[int, set[str]]:
    """Delete the rows (session, token_days, subagents) of sessions that are no longer sessions
    of their own: their file is now one of a present session's (``owners``: file to session id).
    An earlier agentscan listed a paginated Codex thread's second rollout as a session; this
    one reads it as part of the thread, whose days hold its calls: kept, or marked gone, its
    days would be counted twice by every sum over ``token_days``.  Returns (how many were
    deleted, the ids left as they are because their owner was not written this run: a
    ``--since`` leaving it out, whose old row lacks the calls until a run writes it)."""
    if not owners:
        return 0, set()
    merged: list[str] = []
    waiting: set[str] = set()
    for (session_id, provider, path) in db.execute("SELECT id, provider, path FROM sessions").fetchall():
        owner = owners.get(path) if path else None
        if owner is None or session_id in present or provider in unseen or (scope is not None and provider not in scope):
            continue
        if not owner.startswith(f"{provider}:"):  # another agent's file: not this session's successor
            continue
        if owner in written:
            merged.append(session_id)
        else:
            waiting.add(session_id)
    delete_rows(db, merged, sessions_too=True)
    return len(merged), waiting
