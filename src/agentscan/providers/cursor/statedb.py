"""Cursor's composers and bubbles as ``state.vscdb`` holds them (docs/providers/cursor.md).

``StateDb`` says what the rows mean: composer headers, each composer's value and live
conversation, its bubbles and their stats, every answer memoised for the scan.  How the
rows are read (once-opened, read-only, bounded key ranges, any SQLite error one warning)
is ``statedb_reader``'s.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Iterator, cast

from agentscan.context import ScanContext
from agentscan.providers.cursor.bubblenotes import ComposerTally
from agentscan.providers.cursor.composer import (
    BubbleStats,
    ComposerInfo,
    HeaderInfo,
    composer_from,
    conversation_order,
    header_from,
)
from agentscan.providers.cursor.keptstats import add_composer, add_row
from agentscan.providers.cursor.roots import state_db_root
from agentscan.providers.cursor.records import (
    RawBubble,
    RawComposerData,
    RawHeader,
    as_dict,
    as_list,
    valid_composer_id,
)
from agentscan.providers.cursor.statedb_reader import StateDbReader, key_range
from agentscan.toolkit.roots import Root
from agentscan.errors import DatabaseUnavailable
from agentscan.toolkit.sqlite_ro import has_table, table_columns

_MEMO_KEY = "cursor.state_db"
_COMPOSER = "composerData:"
_BUBBLE = "bubbleId:"
_HEADERS_ITEM = "composer.composerHeaders"


class StateDb(StateDbReader):
    """What the state DB's rows say of composers and their bubbles, memoised for the scan."""

    def __init__(self, root: Root, ctx: ScanContext) -> None:
        super().__init__(root, ctx)
        self._headers: dict[str, HeaderInfo] | None = None
        self._composers: dict[str, ComposerInfo] | None = None
        self._stats: dict[str, tuple[BubbleStats, list]] = {}  # id -> its stats, the warnings their build said
        self._orders: dict[str, tuple[str, ...]] = {}
        #: answers other modules derive from this DB, kept for the scan (agentkv.py)
        self.memo: dict[str, object] = {}

    # -- composers -------------------------------------------------------

    def headers(self) -> dict[str, HeaderInfo]:
        """``composerHeaders`` (a table in some builds, an ItemTable key in others)."""
        self.say_unread()
        if self._headers is None:
            self._headers = {}
            conn = self.connection()
            if conn is not None:
                try:
                    columns = set(table_columns(conn, "composerHeaders"))
                except DatabaseUnavailable as exc:
                    self.note_failure(exc)
                    columns = set()
                if "composerId" in columns:
                    self._headers = self._header_table(columns)
                else:
                    self._headers = self._header_item()
        return self._headers

    def _header_table(self, columns: set[str]) -> dict[str, HeaderInfo]:
        wanted = [c for c in ("composerId", "createdAt", "lastUpdatedAt", "recency", "workspaceId", "isArchived") if c in columns]
        found = {}
        for row in self.rows(f"SELECT {', '.join(wanted)} FROM composerHeaders"):
            composer_id = valid_composer_id(row[0])
            if composer_id:
                found[composer_id] = header_from(cast(RawHeader, dict(zip(wanted, row))))
        return found

    def _header_item(self) -> dict[str, HeaderInfo]:
        found: dict[str, HeaderInfo] = {}
        conn = self.connection()
        try:
            if conn is None or not has_table(conn, "ItemTable"):
                return found
        except sqlite3.DatabaseError as exc:
            self.note_failure(exc)
            return found
        for (value,) in self.rows("SELECT value FROM ItemTable WHERE key = ?", (_HEADERS_ITEM,)):
            for entry in as_list(as_dict(self.json_of(value, _HEADERS_ITEM)).get("allComposers")):
                composer_id = valid_composer_id(as_dict(entry).get("composerId"))
                if composer_id:
                    found[composer_id] = header_from(entry)
        return found

    def composers(self) -> dict[str, ComposerInfo]:
        """Every ``composerData:<id>`` row, by one bounded range scan."""
        self.say_unread()
        if self._composers is None:
            self._composers = {}
            if self.has_kv():
                low, high = key_range(_COMPOSER)
                for key, value in self.rows("SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?", (low, high)):
                    composer_id = valid_composer_id(key[len(_COMPOSER):]) if isinstance(key, str) else None
                    raw = self.json_of(value, str(key)) if composer_id else None
                    if composer_id and raw is not None:
                        self._composers[composer_id] = composer_from(composer_id, cast(RawComposerData, raw))
            self.composers_whole = not self.failed
        return self._composers

    def composer_bytes(self, composer_id: str) -> object:
        """One composer's value as stored (``None``: no such row)."""
        if not self.has_kv():
            return None
        for (value,) in self.rows("SELECT value FROM cursorDiskKV WHERE key = ?", (_COMPOSER + composer_id,)):
            return value
        return None

    def composer_raw(self, composer_id: str) -> dict[str, Any] | None:
        """One composer's whole value (legacy inline ``conversation``); not memoised."""
        value = self.composer_bytes(composer_id)
        return self.json_of(value, _COMPOSER + composer_id) if value is not None else None

    def conversation_order(self, composer_id: str) -> tuple[str, ...]:
        """The live conversation's bubble ids (memoised; read for shown sessions only)."""
        self.say_unread()
        order = self._orders.get(composer_id)
        if order is None:
            info = self.composers().get(composer_id)
            raw = self.composer_raw(composer_id) if info is not None and info.header_bubbles else None
            order = self._orders[composer_id] = conversation_order(cast(RawComposerData, raw)) if raw else ()
        return order

    # -- bubbles ---------------------------------------------------------

    def iter_bubbles(self, composer_id: str, digest: Any = None) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(bubble id, value)`` of one composer, by a bounded range scan (``digest``: fed
        every row read, as ``keptstats.rows_digest`` takes them)."""
        if valid_composer_id(composer_id) is None or not self.has_kv():
            return
        low, high = key_range(f"{_BUBBLE}{composer_id}:")
        for key, value in self.rows("SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?", (low, high)):
            if digest is not None:
                add_row(digest, key, value)
            raw = self.json_of(value, str(key))
            if raw is not None:
                yield str(key)[len(low):], raw

    def bubble(self, composer_id: str, bubble_id: str) -> dict[str, Any] | None:
        key = f"{_BUBBLE}{composer_id}:{bubble_id}"
        for (value,) in self.rows("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)):
            return self.json_of(value, key)
        return None

    def bubble_stats(self, composer_id: str) -> BubbleStats:
        """Tokens and counts of one composer (memoised: rows, show and tokens share it;
        kept in the index while its rows are the same: ``keptstats``).  The warnings its build
        said (a bad bubble value "counted as 100") are said again at each ask, as ``keptstats``
        says those it keeps: ``list``'s cost pass took the stats its row pass built, so the usage
        sums it kept said nothing, and a warm ``tokens`` dropped the warning a cold one gave."""
        from agentscan.context import say

        self.say_unread()
        memo = self._stats.get(composer_id)
        if memo is not None:
            say(self.ctx, memo[1])
            return memo[0]
        from agentscan.providers.cursor.keptstats import kept_stats

        with self.ctx.held_warnings() as held:
            stats = kept_stats(self, composer_id)
        said = list(held.said)
        say(self.ctx, said)
        self._stats[composer_id] = (stats, said)
        return stats

    def build_stats(self, composer_id: str, digest: Any = None) -> BubbleStats:
        """One composer's stats from its value and bubbles, each row read fed to ``digest``."""
        stats = BubbleStats()
        value = self.composer_bytes(composer_id)
        if digest is not None:
            add_composer(digest, value)
        # From the bytes hashed, not the composers' scan (read earlier: Cursor may have written
        # since): the order of the live conversation, and a legacy build's inline bubbles.
        raw = as_dict(self.json_of(value, _COMPOSER + composer_id)) if value is not None else {}
        live = set(conversation_order(cast(RawComposerData, raw)))
        # A bubble's bad token count or time is told once for the composer (``bubblenotes``).
        with ComposerTally(self.path, self.ctx, composer_id) as tally:
            for bubble_id, bubble in self.iter_bubbles(composer_id, digest):
                tally.at(bubble_id)
                stats.add(bubble_id, cast(RawBubble, bubble), live=not live or bubble_id in live)
            if stats.bubbles == 0:
                for index, inline in enumerate(as_list(raw.get("conversation"))):
                    if isinstance(inline, dict):
                        bubble_id = str(inline.get("bubbleId") or f"#{index}")
                        tally.at(bubble_id)
                        stats.add(bubble_id, cast(RawBubble, inline), live=True)
            tally.abandoned = self.failed  # (a read that failed part way: not the composer's counts)
        if live and stats.bubbles == 0 and not self.failed:
            # Its conversation names bubbles none of which is there (deleted, or the DB damaged):
            # the row's "0 prompts" would read as an empty chat.  Kept with the stats (``keptstats``).
            # Worded kind first (``doctor`` groups warnings by what comes before the first colon).
            self.ctx.warn(self.path, f"conversation missing from the DB: composer {composer_id} lists {len(live):,}"
                                     " bubbles, none of them there; its turns and tokens are not known")
        return stats


def state_db(ctx: ScanContext) -> StateDb:
    """The scan's one ``StateDb`` (opened on first use, closed with the context)."""
    db = ctx.memo.get(_MEMO_KEY)
    if db is None:
        db = ctx.memo[_MEMO_KEY] = StateDb(state_db_root(ctx), ctx)
    return db


def brief_state_db(ctx: ScanContext) -> StateDb:
    """The DB for another provider's question alone (``known_cwds(brief=True)``): the scan's
    own when it has one, else one that does not wait on another program's lock (``brief``),
    not kept as the scan's: a Cursor pass later in the scan waits as it always does."""
    db = ctx.memo.get(_MEMO_KEY)
    if isinstance(db, StateDb):
        return db
    db = StateDb(state_db_root(ctx), ctx)
    db.brief = True
    return db


def unread_state_db(ctx: ScanContext) -> list[tuple[str, str]]:
    """``[(path, why)]`` when this scan tried the state DB and could not read it (locked,
    corrupt), else ``[]``; the DB is not opened to answer."""
    db = ctx.memo.get(_MEMO_KEY)
    unread = db.unread() if db is not None else None
    return [unread] if unread is not None else []


def locked_state_db(ctx: ScanContext) -> tuple[str, str] | None:
    """``(path, why)`` when this scan found the state DB locked by another program (not
    corrupt: a lock passes), else ``None``; the DB is not opened to answer."""
    db = ctx.memo.get(_MEMO_KEY)
    return db.locked() if db is not None else None


def close_state_db(ctx: ScanContext) -> None:
    """Close the scan's connection now (tests, benchmarks, long-lived scanners)."""
    db = ctx.memo.get(_MEMO_KEY)
    if db is not None:
        db.close()
