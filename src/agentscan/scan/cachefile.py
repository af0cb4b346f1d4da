"""The index's file: where it is, opening it safely, its schema.

``scan.cache`` reads and writes the index; this module finds, creates,
checks and, when it is not an agentscan index, moves the file aside (see
``scan.cache`` for what anything wrong with it costs: only speed).
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from agentscan.filemodes import FILE_MODE, make_private_dirs
from agentscan.toolkit import sqlitecodes

if TYPE_CHECKING:
    from agentscan.context import ScanContext

SCHEMA_VERSION = 5
_IDENTITY = "agentscan-cache"
FILE_NAME = "index.sqlite"
#: how long to wait for another agentscan's write before skipping the cache (seconds)
BUSY_TIMEOUT = 5.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS rows (session_id TEXT PRIMARY KEY, provider TEXT, fingerprint TEXT, row TEXT);
CREATE TABLE IF NOT EXISTS ids (session_id TEXT PRIMARY KEY, provider TEXT, native_id TEXT, path TEXT);
CREATE INDEX IF NOT EXISTS ids_native_id ON ids (native_id);
CREATE TABLE IF NOT EXISTS usage (session_id TEXT PRIMARY KEY, provider TEXT, fingerprint TEXT, sums BLOB, keys BLOB);
CREATE TABLE IF NOT EXISTS calls (session_id TEXT PRIMARY KEY, fingerprint TEXT, entries BLOB);
CREATE TABLE IF NOT EXISTS resume (session_id TEXT PRIMARY KEY, state BLOB);
CREATE TABLE IF NOT EXISTS facts (kind TEXT, path TEXT, stamp TEXT, value BLOB, PRIMARY KEY (kind, path));
CREATE TABLE IF NOT EXISTS snapshots (key TEXT PRIMARY KEY, stamp TEXT, value BLOB);
CREATE TABLE IF NOT EXISTS files (path TEXT, kind TEXT, size INTEGER, mtime_ns INTEGER, version TEXT, head TEXT,
    "offset" INTEGER, state BLOB, PRIMARY KEY (path, kind));
CREATE TABLE IF NOT EXISTS prices (data_version TEXT, provider TEXT, model TEXT, doc TEXT,
    PRIMARY KEY (data_version, provider, model));
CREATE TABLE IF NOT EXISTS report_rows (session_id TEXT PRIMARY KEY, provider TEXT, stamp TEXT, fingerprint TEXT,
    data BLOB, fragment BLOB);
CREATE INDEX IF NOT EXISTS report_rows_provider ON report_rows (provider, stamp);
"""
#: tables of schemas 1-2 whose shape or meaning changed (schema 2 packed calls in
#: ``usage``): dropped on upgrade to 4; a cache only costs a re-parse
_OBSOLETE = ("usage", "files", "calls", "resume", "facts", "snapshots")


class CacheBusy(Exception):
    """Another process holds the index longer than ``BUSY_TIMEOUT``."""


class NewerIndex(ValueError):
    """The index was written by a newer agentscan (a higher ``schema_version``): not damaged,
    so not moved aside.  Two installs used in turn (a crontab naming an old venv, pipx beside
    a project's venv) would otherwise each rebuild it from nothing on every switch."""

    def __init__(self, version: str) -> None:
        super().__init__(f"written by a newer agentscan (schema {version})")
        self.version = version


CACHE_DIR_VAR = "AGENTSCAN_CACHE_DIR"


def cache_dir(env: Mapping[str, str]) -> Path:
    """``$AGENTSCAN_CACHE_DIR``, else ``platformdirs.user_cache_dir("agentscan")``, read in
    ``env`` (``HOME``, ``XDG_CACHE_HOME``: ``toolkit.userdirs.given_env_dir``) when it is not
    this process's own: a library ``Scanner(env=…)`` keeps its index where agentscan run with
    that environment does, not in the caller's ``~/.cache``.

    A relative ``AGENTSCAN_CACHE_DIR`` is ignored (``ignored_cache_dir``), as a relative
    ``AGENTSCAN_DATA_DIR`` is: taken as it is, each directory agentscan is run from (a
    crontab's, a project's) would grow an index of its own, and none would be reused."""
    override = env.get(CACHE_DIR_VAR)
    if override and ignored_cache_dir(env) is None:
        return Path(override).expanduser()
    from agentscan.toolkit.userdirs import user_cache_dir

    return Path(user_cache_dir(env))


def ignored_cache_dir(env: Mapping[str, str]) -> str | None:
    """The ``AGENTSCAN_CACHE_DIR`` that ``cache_dir`` ignored (a relative path), for the warning that says so."""
    from agentscan.datadir import relative_setting

    return relative_setting(env, CACHE_DIR_VAR)


def cache_source(env: Mapping[str, str]) -> str:
    """What chose ``cache_dir``: the variable, or ``default`` (also when it was ignored)."""
    return CACHE_DIR_VAR if env.get(CACHE_DIR_VAR) and ignored_cache_dir(env) is None else "default"


def no_room(exc: BaseException) -> bool:
    """A write the system refused: ``database or disk is full`` (``SQLITE_FULL``), or a
    ``disk I/O error`` (``SQLITE_IOERR``: a file-size limit, a quota, a failing disk)."""
    return isinstance(exc, sqlite3.DatabaseError) and sqlitecodes.primary(exc) in (sqlitecodes.IOERR, sqlitecodes.FULL)


def refused_write(why: str, folder: Path, cost: str) -> str:
    """The one wording of a write the system refused, whether the index was being opened
    (``open_index``) or kept (``Cache.open``'s ``refused``): what happened, what it costs,
    then the step (free space, where, and how to see it)."""
    import shlex

    return (f"the system refused a write ({why}: a full disk, a quota or a size limit); {cost}: "
            f"free space in {folder} (`df -h {shlex.quote(str(folder))}`)")


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` says another connection holds the lock SQLite waited for (by its code:
    the words matched a table named ``locked`` as well)."""
    return sqlitecodes.primary(exc) in (sqlitecodes.BUSY, sqlitecodes.LOCKED)


def _create_schema(conn: sqlite3.Connection) -> None:
    """Create or upgrade the schema in one immediate transaction (concurrent first runs wait)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = _meta(conn, "schema_version")
        if version is not None and int(version) < 4:
            for table in _OBSOLETE:
                conn.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.executemany(
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
            [("identity", _IDENTITY), ("schema_version", str(SCHEMA_VERSION))],
        )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def open_index(ctx: ScanContext) -> tuple[sqlite3.Connection, Path] | None:
    """A connection to the index of ``ctx``'s environment and its path; ``None`` when this
    run must go without (warned, or another agentscan is writing)."""
    relative = ignored_cache_dir(ctx.env)
    directory = cache_dir(ctx.env)
    if relative is not None:
        # Worded as a relative provider setting is (``toolkit.roots.setting_paths``).
        ctx.warn(relative, f"{CACHE_DIR_VAR} is relative, so it was ignored (only absolute paths are used): "
                           f"the index is kept in {directory}")
    path = directory / FILE_NAME
    try:
        make_private_dirs(directory)
    except OSError as exc:
        problem = write_problem(directory) or f"cannot be written: its directory cannot be created ({_plain(exc)})"
        ctx.warn(path, f"cache disabled: it {problem}{not_kept()}")
        return None
    for attempt in (1, 2):
        try:
            return connect(path), path
        except CacheBusy:
            return None  # another agentscan is writing: this run goes without
        except NewerIndex as exc:  # a newer agentscan's, which it still reads: left as it is
            # What to do said too: every run of this install is a cold one until it is upgraded.
            ctx.warn(path, f"cache disabled: {exc}; this one reads schema {SCHEMA_VERSION}; left as it is "
                           "(upgrade agentscan, or set AGENTSCAN_CACHE_DIR to another folder for this one)")
            return None
        except (sqlite3.DatabaseError, ValueError, OSError) as exc:
            if is_busy(exc):
                return None
            if _read_only(exc, path) or _write_refused(exc):  # a cache dir of mode 0500, a read-only mount
                # Nothing to rebuild; said as ``doctor`` says it (``write_problem``), not in Python's words.
                ctx.warn(path, f"cache disabled: it {write_problem(directory) or 'cannot be written (read-only)'}"
                               f"{not_kept()}")
                return None
            denied = _denied(exc, path)
            if denied is not None:  # another user's index (a `sudo agentscan` that kept HOME): not ours to move
                ctx.warn(path, f"cache disabled: permission denied on {denied.name} ({exc}); left as it is")
                return None
            if attempt == 2 or isinstance(exc, OSError):
                ctx.warn(path, f"cache disabled: {_plain(exc) if isinstance(exc, OSError) else exc}")
                return None
            if not damaged(exc):
                # A disk I/O error, a disk full, a lock: the file may be whole, and is the
                # only copy of what a cold run takes minutes to read again.  Moved aside, a
                # second such run moved the empty file made in its place over it.
                left = "the file is left as it is, and this run reads the files again"
                # A full disk named as the write case names it: where to free space, not only "I/O".
                ctx.warn(path, f"cache not used this run: {refused_write(str(exc), directory, left)}" if no_room(exc)
                         else f"cache not used this run ({exc}); {left}")
                return None
            ctx.warn(path, f"cache was unreadable ({exc}); moved aside to {path.name}.corrupt and rebuilt")
            _move_aside(path)
    return None


#: SQLite's primary result codes of a file that is damaged or is no database: the only
#: failures that move the index aside (``damaged``)


def damaged(exc: BaseException) -> bool:
    """Whether opening the index failed because the file is damaged (``database disk image
    is malformed``), is no database (``file is not a database``), or is not an agentscan
    index (``ValueError``): only then is it moved aside and rebuilt.  Any other failure
    (``disk I/O error``, ``database or disk is full``, a lock) says nothing about the file."""
    if isinstance(exc, sqlite3.Error):
        code = sqlitecodes.primary(exc)
        # A plain SQLITE_ERROR while the schema is made (``no such column``, ``no such table``):
        # tables of another shape under this index's identity, which every run would fail on
        # the same way: no lock or full disk says that.
        schema = code == sqlitecodes.ERROR and str(exc).startswith(("no such column", "no such table"))
        return code in (sqlitecodes.CORRUPT, sqlitecodes.NOTADB) or schema
    return isinstance(exc, ValueError)


#: what a cache disabled costs, said after why
def not_kept() -> str:
    """What a disabled cache costs, and the command that says why (the index is every home's:
    no ``--home`` needed)."""
    from agentscan.invocation import command

    return f"; answers are not kept, so every run reads the files again (see `{command('doctor')}`)"


def _plain(exc: OSError) -> str:
    """An OS error as words (``permission denied``), not Python's ``[Errno 13] …: '/path'``."""
    return (exc.strerror or str(exc)).lower()


def _write_refused(exc: BaseException) -> bool:
    """Whether ``exc`` is the OS refusing to create or write the index (its folder read-only)."""
    return isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS)


def write_problem(directory: Path) -> str | None:
    """Why the index in ``directory`` cannot be kept, in words (``cannot be written (permission
    denied)``), or ``None``.  ``doctor`` reports it, and ``open_index`` warns with it, so both say
    one thing whether the folder or the file is read-only.  ``os.access``: nothing is created."""
    path = directory / FILE_NAME
    try:
        os.lstat(f"{path}-shm")  # (the longest name it needs)
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:  # (every ``os.path`` test below says "not there": no problem)
            return "cannot be written: its directory cannot be created (file name too long)"
    for part in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        if os.path.isfile(part) and not os.access(part, os.R_OK | os.W_OK):
            return f"cannot be written ({_refusal(part)})"
    if os.path.isdir(directory):
        # The index is written in WAL mode: its -wal and -shm files are made beside it.
        return None if os.access(directory, os.W_OK) else f"cannot be written ({_refusal(directory)})"
    parent = directory
    while not os.path.lexists(parent) and parent.parent != parent:
        parent = parent.parent
    if os.path.isdir(parent) and os.access(parent, os.W_OK):
        return None
    return f"cannot be written: its directory cannot be created ({_refusal(parent)})"


def _refusal(path: Path) -> str:
    try:
        read_only = bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs on Windows
        read_only = False
    return "read-only file system" if read_only else "permission denied"


#: SQLite's primary result codes of a write refused (the file), and of a file it could not
#: open (a WAL index: its ``-shm`` and ``-wal`` files cannot be made in a read-only folder)


def _read_only(exc: BaseException, path: Path) -> bool:
    """Whether the index failed as one that cannot be written: nothing to move aside."""
    code = sqlitecodes.primary(exc)
    if code == sqlitecodes.READONLY:
        return True
    return code == sqlitecodes.CANTOPEN and path.is_file() and not os.access(path.parent, os.W_OK)


def _denied(exc: BaseException, path: Path) -> Path | None:
    """The index file (or its ``-wal``/``-shm``) that this user may not read and write, when
    SQLite failed on it: not damaged, so not moved aside (it may be another user's).
    ``os.access``, not an open: closing a descriptor of a database drops this process's
    locks on it."""
    if not isinstance(exc, sqlite3.Error):
        return None
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{path}{suffix}")
        if os.path.isfile(part) and not os.access(part, os.R_OK | os.W_OK):
            return part
    return None


def connect(path: Path) -> sqlite3.Connection:
    """Open the index file, or make it (0600): its schema checked, created or upgraded."""
    try:
        # Create the file 0600 before SQLite does, so it is never world-readable.
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE))
        fresh = True
    except FileExistsError:
        fresh = False
    # isolation_level=None: transactions are begun explicitly (see ``begin``).
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT * 1000)}")
        # Tables first, identity second: a concurrent first run commits its
        # tables and its identity together, so a file that had tables when
        # looked at shows its identity afterwards.  The other order let a
        # commit fall between the two reads, and the new cache was taken
        # for someone else's database and moved aside.
        has_tables = _has_tables(conn)
        identity = _meta(conn, "identity")
        version = _meta(conn, "schema_version")
        if identity is None and not fresh and has_tables:
            raise ValueError("not an agentscan cache")
        if identity not in (None, _IDENTITY):
            raise ValueError("not an agentscan cache")
        if version is not None and int(version) > SCHEMA_VERSION:
            raise NewerIndex(version)
        if version is None or int(version) < SCHEMA_VERSION:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            _create_schema(conn)
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn
    except sqlite3.OperationalError as exc:
        conn.close()
        if is_busy(exc):
            raise CacheBusy(str(exc)) from exc
        raise
    except BaseException:
        conn.close()
        raise


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return None
        raise
    if row is None:
        return None
    value = row[0]
    if key == "schema_version" and not (isinstance(value, str) and value.isdigit()):
        raise ValueError("not an agentscan cache (bad schema version)")
    return value if isinstance(value, str) else None


def _has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0


def _move_aside(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        target = Path(str(path) + suffix)
        try:
            target.replace(Path(str(target) + ".corrupt"))
        except OSError:
            pass
