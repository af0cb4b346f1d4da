"""Read-only access to Cursor's global ``state.vscdb`` (docs/providers/cursor.md).

The DB is large (100 MB+), live, and in WAL mode.  So:

* it is opened once per scan, lazily, through ``agentscan.toolkit.sqlite_ro`` (a
  ``mode=ro`` URI, or ``immutable=1`` when no writer left ``-wal``/``-shm``),
  and every answer is memoised in the scan context;
* ``cursorDiskKV`` is only ever read by exact key or by a bounded key range
  (``key >= 'p:' AND key < 'p;'``, ``;`` being the byte after ``:``), which
  the ``UNIQUE`` index on ``key`` serves without touching other rows.  Never
  ``LIKE`` (no index use) and never a whole-table pass;
* ``ItemTable`` is read for one exact key only; it also holds auth tokens;
* any SQLite error becomes one warning and the scan goes on without the DB.
"""

from __future__ import annotations

import os
import sqlite3
import weakref
from typing import Any, Iterator, cast

import orjson

from agentscan.toolkit import laxjson

from agentscan.bounds import MAX_JSON_VALUES
from agentscan.context import ScanContext, legible
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
from agentscan.toolkit.roots import Root
from agentscan.errors import DatabaseUnavailable
from agentscan.toolkit.jsondoc import too_many_values
from agentscan.toolkit.sqlite_ro import connect_readonly, has_table, table_columns

_MEMO_KEY = "cursor.state_db"
_COMPOSER = "composerData:"
_BUBBLE = "bubbleId:"
_HEADERS_ITEM = "composer.composerHeaders"


def key_range(prefix: str) -> tuple[str, str]:
    """``[prefix, prefix-with-its-last-char-incremented)``: every key starting with ``prefix``."""
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


class _Handle:
    """Owns the connection; closed with the scan context, never holding it alive."""

    def __init__(self) -> None:
        self.conn: sqlite3.Connection | None = None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class StateDb:
    def __init__(self, root: Root, ctx: ScanContext) -> None:
        self.root = root
        self.path = root.path
        self._ctx = ctx
        self._handle = _Handle()
        self._failed = False
        self._failure: str | None = None
        #: the warning of a read that failed *this time* (``_fail``), said again by every read after it
        self._unread: str | None = None
        self._opened = False
        self._headers: dict[str, HeaderInfo] | None = None
        self._composers: dict[str, ComposerInfo] | None = None
        self._stats: dict[str, BubbleStats] = {}
        self._orders: dict[str, tuple[str, ...]] = {}
        self._kv: bool | None = None
        #: answers other modules derive from this DB, kept for the scan (agentkv.py)
        self.memo: dict[str, object] = {}
        ctx.on_close(self._handle.close)
        weakref.finalize(ctx, self._handle.close)  # for callers that never close the scan

    # -- connection ------------------------------------------------------

    def _conn(self) -> sqlite3.Connection | None:
        if self._failed:
            self._remind()
            return None
        if not self._opened:
            self._opened = True
            if not self.root.explicit and not os.path.exists(self.path):
                self._failed = True  # no IDE installed: normal, not a warning
                return None
            if self._ctx.undecodable(self.path):  # its path could not be reported (that warns)
                self._failed, self._failure = True, "its name is not valid UTF-8"
                return None
            try:
                self._handle.conn = connect_readonly(self.path)
            except DatabaseUnavailable as exc:
                self._fail(str(exc))
        return self._handle.conn

    def problem(self) -> str | None:
        """Why the DB cannot be used (doctor's STATUS), ``None`` when it can."""
        if self._conn() is not None and not self._has_kv():
            return "no cursorDiskKV table (not a Cursor state DB?)"
        return self._failure

    def status(self) -> str:
        """One line for doctor: whether the state DB is used, and why not."""
        path = legible(str(self.path))
        if self._conn() is not None:
            return f"state DB: {path} (read-only; {'in WAL mode, ' if _wal_live(self.path) else ''}used)"
        if self._failure:
            return f"state DB: {path} not used: {self._failure}"
        return f"state DB: {path} not found (no Cursor IDE data); agent transcripts only"

    def _fail(self, message: str) -> None:
        reason = _reason(message, self.path)
        self._failure = reason
        self._failed = True
        self._handle.close()
        hint = " (try again in a moment, or close Cursor)" if _LOCKED in reason else ""
        self._unread = f"Cursor state DB not used ({reason}); transcripts are listed without it{hint}"
        self._remind()

    def _remind(self) -> None:
        """Say, as ``passing``, that the DB could not be read this time, to every read after
        the one that failed: each row (and token sum) built meanwhile lacks what the DB holds,
        and its capture must see that, or the row would be kept and served once the lock is
        gone (the DB unchanged, its fingerprint too).  The sink prints it once."""
        if self._unread is not None:
            self._ctx.warn(self.path, self._unread, passing=True)

    def close(self) -> None:
        # Answers stay memoised; a later question reopens the DB.
        self._handle.close()
        if not self._failed:
            self._opened = False

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        conn = self._conn()
        if conn is None:
            return
        try:
            yield from conn.execute(sql, params)
        except sqlite3.DatabaseError as exc:  # corrupt page, SQLITE_BUSY past the timeout, …
            self._fail(str(exc))

    def _json(self, value: object, where: str) -> dict[str, Any] | None:
        if value is None:  # Cursor leaves NULL values behind; they mean nothing
            return None
        if isinstance(value, (bytes, str)) and too_many_values(value):
            # One parse of a hostile value of tiny items would take ~72 bytes per byte.
            self._ctx.warn(self.path, f"{where}: more than {MAX_JSON_VALUES:,} JSON values; skipped")
            return None
        try:
            data = laxjson.loads(value) if isinstance(value, (bytes, str)) else None
        except orjson.JSONDecodeError:
            self._ctx.warn(self.path, f"{where}: invalid JSON skipped")
            return None
        return data if isinstance(data, dict) else None

    def _has_kv(self) -> bool:
        self._remind()
        if self._kv is None:
            conn = self._conn()
            try:
                self._kv = conn is not None and has_table(conn, "cursorDiskKV")
            except sqlite3.DatabaseError as exc:
                self._fail(str(exc))
                self._kv = False
            if conn is not None and not self._kv and not self._failed:
                self._ctx.warn(self.path, "no cursorDiskKV table (not a Cursor state DB?); composers not read")
        return self._kv and not self._failed

    # -- composers -------------------------------------------------------

    def headers(self) -> dict[str, HeaderInfo]:
        """``composerHeaders`` (a table in some builds, an ItemTable key in others)."""
        self._remind()
        if self._headers is None:
            self._headers = {}
            conn = self._conn()
            if conn is not None:
                try:
                    columns = set(table_columns(conn, "composerHeaders"))
                except DatabaseUnavailable as exc:
                    self._fail(str(exc))
                    columns = set()
                if "composerId" in columns:
                    self._headers = self._header_table(columns)
                else:
                    self._headers = self._header_item()
        return self._headers

    def _header_table(self, columns: set[str]) -> dict[str, HeaderInfo]:
        wanted = [c for c in ("composerId", "createdAt", "lastUpdatedAt", "recency", "workspaceId") if c in columns]
        found = {}
        for row in self._rows(f"SELECT {', '.join(wanted)} FROM composerHeaders"):
            composer_id = valid_composer_id(row[0])
            if composer_id:
                found[composer_id] = header_from(cast(RawHeader, dict(zip(wanted, row))))
        return found

    def _header_item(self) -> dict[str, HeaderInfo]:
        found: dict[str, HeaderInfo] = {}
        conn = self._conn()
        try:
            if conn is None or not has_table(conn, "ItemTable"):
                return found
        except sqlite3.DatabaseError as exc:
            self._fail(str(exc))
            return found
        for (value,) in self._rows("SELECT value FROM ItemTable WHERE key = ?", (_HEADERS_ITEM,)):
            for entry in as_list(as_dict(self._json(value, _HEADERS_ITEM)).get("allComposers")):
                composer_id = valid_composer_id(as_dict(entry).get("composerId"))
                if composer_id:
                    found[composer_id] = header_from(entry)
        return found

    def composers(self) -> dict[str, ComposerInfo]:
        """Every ``composerData:<id>`` row, by one bounded range scan."""
        self._remind()
        if self._composers is None:
            self._composers = {}
            if self._has_kv():
                low, high = key_range(_COMPOSER)
                for key, value in self._rows("SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?", (low, high)):
                    composer_id = valid_composer_id(key[len(_COMPOSER):]) if isinstance(key, str) else None
                    raw = self._json(value, str(key)) if composer_id else None
                    if composer_id and raw is not None:
                        self._composers[composer_id] = composer_from(composer_id, cast(RawComposerData, raw))
        return self._composers

    def values(self, keys: list[str]) -> Iterator[tuple[str, object]]:
        """``(key, value)`` of the ``cursorDiskKV`` rows of ``keys`` that exist, each by exact
        key (``bubbletimes``)."""
        if not self._has_kv():
            return
        for key in keys:
            for (value,) in self._rows("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)):
                yield key, value
            if self._failed:
                return

    @property
    def ctx(self) -> ScanContext:
        return self._ctx

    def composer_bytes(self, composer_id: str) -> object:
        """One composer's value as stored (``None``: no such row)."""
        if not self._has_kv():
            return None
        for (value,) in self._rows("SELECT value FROM cursorDiskKV WHERE key = ?", (_COMPOSER + composer_id,)):
            return value
        return None

    def composer_raw(self, composer_id: str) -> dict[str, Any] | None:
        """One composer's whole value (legacy inline ``conversation``); not memoised."""
        value = self.composer_bytes(composer_id)
        return self._json(value, _COMPOSER + composer_id) if value is not None else None

    def conversation_order(self, composer_id: str) -> tuple[str, ...]:
        """The live conversation's bubble ids (memoised; read for shown sessions only)."""
        self._remind()
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
        if valid_composer_id(composer_id) is None or not self._has_kv():
            return
        low, high = key_range(f"{_BUBBLE}{composer_id}:")
        for key, value in self._rows("SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?", (low, high)):
            if digest is not None:
                add_row(digest, key, value)
            raw = self._json(value, str(key))
            if raw is not None:
                yield str(key)[len(low):], raw

    def bubble(self, composer_id: str, bubble_id: str) -> dict[str, Any] | None:
        key = f"{_BUBBLE}{composer_id}:{bubble_id}"
        for (value,) in self._rows("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)):
            return self._json(value, key)
        return None

    @property
    def failed(self) -> bool:
        """Whether a read of the DB failed (or it could not be opened) in this scan."""
        return self._failed

    def iter_raw(self, prefix: str) -> Iterator[tuple[str, object]]:
        """``(key, value)`` of every ``cursorDiskKV`` key under ``prefix``, undecoded, in
        key order, as ``iter_bubbles`` reads them (``keptstats``: digests of the bytes)."""
        if not self._has_kv():
            return
        conn = self._conn()
        if conn is None:
            return
        low, high = key_range(prefix)
        try:
            cursor = conn.execute("SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?", (low, high))
            # A batch a step: a guarded step per row cost more than the rows' hashing.
            while batch := cursor.fetchmany(512):
                yield from batch
        except sqlite3.DatabaseError as exc:
            self._fail(str(exc))

    def iter_prefix(self, prefix: str, *, limit: int) -> Iterator[tuple[str, object]]:
        """``(key, value)`` of every ``cursorDiskKV`` key under ``prefix``, in
        the order they were written (rowid), at most ``limit`` rows."""
        if not self._has_kv():
            return
        low, high = key_range(prefix)
        sql = "SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY rowid LIMIT ?"
        yield from self._rows(sql, (low, high, limit))

    def bubble_stats(self, composer_id: str) -> BubbleStats:
        """Tokens and counts of one composer (memoised: rows, show and tokens share it;
        kept in the index while its rows are the same: ``keptstats``)."""
        self._remind()
        stats = self._stats.get(composer_id)
        if stats is None:
            from agentscan.providers.cursor.keptstats import kept_stats

            stats = self._stats[composer_id] = kept_stats(self, composer_id)
        return stats

    def build_stats(self, composer_id: str, digest: Any = None) -> BubbleStats:
        """One composer's stats from its value and bubbles, each row read fed to ``digest``."""
        stats = BubbleStats()
        value = self.composer_bytes(composer_id)
        if digest is not None:
            add_composer(digest, value)
        # From the bytes hashed, not the composers' scan (read earlier: Cursor may have written
        # since): the order of the live conversation, and a legacy build's inline bubbles.
        raw = as_dict(self._json(value, _COMPOSER + composer_id)) if value is not None else {}
        live = set(conversation_order(cast(RawComposerData, raw)))
        for bubble_id, bubble in self.iter_bubbles(composer_id, digest):
            stats.add(bubble_id, cast(RawBubble, bubble), live=not live or bubble_id in live)
        if stats.bubbles == 0:
            for index, inline in enumerate(as_list(raw.get("conversation"))):
                if isinstance(inline, dict):
                    stats.add(str(inline.get("bubbleId") or f"#{index}"), cast(RawBubble, inline), live=True)
        return stats


def state_db(ctx: ScanContext) -> StateDb:
    """The scan's one ``StateDb`` (opened on first use, closed with the context)."""
    db = ctx.memo.get(_MEMO_KEY)
    if db is None:
        db = ctx.memo[_MEMO_KEY] = StateDb(state_db_root(ctx), ctx)
    return db


def unread_state_db(ctx: ScanContext) -> list[tuple[str, str]]:
    """``[(path, why)]`` when this scan tried the state DB and could not read it (locked,
    corrupt), else ``[]``; the DB is not opened to answer."""
    db = ctx.memo.get(_MEMO_KEY)
    if db is None or db._failure is None:
        return []
    hint = "; try again in a moment, or close Cursor" if _LOCKED in db._failure else ""
    return [(legible(str(db.path)), f"Cursor state DB not used ({db._failure}){hint}")]


def close_state_db(ctx: ScanContext) -> None:
    """Close the scan's connection now (tests, benchmarks, long-lived scanners)."""
    db = ctx.memo.get(_MEMO_KEY)
    if db is not None:
        db.close()


#: how SQLite says another connection holds the lock past the busy timeout
_LOCKED = "database is locked"


def _reason(message: str, path: os.PathLike[str]) -> str:
    """``message`` without the DB's path (the warning names it already), a lock said
    with who holds it."""
    reason = message.removeprefix(f"{path}: ")
    if "locked" in reason or "busy" in reason:  # SQLITE_BUSY, SQLITE_LOCKED
        return f"{_LOCKED} by Cursor or another program"
    return reason


def _wal_live(path) -> bool:
    return os.path.exists(path.with_name(path.name + "-wal"))
