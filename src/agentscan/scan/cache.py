"""agentscan's own persistent index: rows, usage sums and ids, keyed by file identity.

It lives in ``platformdirs.user_cache_dir("agentscan")`` (``AGENTSCAN_CACHE_DIR``
overrides; ``--no-cache`` bypasses it).  Every entry is keyed by a
fingerprint of the session's files (path, size, mtime, inode, ctime) and the
provider's parser version, so an unchanged file is never parsed twice and a
changed one always is.

What is kept per session (docs/performance-history.md explains why):

* ``usage``: token sums grouped by subagent, model and quarter hour, plus the
  64-bit hashes of the session's dedupe keys.  A warm ``tokens`` adds up
  these sums and never decodes a call;
* ``calls``: the packed calls themselves, only for sessions that need them
  (their keys are shared with another session, a time window cuts through
  them, or ``export`` asked);
* ``resume``: a provider's state for parsing only what was appended to a
  session's files (large or active sessions only);
* ``facts``: small facts read from a file's head (a Codex rollout's header),
  so a warm discovery reads no file whose stat is unchanged;
* ``files``: a provider's own state of one file (Codex line tallies);
* ``prices``: price periods per model (``agentscan.pricing``);
* ``report_rows``: each session's ``tokens --by session`` row under the price
  data and code it was priced with (``scan.rowmemo``);
* ``snapshots``: every session's sums of one provider in one value, valid
  while every session's fingerprint is the same: a run in which nothing
  changed decodes one value instead of one per session.

The hot path uses plain ``sqlite3`` (the file and its schema: ``scan.cachefile``).  The
cache holds prompt previews, so a directory agentscan creates is 0700 and the
file is 0600.  Anything wrong with it only costs speed:

* a value that does not decode is a miss, recomputed and overwritten;
* a busy database (another agentscan writing) is waited for, then skipped
  for this run: it is never mistaken for corruption;
* a file that is not an agentscan index (damaged, or another program's) is
  moved aside and rebuilt with a warning; one that fails to open for another
  reason (a disk I/O error, a full disk) is left as it is, unused this run
  (``cachefile.damaged``).
"""

from __future__ import annotations


import sqlite3
from typing import Any, Iterable, Literal, Sequence

from agentscan.context import ScanContext
from agentscan.scan.cachefile import FILE_NAME, cache_dir, open_index, refused_write
from agentscan.scan.filekeyed import FileKeyedTables
from agentscan.scan.indexconn import WHOLE_TABLE_ABOVE

# The index's file and directory are named here too: callers ask this module for them.
__all__ = ["Cache", "FILE_NAME", "cache_dir", "decode_json"]

#: the tables with a row per session, by ``session_id``
_PER_SESSION_TABLES = ("ids", "rows", "usage", "calls", "resume", "report_rows")


class Cache(FileKeyedTables):
    """A handle on the index, its tables' reads and writes (those kept by a file's path:
    ``FileKeyedTables``); every method degrades to a miss on error (``IndexConnection``)."""

    @classmethod
    def open(cls, ctx: ScanContext) -> Cache | None:
        """The index of ``ctx``'s environment, opened or made (``None``: this run goes without)."""
        opened = open_index(ctx)
        if opened is None:
            return None
        cache = cls(*opened)
        folder = cache.path.parent
        # Worded as ``cache disabled: …`` is (``cachefile.open_index``): a warning, so a cron
        # job's --strict hears that its runs will all be cold until there is room.
        cache.refused = lambda why: ctx.warn(cache.path, "cache not updated: " + refused_write(
            why, folder, "answers are not kept, so every run reads the files again"))
        return cache

    # -- rows ----------------------------------------------------------------

    def get_rows(self, session_ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """Cached ``list`` rows; one that does not decode to an object is left out (a miss)."""
        found: dict[str, tuple[str, dict[str, Any]]] = {}
        for session_id, fingerprint, row in self.select_in("SELECT session_id, fingerprint, row FROM rows", session_ids,
                                                           whole_table_above=WHOLE_TABLE_ABOVE):
            document = decode_json(row)
            if isinstance(document, dict) and isinstance(fingerprint, str):
                found[session_id] = (fingerprint, document)
        return found

    def row_fingerprints(self, session_ids: list[str]) -> dict[str, str]:
        """The fingerprint each cached row was kept for, its row left undecoded."""
        return {session_id: fingerprint for session_id, fingerprint in self.select_in(
            "SELECT session_id, fingerprint FROM rows", session_ids, whole_table_above=WHOLE_TABLE_ABOVE)
            if isinstance(fingerprint, str)}

    def row_fields(self, session_ids: list[str], paths: Sequence[str]) -> dict[str, tuple[str, str | None]]:
        """The fingerprint each cached row was kept for (``row_fingerprints``' answer) and, as a
        JSON array, its values at ``paths`` (``$.cwd``), one a path however many: SQLite picks
        them out, no row is decoded whole here.  A row that is no JSON has ``None`` for its
        values (``json_extract`` of it would fail the whole query)."""
        quoted = ["'" + path.replace("'", "''") + "'" for path in paths]  # the caller's constants
        # ``json_extract`` gives an array of two paths or more, but one path's value bare (a
        # ``true`` as 1, a string unquoted): that one is asked twice and its copy removed.
        picked = (f"json_remove(json_extract(row, {quoted[0]}, {quoted[0]}), '$[1]')" if len(quoted) == 1
                  else f"json_extract(row, {', '.join(quoted)})")
        return {session_id: (fingerprint, values if isinstance(values, str) else None)
                for session_id, fingerprint, values in self.select_in(
                    f"SELECT session_id, fingerprint, CASE WHEN json_valid(row) THEN {picked} END "
                    "FROM rows", session_ids, whole_table_above=WHOLE_TABLE_ABOVE)
                if isinstance(fingerprint, str)}

    def put_row(self, session_id: str, provider: str, fingerprint: str, row: dict[str, Any]) -> None:
        encoded = _encode(row)
        if encoded is not None:
            self.write(
                "INSERT OR REPLACE INTO rows(session_id, provider, fingerprint, row) VALUES (?,?,?,?)",
                (session_id, provider, fingerprint, encoded.decode()),
            )

    # -- usage ---------------------------------------------------------------

    def get_usage(self, session_ids: list[str]) -> dict[str, tuple[str, bytes, bytes]]:
        """Session id -> (fingerprint, sums document, key hashes), undecoded."""
        return {
            session_id: (fingerprint, sums, keys)
            for session_id, fingerprint, sums, keys in self.select_in(
                "SELECT session_id, fingerprint, sums, keys FROM usage", session_ids, whole_table_above=WHOLE_TABLE_ABOVE
            )
            if isinstance(fingerprint, str) and isinstance(sums, bytes) and isinstance(keys, bytes)
        }

    def get_usage_sums(self, session_ids: list[str]) -> dict[str, tuple[str, bytes]]:
        """Session id -> (fingerprint, sums document), undecoded: ``get_usage`` without the key hashes."""
        return {
            session_id: (fingerprint, sums)
            for session_id, fingerprint, sums in self.select_in("SELECT session_id, fingerprint, sums FROM usage", session_ids,
                                                                  whole_table_above=WHOLE_TABLE_ABOVE)
            if isinstance(fingerprint, str) and isinstance(sums, bytes)
        }

    def get_keys(self, session_ids: list[str]) -> dict[str, tuple[str, bytes]]:
        """Session id -> (fingerprint, key hashes): ``get_usage`` without the sums."""
        return {
            session_id: (fingerprint, keys)
            for session_id, fingerprint, keys in self.select_in(
                "SELECT session_id, fingerprint, keys FROM usage", session_ids, whole_table_above=WHOLE_TABLE_ABOVE
            )
            if isinstance(fingerprint, str) and isinstance(keys, bytes)
        }

    def fingerprints_in(self, table: Literal["usage", "calls"], session_ids: list[str]) -> dict[str, str]:
        """The fingerprint each session's kept ``usage`` (``get_keys`` without the key hashes) or
        ``calls`` were kept for, nothing decoded."""
        return {session_id: fingerprint for session_id, fingerprint in self.select_in(
            f"SELECT session_id, fingerprint FROM {table}", session_ids, whole_table_above=WHOLE_TABLE_ABOVE)
            if isinstance(fingerprint, str)}

    def get_report_rows(self, provider: str, stamp: str) -> list[tuple[str, str, bytes, bytes]]:
        """``(session_id, fingerprint, data, fragment)`` of the provider's rows kept under ``stamp``."""
        return [
            row for row in self.query(
                "SELECT session_id, fingerprint, data, fragment FROM report_rows WHERE provider=? AND stamp=?", (provider, stamp))
            if isinstance(row[0], str) and isinstance(row[1], str) and isinstance(row[2], bytes) and isinstance(row[3], bytes)
        ]

    def get_report_rows_of(self, session_ids: list[str], stamp: str) -> list[tuple[str, str, bytes, bytes]]:
        """``get_report_rows`` of these sessions alone."""
        return [
            (session_id, fingerprint, data, fragment)
            for session_id, row_stamp, fingerprint, data, fragment in self.select_in(
                "SELECT session_id, stamp, fingerprint, data, fragment FROM report_rows", session_ids)
            if row_stamp == stamp and isinstance(session_id, str) and isinstance(fingerprint, str)
            and isinstance(data, bytes) and isinstance(fragment, bytes)
        ]

    def put_report_rows(self, rows: list[tuple[str, str, str, str, bytes, bytes]], *, replacing: Iterable[str] = (),
                        gone: Sequence[str] = ()) -> None:
        """``(session_id, provider, stamp, fingerprint, data, fragment)`` rows; ``replacing``:
        providers whose rows all go first (kept under other price data, or for sessions gone);
        ``gone``: sessions whose rows go."""
        for provider in replacing:
            self.write("DELETE FROM report_rows WHERE provider=?", (provider,))
        self.delete_in("report_rows", "session_id", gone)
        self.write_many("INSERT OR REPLACE INTO report_rows(session_id, provider, stamp, fingerprint, data, fragment) "
                        "VALUES (?,?,?,?,?,?)", rows)

    def put_usage(self, rows: list[tuple[str, str, str, bytes, bytes]]) -> None:
        """``(session_id, provider, fingerprint, sums, keys)`` rows."""
        self.write_many("INSERT OR REPLACE INTO usage(session_id, provider, fingerprint, sums, keys) VALUES (?,?,?,?,?)", rows)

    # -- price periods (agentscan.pricing.book) ---------------------------------

    def get_prices(self, data_version: str) -> dict[tuple[str, str], dict[str, Any]]:
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for provider, model, doc in self.query(
            "SELECT provider, model, doc FROM prices WHERE data_version=?", (data_version,)
        ):
            document = decode_json(doc)
            if isinstance(provider, str) and isinstance(model, str) and isinstance(document, dict):
                found[(provider, model)] = document  # a damaged entry is only a miss
        return found

    def put_price(self, data_version: str, provider: str, model: str, doc: dict[str, Any]) -> None:
        encoded = _encode(doc)
        if encoded is not None:
            self.write(
                "INSERT OR REPLACE INTO prices(data_version, provider, model, doc) VALUES (?,?,?,?)",
                (data_version, provider, model, encoded.decode()),
            )

    def get_calls(self, session_ids: list[str]) -> dict[str, tuple[str, bytes]]:
        return {
            session_id: (fingerprint, entries)
            for session_id, fingerprint, entries in self.select_in(
                "SELECT session_id, fingerprint, entries FROM calls", session_ids
            )
            if isinstance(fingerprint, str) and isinstance(entries, bytes)
        }

    def put_calls(self, rows: list[tuple[str, str, bytes]]) -> None:
        self.write_many("INSERT OR REPLACE INTO calls(session_id, fingerprint, entries) VALUES (?,?,?)", rows)

    def get_resume(self, session_ids: list[str]) -> dict[str, bytes]:
        return {
            session_id: state
            for session_id, state in self.select_in("SELECT session_id, state FROM resume", session_ids)
            if isinstance(state, bytes)
        }

    def put_resume(self, rows: list[tuple[str, bytes]]) -> None:
        self.write_many("INSERT OR REPLACE INTO resume(session_id, state) VALUES (?,?)", rows)

    def drop_resume(self, session_ids: list[str]) -> None:
        self.write_many("DELETE FROM resume WHERE session_id=?", [(session_id,) for session_id in session_ids])

    def get_snapshot(self, key: str, stamp: str) -> bytes | None:
        """A value stored for ``key`` while the inputs had this ``stamp``."""
        rows = self.query("SELECT value FROM snapshots WHERE key=? AND stamp=?", (key, stamp))
        return rows[0][0] if rows and isinstance(rows[0][0], bytes) else None

    def latest_snapshot(self, key: str) -> tuple[str, bytes] | None:
        """The value stored for ``key`` whatever the stamp, with its stamp."""
        rows = self.query("SELECT stamp, value FROM snapshots WHERE key=?", (key,))
        return (rows[0][0], rows[0][1]) if rows and isinstance(rows[0][0], str) and isinstance(rows[0][1], bytes) else None

    def put_snapshot(self, key: str, stamp: str, value: bytes) -> None:
        self.write("INSERT OR REPLACE INTO snapshots(key, stamp, value) VALUES (?,?,?)", (key, stamp, value))

    def keep_newest_snapshots(self, prefix: str, count: int) -> None:
        """Forget all but the ``count`` snapshots put last whose key starts with ``prefix``
        (``INSERT OR REPLACE`` gives a row put again the highest rowid)."""
        self.write("DELETE FROM snapshots WHERE substr(key, 1, ?1) = ?2 AND rowid NOT IN "
                   "(SELECT rowid FROM snapshots WHERE substr(key, 1, ?1) = ?2 ORDER BY rowid DESC LIMIT ?3)",
                   (len(prefix), prefix, count))

    def put_snapshot_parts(self, key: str, stamp: str, parts: Sequence[bytes]) -> None:
        """``put_snapshot`` of ``parts`` joined, written into the row a part at a time: a heavy
        user's 20 MB basis is neither joined here nor copied whole by SQLite first (a peak of
        two more copies of it, at the end of a first ``tokens``)."""
        self.write("INSERT OR REPLACE INTO snapshots(key, stamp, value) VALUES (?,?,zeroblob(?))",
                   (key, stamp, sum(map(len, parts))))
        rows = self.query("SELECT rowid FROM snapshots WHERE key=?", (key,)) if self.writing else []
        if not rows:
            return
        try:
            with self.conn.blobopen("snapshots", "value", rows[0][0]) as blob:
                for part in parts:
                    blob.write(part)
        except sqlite3.Error as exc:
            self.write("DELETE FROM snapshots WHERE key=?", (key,))  # not left half written (its seal would say so)
            if isinstance(exc, sqlite3.DatabaseError):
                self.write_failed(exc)

    # -- id index ------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key=?", (key,))
        return rows[0][0] if rows and isinstance(rows[0][0], str) else None

    def put_meta(self, key: str, value: str) -> None:
        self.write("INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)", (key, value))

    def put_ids(self, entries: Iterable[tuple[str, str, str, str | None]]) -> None:
        self.write_many("INSERT OR REPLACE INTO ids(session_id, provider, native_id, path) VALUES (?,?,?,?)", list(entries))

    def find_ids(self, query: str) -> list[tuple[str, str, str, str | None]]:
        """Index entries whose id or native id equals or starts with ``query``."""
        escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.query(
            "SELECT session_id, provider, native_id, path FROM ids "
            "WHERE native_id LIKE ? ESCAPE '\\' OR session_id LIKE ? ESCAPE '\\' LIMIT 50",
            (escaped + "%", escaped + "%"),
        )
        return [row for row in rows if all(isinstance(v, str) for v in row[:3]) and isinstance(row[3], (str, type(None)))]

    def forget_id(self, session_id: str) -> None:
        self.write("DELETE FROM ids WHERE session_id=?", (session_id,))

    def session_counts(self) -> dict[str, int]:
        """How many sessions each provider's last discovery found (``prune.index_id_entries``)."""
        counts = {}
        for key, value in self.query("SELECT key, value FROM meta WHERE key LIKE 'count:%'", ()):
            if isinstance(key, str) and isinstance(value, str) and value.isdigit():
                counts[key[len("count:"):]] = int(value)
        return counts

    def indexed_ids(self, provider: str) -> list[tuple[str, str | None]]:
        """``(session id, path)`` of every session of ``provider`` in the id index."""
        return [(session_id, path) for session_id, path in
                self.query("SELECT session_id, path FROM ids WHERE provider=?", (provider,))
                if isinstance(session_id, str) and isinstance(path, (str, type(None)))]

    def forget_sessions(self, session_ids: list[str]) -> None:
        """Everything kept per session of these sessions: their files are gone (``scan.prune``)."""
        for table in _PER_SESSION_TABLES:
            self.delete_in(table, "session_id", session_ids)


def decode_json(value: object) -> Any:
    """A cached JSON value, or ``None`` when it does not decode (a miss, never an error)."""
    if not isinstance(value, (bytes, str)):
        return None
    import orjson  # here, not at the top: a remembered answer is printed without it (``scan.answers``)

    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return None


def _encode(document: Any) -> bytes | None:
    """JSON for the cache; a value JSON cannot hold only means "not cached"."""
    import orjson

    try:
        return orjson.dumps(document)
    except (TypeError, orjson.JSONEncodeError):
        return None

