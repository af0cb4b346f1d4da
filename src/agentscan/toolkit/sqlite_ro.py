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

A writer may quit between our look at ``-wal``/``-shm`` and the open: its
clean close deletes both, SQLite cannot make them read-only ("unable to
open database file", perhaps leaving an empty ``-wal``), and the open is
retried once with ``immutable=1``: no writer is left, so the main file is
all there is.  That leftover, and SQLite's ``fchown`` of ``-wal``/``-shm``
to the database's owner when run as root, are documented limits
(docs/security.md): copying the databases instead would cost a copy of
each per run.

Every opened connection is recorded in ``OPENED_URIS`` so tests can assert
that nothing was opened any other way.

A provider database is not trusted either (docs/security.md): only objects
whose ``sqlite_master.type`` is ``table`` are ever queried (a recursive
``VIEW`` named like a table would run forever), and every query runs under a
deadline: SQLite's progress handler interrupts it once it has worked for
``MAX_QUERY_SECONDS`` (time spent between rows, in the caller, does not
count), so no database can hold a command for longer than that.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar
from urllib.parse import quote

from agentscan import bounds
from agentscan.errors import DatabaseUnavailable
from agentscan.toolkit import sqlitecodes
from agentscan.toolkit.fsutil import open_regular

#: every URI this process opened, for the read-only guarantee tests
OPENED_URIS: list[str] = []
BUSY_TIMEOUT_MS = 2000
#: how long a ``brief`` read (another provider's question: Gemini borrowing cwds) waits on a
#: lock: a write's own moment, not a held lock's
BRIEF_BUSY_MS = 100


def _uri(path: Path, *, immutable: bool) -> str:
    uri = read_only_uri(path.resolve())
    return uri + ("&immutable=1" if immutable else "&readonly_shm=1")


def read_only_uri(path: Path) -> str:
    """``path`` as a ``mode=ro`` SQLite URI; its bytes quoted, not its str, so it names any
    file, a non-UTF-8 one too."""
    return "file:" + quote(os.fsencode(path), safe="/:") + "?mode=ro"


_MAGIC = b"SQLite format 3\x00"
T = TypeVar("T")
#: SQLite VM instructions between two looks at the clock
_PROGRESS_STEPS = 5_000
#: the largest string or blob one value may hold; SQLite's default is 1 GB, which
#: a hostile generated column (``randomblob(1e9)``) would allocate per row
_MAX_VALUE_BYTES = 256 * 1024 * 1024


class _Deadline:
    """SQLite time of the current query, measured only while SQLite works."""

    def __init__(self) -> None:
        self.spent = 0.0
        self.entered: float | None = None
        self.expired = False

    def start(self) -> None:
        self.spent, self.expired = 0.0, False

    def enter(self) -> None:
        self.entered = time.monotonic()

    def leave(self) -> None:
        if self.entered is not None:
            self.spent += time.monotonic() - self.entered
            self.entered = None

    def check(self) -> int:
        """The progress handler: non-zero interrupts the running statement."""
        if self.entered is None:
            return 0
        if self.spent + (time.monotonic() - self.entered) > bounds.MAX_QUERY_SECONDS:
            self.expired = True
            return 1
        return 0


class _Cursor(sqlite3.Cursor):
    """A cursor whose every step counts against its connection's query deadline."""

    def _deadline(self) -> _Deadline:
        connection = self.connection
        assert isinstance(connection, _Connection)
        return connection.deadline

    def _guarded(self, step: Callable[..., T], *args: Any) -> T:
        deadline = self._deadline()
        deadline.enter()
        try:
            result = step(*args)
        except sqlite3.OperationalError:
            if deadline.expired:
                raise _interrupted() from None
            raise
        finally:
            deadline.leave()
        # The handler runs only every _PROGRESS_STEPS instructions: a row that is
        # slow within one instruction (a costly generated column) is caught here.
        if deadline.spent > bounds.MAX_QUERY_SECONDS:
            raise _interrupted()
        return result

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:  # type: ignore[override]
        self._deadline().start()
        return self._guarded(super().execute, sql, parameters)

    def __next__(self) -> Any:
        return self._guarded(super().__next__)

    def fetchone(self) -> Any:
        return self._guarded(super().fetchone)

    def fetchmany(self, size: int | None = 1) -> list[Any]:
        return self._guarded(super().fetchmany, size)

    def fetchall(self) -> list[Any]:
        return self._guarded(super().fetchall)


def _interrupted() -> sqlite3.OperationalError:
    return sqlite3.OperationalError(f"query interrupted after {bounds.MAX_QUERY_SECONDS:g} s (a hostile or broken schema?)")


class _Connection(sqlite3.Connection):
    """A read-only provider connection: every query is deadline-guarded."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deadline = _Deadline()
        self.set_progress_handler(self.deadline.check, _PROGRESS_STEPS)
        limit = getattr(sqlite3, "SQLITE_LIMIT_LENGTH", None)
        if limit is not None and hasattr(self, "setlimit"):  # Python >= 3.11
            self.setlimit(limit, _MAX_VALUE_BYTES)

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:  # type: ignore[override]
        return self.cursor(_Cursor).execute(sql, parameters)


def _header(path: Path) -> bytes:
    try:
        with open_regular(path) as handle:  # a FIFO named like a DB must not block us
            return handle.read(100)
    except OSError as exc:
        raise DatabaseUnavailable(f"{path}: {exc.strerror or exc}") from None


def _in_wal_mode(header: bytes) -> bool:
    """Whether a database's first 100 bytes say it is in WAL mode (its read and write
    versions, bytes 18 and 19, are 2)."""
    return len(header) >= 20 and header[18] == 2 and header[19] == 2


def wal_of(path: Path) -> Path:
    """The ``-wal`` file beside the SQLite database at ``path``, where a writer in WAL mode
    keeps its latest committed changes."""
    return path.with_name(path.name + "-wal")


def with_wal(path: Path) -> tuple[Path, Path]:
    """The database at ``path`` and its ``-wal`` (``wal_of``): the pair whose stats say whether
    it changed (a commit may touch only the ``-wal``)."""
    return path, wal_of(path)


def _needs_immutable(path: Path, header: bytes) -> bool:
    if not _in_wal_mode(header):
        return False
    wal = wal_of(path)
    shm = path.with_name(path.name + "-shm")
    return not (os.path.exists(wal) and os.path.exists(shm))


#: a WAL file's header; its frames (the committed changes not yet in the main file) follow
_WAL_HEADER_BYTES = 32


def unavailable_reason(exc: Exception, path: os.PathLike[str] | str) -> str:
    """Why ``path`` could not be read, without the path ``DatabaseUnavailable`` begins with:
    the warning that says it names the file already (said twice, the line ran past a screen)."""
    return str(exc).removeprefix(f"{path}: ")


#: why a WAL database read from its main file alone misses its latest changes (``unread_wal``)
WAL_UNREAD = "its latest changes are in its -wal, which cannot be read read-only without its -shm"
#: doctor's STATUS of such a database: it is read, but not whole
WAL_UNREAD_STATUS = "read without its -wal (latest changes missing)"


def unread_wal(path: Path) -> bool:
    """Whether a WAL database's latest committed changes are in its ``-wal`` file, which a
    read-only open cannot read: its ``-shm`` (the WAL's index) is missing (a writer that
    crashed, the file removed since), and SQLite would have to make one, a write next to
    another program's database that is never made.  ``connect_readonly`` then reads the main
    file alone (``immutable=1``): the caller says what that misses.  ``False`` when unsure."""
    try:
        header = _header(path)
        wal = os.stat(wal_of(path))
    except (DatabaseUnavailable, OSError):
        return False
    return _in_wal_mode(header) and wal.st_size > _WAL_HEADER_BYTES and not os.path.lexists(path.with_name(path.name + "-shm"))


def connect_readonly(path: Path, *, immutable: bool = False, busy_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """``busy_ms``: how long a read waits on another program's lock before it fails."""
    if not os.path.lexists(path):
        raise DatabaseUnavailable(f"{path}: not found")
    header = _header(path)
    if not header:
        # (a crash before the first page was written, or a file emptied): "not a SQLite
        # database" sent the user looking for what else had been put there
        raise DatabaseUnavailable(f"{path}: an empty file (0 bytes), not a SQLite database")
    if not header.startswith(_MAGIC):
        raise DatabaseUnavailable(f"{path}: not a SQLite database")
    immutable = immutable or _needs_immutable(path, header)
    try:
        return _open(path, immutable=immutable, busy_ms=busy_ms)
    except sqlite3.DatabaseError as exc:
        if _hot_journal(exc):
            raise DatabaseUnavailable(f"{path}: {HOT_JOURNAL}") from None
        if immutable or not _cannot_open(exc):
            raise DatabaseUnavailable(f"{path}: {exc}", sqlite_code=sqlitecodes.primary(exc)) from None
    # The writer quit between ``_needs_immutable`` and the open: its clean close deleted
    # -wal and -shm, and SQLite could not make them again read-only (it may have left an
    # empty -wal: docs/security.md).  No writer is left, so the main file is all there is.
    try:
        return _open(path, immutable=True, busy_ms=busy_ms)
    except sqlite3.DatabaseError as exc:
        raise DatabaseUnavailable(f"{path}: {exc}", sqlite_code=sqlitecodes.primary(exc)) from None


#: said in its place: SQLite's own words, "attempt to write a readonly database", read as
#: if agentscan had tried to write the agent's database
HOT_JOURNAL = "an unfinished write, whose -journal only its own program may roll back: agentscan opens it read-only"


def _hot_journal(exc: sqlite3.DatabaseError) -> bool:
    return sqlitecodes.extended(exc) == sqlitecodes.READONLY_ROLLBACK


def _cannot_open(exc: sqlite3.DatabaseError) -> bool:
    return sqlitecodes.primary(exc) == sqlitecodes.CANTOPEN  # one of SQLite's own


def _open(path: Path, *, immutable: bool, busy_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    uri = _uri(path, immutable=immutable)
    OPENED_URIS.append(uri)
    conn = sqlite3.connect(uri, uri=True, timeout=busy_ms / 1000, check_same_thread=False, factory=_Connection)
    try:
        conn.execute("PRAGMA query_only = 1")
        # A cheap read that fails fast on a file that is not SQLite.
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        conn.close()
        raise
    return conn


@contextmanager
def readonly(path: Path, *, immutable: bool = False, busy_ms: int = BUSY_TIMEOUT_MS) -> Iterator[sqlite3.Connection]:
    conn = connect_readonly(path, immutable=immutable, busy_ms=busy_ms)
    try:
        yield conn
    finally:
        conn.close()


def table_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """Column names of ``table``; empty when there is no *table* of that name
    (a view or anything else named so is never read)."""
    try:
        if not has_table(conn, table):
            return []
        return [row[1] for row in conn.execute(f"PRAGMA table_info({_quote_ident(table)})")]
    except sqlite3.DatabaseError as exc:
        raise DatabaseUnavailable(str(exc), sqlite_code=sqlitecodes.primary(exc)) from None


def has_table(conn: sqlite3.Connection, table: str) -> bool:
    """Whether ``table`` is a table (not a view, an index or a trigger)."""
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (table,)).fetchone()
    return row is not None


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
