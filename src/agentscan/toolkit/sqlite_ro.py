"""Opening other programs' SQLite databases strictly read-only.

Provider databases (Codex ``state_*.sqlite``, Cursor ``state.vscdb``) are
live and often in WAL mode.  We open them with a ``mode=ro`` URI so SQLite
can never modify anything.  One trap remains: a ``mode=ro`` open of a WAL
database whose ``-wal``/``-shm`` files do not exist *creates* them (and
leaves them behind).  So when the header says WAL and those files are
absent (no writer is live), we open with ``immutable=1`` instead, which
reads the main file only and creates nothing.  When a writer is live its
``-wal``/``-shm`` exist, and ``mode=ro`` reads through them, seeing
committed data even while the writer holds ``BEGIN IMMEDIATE``.

A second trap: a ``mode=ro`` reader still opens the writer's ``-shm`` (the
WAL index, shared memory) read-write and records a read mark in it, so the
file changes under Cursor's feet.  ``readonly_shm=1`` makes SQLite map it
read-only (its documented path for read-only media, SQLite >= 3.22): we
read the same committed data and write no byte anywhere.  This is only
visible with a writer in another process; in one process SQLite shares a
single mapping between connections.

Every opened connection is recorded in ``OPENED_URIS`` so tests can assert
that nothing was opened any other way.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

from agentscan.errors import DatabaseUnavailable

#: every URI this process opened, for the read-only guarantee tests
OPENED_URIS: list[str] = []
BUSY_TIMEOUT_MS = 2000


def _uri(path: Path, *, immutable: bool) -> str:
    # Quoting the path's bytes (not its str) names any file, a non-UTF-8 one too.
    uri = "file:" + quote(os.fsencode(path.resolve()), safe="/:") + "?mode=ro"
    return uri + ("&immutable=1" if immutable else "&readonly_shm=1")


_MAGIC = b"SQLite format 3\x00"


def _header(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(100)
    except OSError as exc:
        raise DatabaseUnavailable(f"{path}: {exc.strerror or exc}") from None


def _needs_immutable(path: Path, header: bytes) -> bool:
    in_wal_mode = len(header) >= 20 and header[18] == 2 and header[19] == 2
    if not in_wal_mode:
        return False
    wal = path.with_name(path.name + "-wal")
    shm = path.with_name(path.name + "-shm")
    return not (os.path.exists(wal) and os.path.exists(shm))


def connect_readonly(path: Path, *, immutable: bool = False) -> sqlite3.Connection:
    if not os.path.isfile(path):
        raise DatabaseUnavailable(f"{path}: not found")
    header = _header(path)
    if not header.startswith(_MAGIC):
        raise DatabaseUnavailable(f"{path}: not a SQLite database")
    immutable = immutable or _needs_immutable(path, header)
    uri = _uri(path, immutable=immutable)
    OPENED_URIS.append(uri)
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
        conn.execute("PRAGMA query_only = 1")
        # A cheap read that fails fast on a file that is not SQLite.
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        if "conn" in locals():
            conn.close()
        raise DatabaseUnavailable(f"{path}: {exc}") from None
    return conn


@contextmanager
def readonly(path: Path, *, immutable: bool = False) -> Iterator[sqlite3.Connection]:
    conn = connect_readonly(path, immutable=immutable)
    try:
        yield conn
    finally:
        conn.close()


def table_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """Column names of ``table`` (empty when it does not exist)."""
    try:
        return [row[1] for row in conn.execute(f"PRAGMA table_info({_quote_ident(table)})")]
    except sqlite3.DatabaseError as exc:
        raise DatabaseUnavailable(str(exc)) from None


def has_table(conn: sqlite3.Connection, table: str) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (table,)).fetchone()
    return row is not None


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
