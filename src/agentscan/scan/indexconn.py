"""The index's connection, under every table's reads and writes (``scan.cache.Cache``).

A read that fails is a miss, never an error. Writes go into one transaction,
committed when the run is done with them; a write that finds the index locked
by another agentscan (after the busy timeout) leaves the index to it for the
rest of the run (docs/security.md). Many keys are looked up in chunks under
SQLite's variable limit, or, past a threshold, in one pass over the table.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from agentscan.scan.cachefile import is_busy, no_room

#: asked for more sessions' sums, key hashes or rows than this, read the whole table (their
#: rows are small; ``calls`` is not read so: its rows are a session's every call)
WHOLE_TABLE_ABOVE = 2_000


class IndexConnection:
    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self.parses = 0  # files parsed this run (tests count them)
        #: ``False`` once a write found the index locked by another agentscan: this run
        #: writes nothing more (each write would wait the busy timeout again, for nothing)
        self.writing = True
        #: told (once) of a write the system refused: a full disk, a quota, ``ulimit -f``
        #: (``Cache.open`` makes it a warning); unsaid, every run was cold and nothing said why
        self.refused: Callable[[str], None] | None = None

    def close(self) -> None:
        self.commit()
        self.conn.close()


    def select_in(self, select: str, keys: list[str], *, whole_table_above: int | None = None,
                  column: str = "session_id", where: tuple[str, tuple] = ("", ())) -> list[tuple]:
        """``select WHERE [condition AND] column IN (keys)``, in chunks under SQLite's variable
        limit; ``where``: a condition on every row and its parameters; the first selected value
        is the key.  ``whole_table_above``: for more keys than this, one pass over the table,
        filtered here (a heavy user's 10,000 ids cost 20 chunked lookups, 2.5× one pass)."""
        condition, params = where
        if whole_table_above is not None and len(keys) > whole_table_above:
            wanted = set(keys)
            everything = f"{select} WHERE {condition}" if condition else select
            return [row for row in self.query(everything, params) if row[0] in wanted]
        found: list[tuple] = []
        narrowed = f"{select} WHERE {condition + ' AND ' if condition else ''}{column} IN"
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            found += self.query(f"{narrowed} ({','.join('?' * len(chunk))})", (*params, *chunk))
        return found

    def delete_in(self, table: str, column: str, keys: Sequence[str]) -> None:
        """``DELETE FROM table WHERE column IN (keys)``, in chunks under SQLite's variable limit."""
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            self.write(f"DELETE FROM {table} WHERE {column} IN ({','.join('?' * len(chunk))})", tuple(chunk))

    def query(self, sql: str, params: Iterable[Any]) -> list[tuple]:
        try:
            return self.conn.execute(sql, tuple(params)).fetchall()
        except sqlite3.DatabaseError:
            return []

    def _begin(self) -> bool:
        if not self.writing:
            return False
        if self.conn.in_transaction:
            return True
        try:
            self.conn.execute("BEGIN")
            return True
        except sqlite3.DatabaseError:
            return False

    def write(self, sql: str, params: tuple) -> None:
        if not self._begin():
            return
        try:
            self.conn.execute(sql, params)
        except sqlite3.DatabaseError as exc:
            self.write_failed(exc)  # a busy or broken cache only costs speed

    def write_many(self, sql: str, params: list[tuple]) -> None:
        if not params or not self._begin():
            return
        try:
            self.conn.executemany(sql, params)
        except sqlite3.DatabaseError as exc:
            self.write_failed(exc)

    def write_failed(self, exc: sqlite3.DatabaseError) -> None:
        """A write failed. Locked by another agentscan (after the busy timeout): the index
        is left to it for the rest of this run (docs/security.md), not waited for again at
        every write. The lock is taken by a transaction's first write, so nothing this
        transaction wrote is lost by ending it."""
        if is_busy(exc) or no_room(exc):
            self.writing = False
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass
            if not is_busy(exc):
                self._say_refused(exc)

    def _say_refused(self, exc: sqlite3.DatabaseError) -> None:
        if self.refused is not None:
            said, self.refused = self.refused, None  # once a run
            said(str(exc))

    @contextmanager
    def hurried(self) -> Iterator[None]:
        """Wait for no other agentscan's write lock while the block runs: a Ctrl-C keeps what
        it can (``usageparse``, ``rowreader``), but must not stand the busy timeout first.
        Then the connection is as it was: a library caller that caught the Ctrl-C (a notebook's
        interrupted cell) goes on with this scanner, which never waited for the lock again and,
        had the lock been another's at that moment, wrote nothing more for its whole life."""
        try:
            before = self.conn.execute("PRAGMA busy_timeout").fetchone()[0]
            self.conn.execute("PRAGMA busy_timeout=0")
        except sqlite3.DatabaseError:
            before = None
        writing = self.writing
        try:
            yield
        finally:
            # (A write refused meanwhile rolled this run's back: the next begins afresh.)
            self.writing = writing
            if before is not None:
                try:
                    self.conn.execute(f"PRAGMA busy_timeout={int(before)}")
                except sqlite3.DatabaseError:
                    pass

    def commit(self) -> None:
        try:
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            if no_room(exc):
                self._say_refused(exc)
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass
