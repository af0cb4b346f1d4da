"""agentscan's own persistent index: rows, usage and ids, keyed by file identity.

It lives in ``platformdirs.user_cache_dir("agentscan")`` (``AGENTSCAN_CACHE_DIR``
overrides; ``--no-cache`` bypasses it).  Every entry is keyed by a
fingerprint of the session's files (path, size, mtime_ns) and the provider's
parser version, so an unchanged file is never parsed twice and a changed one
always is.

The schema is created and migrated with sqlite-utils; the hot path (a warm
``list`` or ``tokens``) uses plain ``sqlite3`` because importing sqlite-utils
alone costs ~70 ms, a third of the warm-list budget.  The cache holds prompt
previews, so its directory is 0700 and its file 0600.  A corrupt or foreign
file is moved aside and rebuilt with a warning, never fatal.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any, Iterable, Mapping

import orjson

from agentscan.context import ScanContext

SCHEMA_VERSION = 2
_IDENTITY = "agentscan-cache"
FILE_NAME = "index.sqlite"


def cache_dir(env: Mapping[str, str]) -> Path:
    override = env.get("AGENTSCAN_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("agentscan"))


def _migrate(path: Path) -> None:
    """Create or upgrade the schema (cold path only)."""
    import sqlite_utils

    db = sqlite_utils.Database(path)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        meta = db.table("meta")
        if not meta.exists():
            db.table("meta").create({"key": str, "value": str}, pk="key")
        version_row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        version = int(version_row[0]) if version_row else 0
        if version < 1:
            db.table("rows").create(
                {"session_id": str, "provider": str, "fingerprint": str, "row": str},
                pk="session_id", if_not_exists=True,
            )
            db.table("usage").create(
                {"session_id": str, "provider": str, "fingerprint": str, "entries": bytes},
                pk="session_id", if_not_exists=True,
            )
            db.table("ids").create(
                {"session_id": str, "provider": str, "native_id": str, "path": str},
                pk="session_id", if_not_exists=True,
            )
            db.table("ids").create_index(["native_id"], if_not_exists=True)
            db.table("files").create(
                {"path": str, "kind": str, "size": int, "mtime_ns": int, "version": str, "head": str,
                 "offset": int, "state": bytes},
                pk=("path", "kind"), if_not_exists=True,
            )
        if version < 2:
            # Packed usage entries gained a field (UsageEntry.cache_write_1h): re-parse once.
            db.execute("DELETE FROM usage")
            # Price periods per model, keyed by the price data version (agentscan.pricing).
            db.table("prices").create(
                {"data_version": str, "provider": str, "model": str, "doc": str},
                pk=("data_version", "provider", "model"), if_not_exists=True,
            )
        meta.upsert_all(
            [{"key": "identity", "value": _IDENTITY}, {"key": "schema_version", "value": str(SCHEMA_VERSION)}],
            pk="key",
        )
    finally:
        db.close()


class Cache:
    """A handle on the index; every method degrades to a miss on error."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self.parses = 0  # files parsed this run (tests count them)

    @classmethod
    def open(cls, ctx: ScanContext) -> Cache | None:
        directory = cache_dir(ctx.env)
        path = directory / FILE_NAME
        try:
            directory.mkdir(parents=True, exist_ok=True)
            os.chmod(directory, 0o700)
        except OSError as exc:
            ctx.warn(directory, f"cache disabled: cannot create its directory ({exc.strerror or exc})")
            return None
        for attempt in (1, 2):
            try:
                conn = cls._connect(path)
                return cls(conn, path)
            except (sqlite3.DatabaseError, ValueError) as exc:
                if attempt == 2:
                    ctx.warn(path, f"cache disabled: {exc}")
                    return None
                ctx.warn(path, f"cache was unreadable ({exc}); rebuilt")
                _move_aside(path)
        return None

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        fresh = not path.exists()
        if fresh:
            # Create the file 0600 before SQLite does, so it is never world-readable.
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        conn = sqlite3.connect(path, timeout=5)
        try:
            conn.execute("PRAGMA busy_timeout=5000")
            identity = _meta(conn, "identity")
            version = _meta(conn, "schema_version")
            if identity is None and not fresh and _has_tables(conn):
                raise ValueError("not an agentscan cache")
            if identity not in (None, _IDENTITY):
                raise ValueError("not an agentscan cache")
            if version is None or int(version) < SCHEMA_VERSION:
                conn.close()
                _migrate(path)
                conn = sqlite3.connect(path, timeout=5)
                conn.execute("PRAGMA busy_timeout=5000")
            elif int(version) > SCHEMA_VERSION:
                raise ValueError(f"written by a newer agentscan (schema {version})")
            conn.execute("PRAGMA synchronous=NORMAL")
            os.chmod(path, 0o600)
            return conn
        except BaseException:
            conn.close()
            raise

    def close(self) -> None:
        self.commit()
        self.conn.close()

    # -- rows ----------------------------------------------------------------

    def get_rows(self, session_ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        found: dict[str, tuple[str, dict[str, Any]]] = {}
        for chunk in _chunks(session_ids, 500):
            marks = ",".join("?" * len(chunk))
            for session_id, fingerprint, row in self._query(
                f"SELECT session_id, fingerprint, row FROM rows WHERE session_id IN ({marks})", chunk
            ):
                found[session_id] = (fingerprint, orjson.loads(row))
        return found

    def put_row(self, session_id: str, provider: str, fingerprint: str, row: dict[str, Any]) -> None:
        encoded = _encode(row)
        if encoded is not None:
            self._write(
                "INSERT OR REPLACE INTO rows(session_id, provider, fingerprint, row) VALUES (?,?,?,?)",
                (session_id, provider, fingerprint, encoded.decode()),
            )

    # -- usage ---------------------------------------------------------------

    def get_usage(self, session_ids: list[str]) -> dict[str, tuple[str, bytes]]:
        found: dict[str, tuple[str, bytes]] = {}
        for chunk in _chunks(session_ids, 500):
            marks = ",".join("?" * len(chunk))
            for session_id, fingerprint, entries in self._query(
                f"SELECT session_id, fingerprint, entries FROM usage WHERE session_id IN ({marks})", chunk
            ):
                found[session_id] = (fingerprint, entries)
        return found

    def put_usage(self, session_id: str, provider: str, fingerprint: str, document: dict[str, Any]) -> None:
        """``document`` is ``{"entries": [packed…], "warnings": [...]}``."""
        encoded = _encode(document)
        if encoded is not None:
            self._write(
                "INSERT OR REPLACE INTO usage(session_id, provider, fingerprint, entries) VALUES (?,?,?,?)",
                (session_id, provider, fingerprint, encoded),
            )

    # -- price periods (agentscan.pricing.book) ---------------------------------

    def get_prices(self, data_version: str) -> dict[tuple[str, str], dict[str, Any]]:
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for provider, model, doc in self._query(
            "SELECT provider, model, doc FROM prices WHERE data_version=?", (data_version,)
        ):
            try:
                found[(provider, model)] = orjson.loads(doc)
            except orjson.JSONDecodeError:
                continue  # a damaged entry is only a miss
        return found

    def put_price(self, data_version: str, provider: str, model: str, doc: dict[str, Any]) -> None:
        encoded = _encode(doc)
        if encoded is not None:
            self._write(
                "INSERT OR REPLACE INTO prices(data_version, provider, model, doc) VALUES (?,?,?,?)",
                (data_version, provider, model, encoded.decode()),
            )

    # -- per-file incremental state (append-only transcripts) ----------------

    def get_file(self, path: str, kind: str) -> tuple[int, int, str, str, int, bytes] | None:
        rows = self._query(
            "SELECT size, mtime_ns, version, head, offset, state FROM files WHERE path=? AND kind=?", (path, kind)
        )
        return rows[0] if rows else None

    def put_file(self, path: str, kind: str, size: int, mtime_ns: int, version: str, head: str, offset: int, state: bytes) -> None:
        self._write(
            "INSERT OR REPLACE INTO files(path, kind, size, mtime_ns, version, head, offset, state) VALUES (?,?,?,?,?,?,?,?)",
            (path, kind, size, mtime_ns, version, head, offset, state),
        )

    # -- id index ------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self._query("SELECT value FROM meta WHERE key=?", (key,))
        return rows[0][0] if rows else None

    def put_meta(self, key: str, value: str) -> None:
        self._write("INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)", (key, value))

    def put_ids(self, entries: Iterable[tuple[str, str, str, str | None]]) -> None:
        self._write_many("INSERT OR REPLACE INTO ids(session_id, provider, native_id, path) VALUES (?,?,?,?)", list(entries))

    def find_ids(self, query: str) -> list[tuple[str, str, str, str | None]]:
        """Index entries whose id or native id equals or starts with ``query``."""
        escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return self._query(
            "SELECT session_id, provider, native_id, path FROM ids "
            "WHERE native_id LIKE ? ESCAPE '\\' OR session_id LIKE ? ESCAPE '\\' LIMIT 50",
            (escaped + "%", escaped + "%"),
        )

    def forget_id(self, session_id: str) -> None:
        self._write("DELETE FROM ids WHERE session_id=?", (session_id,))

    # -- plumbing ------------------------------------------------------------

    def _query(self, sql: str, params: Iterable[Any]) -> list[tuple]:
        try:
            return self.conn.execute(sql, tuple(params)).fetchall()
        except sqlite3.DatabaseError:
            return []

    def _write(self, sql: str, params: tuple) -> None:
        try:
            self.conn.execute(sql, params)
        except sqlite3.DatabaseError:
            pass  # a busy or broken cache only costs speed

    def _write_many(self, sql: str, params: list[tuple]) -> None:
        try:
            self.conn.executemany(sql, params)
        except sqlite3.DatabaseError:
            pass

    def commit(self) -> None:
        try:
            self.conn.commit()
        except sqlite3.DatabaseError:
            pass


def _encode(document: Any) -> bytes | None:
    """JSON for the cache; a value JSON cannot hold only means "not cached"."""
    try:
        return orjson.dumps(document)
    except (TypeError, orjson.JSONEncodeError):
        return None


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return None
        raise
    return row[0] if row else None


def _has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0


def _move_aside(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        target = Path(str(path) + suffix)
        try:
            target.replace(Path(str(target) + ".corrupt"))
        except OSError:
            pass


def _chunks(items: list[str], size: int) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]
