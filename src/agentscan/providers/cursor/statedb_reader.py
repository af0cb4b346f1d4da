"""Read-only, fail-soft row access to Cursor's global ``state.vscdb`` (docs/providers/cursor.md).

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

What the rows mean (composers, bubbles, their stats) is ``statedb.StateDb``'s.
"""

from __future__ import annotations

import os
import sqlite3
import weakref
from typing import Any, Iterator

import orjson

from agentscan.toolkit import laxjson, sqlitecodes

from agentscan.bounds import MAX_JSON_VALUES
from agentscan.providers.cursor.dbonly import left_out_words
from agentscan.context import DB_LOCKED, ScanContext, legible
from agentscan.toolkit.roots import Root
from agentscan.errors import DatabaseUnavailable
from agentscan.toolkit.jsondoc import too_many_values
from agentscan.toolkit.sqlite_ro import BRIEF_BUSY_MS  # (its brief reads' wait)
from agentscan.toolkit.sqlite_ro import (
    BUSY_TIMEOUT_MS,
    WAL_UNREAD,
    WAL_UNREAD_STATUS,
    connect_readonly,
    has_table,
    unavailable_reason,
    unread_wal,
    wal_of,
)

#: how the "not used" warning bounds "the tokens it holds not known": ``tokens`` still shows the
#: figures it kept of a session unchanged, DB and files, since the DB's last read (``note_failure``)
KEPT_WORDS = "but for sessions unchanged since its last read"




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


class StateDbReader:
    """The connection, its failure (said once per read after it), and the bounded reads of
    ``cursorDiskKV`` rows as stored."""

    def __init__(self, root: Root, ctx: ScanContext) -> None:
        self.root = root
        self.path = root.path
        self._ctx = ctx
        self._handle = _Handle()
        self._failed = False
        self._failure: str | None = None
        self._locked = False  # the failure is another program's lock (``_reason``): it passes
        #: the warning of a read that failed *this time* (``note_failure``), said again by every read after it
        self._unread: str | None = None
        self._opened = False
        #: the DB was opened from its main file alone, its -wal unread (``unread_wal``, asked once)
        self._wal_unread = False
        self._kv: bool | None = None
        #: every composer row was read (``StateDb.composers`` answered before any read failed):
        #: the chats only this DB holds are listed (``dbonly``)
        self.composers_whole = False
        #: opened for another provider's question alone (``statedb.brief_state_db``): a lock
        #: held by Cursor fails at once (``BRIEF_BUSY_MS``) rather than after the usual wait
        self.brief = False
        ctx.on_close(self._handle.close)
        weakref.finalize(ctx, self._handle.close)  # for callers that never close the scan

    # -- connection ------------------------------------------------------

    def connection(self) -> sqlite3.Connection | None:
        if self._failed:
            self.say_unread()
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
                self._handle.conn = connect_readonly(self.path, busy_ms=BRIEF_BUSY_MS if self.brief else BUSY_TIMEOUT_MS)
            except DatabaseUnavailable as exc:
                self.note_failure(exc)
            else:
                self._wal_unread = unread_wal(self.path)
                if self._wal_unread:
                    # Cursor quit without its -shm (a crash): the composers it wrote last are in
                    # the -wal, which a read-only open cannot read.  Said to every read (``say_unread``):
                    # a row built without them must not be kept as if whole.
                    self._unread = (f"state DB read from its main file alone: {WAL_UNREAD} (Cursor makes it "
                                    "again when it next opens)")
                    self.say_unread()
        return self._handle.conn

    def problem(self) -> str | None:
        """Why the DB cannot be used (doctor's STATUS), ``None`` when it can."""
        if self.connection() is not None and not self.has_kv():
            return "no cursorDiskKV table (not a Cursor state DB?)"
        return self._failure

    def caveat(self) -> str | None:
        """What doctor's STATUS says of a DB that is used but not whole, ``None``: nothing."""
        return WAL_UNREAD_STATUS if self.connection() is not None and self._wal_unread else None

    def status(self) -> str:
        """One line for doctor: whether the state DB is used, and why not."""
        path = legible(str(self.path))
        if self.connection() is not None:
            if self._wal_unread:
                return f"state DB: {path} (read-only; used from its main file alone: {WAL_UNREAD})"
            return f"state DB: {path} (read-only; {'in WAL mode, ' if _wal_live(self.path) else ''}used)"
        if self._failure:
            return f"state DB: {path} not used: {self._failure}"
        return f"state DB: {path} not found (no Cursor IDE data); agent transcripts only"

    def unread(self) -> tuple[str, str] | None:
        """``(path, why)`` when a read of the DB was tried and failed (locked, corrupt)."""
        if self._failure is None:
            return None
        hint = "; try again in a moment, or close Cursor" if self._locked else ""
        return legible(str(self.path)), f"Cursor state DB not used ({self._failure}){hint}"

    def locked(self) -> tuple[str, str] | None:
        """``(path, why)`` when a read of the DB failed because another program holds it
        locked (``unread``'s, of a lock alone)."""
        if self._failure is None or not self._locked:
            return None
        return legible(str(self.path)), f"{self._failure}; try again in a moment, or close Cursor"

    def note_failure(self, exc: Exception) -> None:
        reason, self._locked = _reason(exc, self.path)
        self._failure = reason
        self._failed = True
        self._handle.close()
        hint = " (try again in a moment, or close Cursor)" if self._locked else ""
        # (The tokens it holds: an Agent CLI chat known by its store alone records none, and its
        # usage is no less known than on any other run: ``CursorProvider.unknown_usage``.  The
        # chats only it holds cannot be listed before its composers are read: said so.  The
        # figures kept of a session whose files and DB are unchanged since the DB was last read
        # (its fingerprint) are still its figures, and ``tokens`` shows them: "not known"
        # alone was untrue of them, said by ``doctor`` too.  Of a lock, and of any other failure
        # (the query deadline on a big DB, an I/O error) of a DB whose stamp is the one a run that
        # read it kept (``kept_at_stamp``): ``tokens``, ``list`` and ``show`` show those figures.
        # Not of a DB damaged since (another stamp, nothing kept of it) nor never read.)
        from agentscan.providers.cursor.keptstamp import kept_at_stamp

        left_out = "" if self.composers_whole else left_out_words(self._ctx, self.path)
        kept = f" {KEPT_WORDS}" if self._locked or kept_at_stamp(self._ctx, self.path) else ""
        self._unread = (f"Cursor state DB not used ({reason}); chats are listed without it{left_out}, "
                        f"the tokens it holds not known{kept}{hint}")
        self.say_unread()

    def say_unread(self) -> None:
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

    @property
    def ctx(self) -> ScanContext:
        return self._ctx

    @property
    def failed(self) -> bool:
        """Whether a read of the DB failed (or it could not be opened) in this scan."""
        return self._failed

    # -- rows ------------------------------------------------------------

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        conn = self.connection()
        if conn is None:
            return
        try:
            yield from conn.execute(sql, params)
        except sqlite3.DatabaseError as exc:  # corrupt page, SQLITE_BUSY past the timeout, …
            self.note_failure(exc)

    def json_of(self, value: object, where: str) -> dict[str, Any] | None:
        if value is None:  # Cursor leaves NULL values behind; they mean nothing
            return None
        if isinstance(value, (bytes, str)) and too_many_values(value):
            # One parse of a hostile value of tiny items would take ~72 bytes per byte.
            self._ctx.warn(self.path, f"more than {MAX_JSON_VALUES:,} JSON values skipped: {where}")
            return None
        try:
            data = laxjson.loads(value) if isinstance(value, (bytes, str)) else None
        except orjson.JSONDecodeError:
            self._ctx.warn(self.path, f"invalid JSON skipped: {where}")
            return None
        return data if isinstance(data, dict) else None

    def has_kv(self) -> bool:
        self.say_unread()
        if self._kv is None:
            conn = self.connection()
            try:
                self._kv = conn is not None and has_table(conn, "cursorDiskKV")
            except sqlite3.DatabaseError as exc:
                self.note_failure(exc)
                self._kv = False
            if conn is not None and not self._kv and not self._failed:
                self._ctx.warn(self.path, "no cursorDiskKV table (not a Cursor state DB?); composers not read")
        return self._kv and not self._failed

    def values(self, keys: list[str]) -> Iterator[tuple[str, object]]:
        """``(key, value)`` of the ``cursorDiskKV`` rows of ``keys`` that exist, each by exact
        key (``bubbletimes``)."""
        if not self.has_kv():
            return
        for key in keys:
            for (value,) in self.rows("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)):
                yield key, value
            if self._failed:
                return

    def iter_raw(self, prefix: str) -> Iterator[tuple[str, object]]:
        """``(key, value)`` of every ``cursorDiskKV`` key under ``prefix``, undecoded, in
        key order, as ``iter_bubbles`` reads them (``keptstats``: digests of the bytes)."""
        if not self.has_kv():
            return
        conn = self.connection()
        if conn is None:
            return
        low, high = key_range(prefix)
        try:
            cursor = conn.execute("SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?", (low, high))
            # A batch a step: a guarded step per row cost more than the rows' hashing.
            while batch := cursor.fetchmany(512):
                yield from batch
        except sqlite3.DatabaseError as exc:
            self.note_failure(exc)

    def iter_prefix(self, prefix: str, *, limit: int) -> Iterator[tuple[str, object]]:
        """``(key, value)`` of every ``cursorDiskKV`` key under ``prefix``, in
        the order they were written (rowid), at most ``limit`` rows."""
        if not self.has_kv():
            return
        low, high = key_range(prefix)
        sql = "SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY rowid LIMIT ?"
        yield from self.rows(sql, (low, high, limit))


def _reason(exc: Exception, path: os.PathLike[str]) -> tuple[str, bool]:
    """``exc``'s message without the DB's path (the warning names it already), a lock said
    with who holds it; and whether it is a lock.  A lock is told by SQLite's result code (``SQLITE_BUSY``,
    ``SQLITE_LOCKED``), not by its words: a corrupt schema naming a ``lockedFiles`` table read
    "locked by Cursor", and "try again in a moment" would never mend it."""
    code = exc.sqlite_code if isinstance(exc, DatabaseUnavailable) else sqlitecodes.primary(exc)
    if code in (sqlitecodes.BUSY, sqlitecodes.LOCKED):
        return f"{DB_LOCKED} by Cursor or another program", True
    return unavailable_reason(exc, path), False


def _wal_live(path) -> bool:
    return os.path.exists(wal_of(path))
