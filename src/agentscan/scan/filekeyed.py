"""The index's tables kept by a file's path, not by a session: a provider's own state of
one file (``files``: Codex line tallies, ``fullcounts``) and small facts read from a
file's head (``facts``: a Codex rollout's header), so a warm discovery reads no file
whose stat is unchanged.  ``scan.cache.Cache`` reads and writes them through this class;
``scan.prune`` forgets them as their files go.
"""

from __future__ import annotations

from typing import Any, Sequence

from agentscan.scan.indexconn import WHOLE_TABLE_ABOVE, IndexConnection


class FileKeyedTables(IndexConnection):
    """``files`` and ``facts``: every method degrades to a miss on error (``IndexConnection``)."""

    # -- per-file state of a provider (Codex line tallies, ``fullcounts.py``) ---

    def get_file(self, path: str, kind: str) -> tuple[int, int, str, str, int, bytes] | None:
        rows = self.query(
            'SELECT size, mtime_ns, version, head, "offset", state FROM files WHERE path=? AND kind=?', (path, kind)
        )
        return _file_state(rows[0]) if rows else None

    def get_files(self, kind: str, paths: list[str]) -> dict[str, tuple[int, int, str, str, int, bytes]]:
        """``get_file`` of each of ``paths`` that has one, read together (``list --all`` prices
        10,000 Claude rows from their kept sums).  A state damaged into text that is not UTF-8
        would fail the whole read: taken as bytes, it is one miss (its seal does not hold)."""
        rows = self.select_in('SELECT path, size, mtime_ns, version, head, "offset", CAST(state AS BLOB) FROM files',
                              paths, whole_table_above=WHOLE_TABLE_ABOVE, column="path", where=("kind=?", (kind,)))
        return {row[0]: state for row in rows if (state := _file_state(row[1:])) is not None}

    def put_file(self, path: str, kind: str, size: int, mtime_ns: int, version: str, head: str, offset: int, state: bytes) -> None:
        self.write(
            'INSERT OR REPLACE INTO files(path, kind, size, mtime_ns, version, head, "offset", state) VALUES (?,?,?,?,?,?,?,?)',
            (path, kind, size, mtime_ns, version, head, offset, state),
        )

    def drop_files(self, kind: str, older_than_ns: int) -> None:
        """Forget the states of this kind kept for files last changed before ``older_than_ns``."""
        self.write("DELETE FROM files WHERE kind=? AND mtime_ns<?", (kind, older_than_ns))

    # -- facts read from files' heads ---------------------------------------

    def get_facts(self, kind: str) -> dict[str, tuple[str, bytes]]:
        return {
            path: (stamp, value)
            for path, stamp, value in self.query("SELECT path, stamp, value FROM facts WHERE kind=?", (kind,))
            if isinstance(stamp, str) and isinstance(value, bytes)
        }

    def put_facts(self, kind: str, rows: list[tuple[str, str, bytes]]) -> None:
        self.write_many(
            "INSERT OR REPLACE INTO facts(kind, path, stamp, value) VALUES (?,?,?,?)",
            [(kind, path, stamp, value) for path, stamp, value in rows],
        )

    # -- entries whose file is gone (``scan.prune``) ----------------------------

    def file_keyed(self) -> list[tuple[str, str]]:
        """``(table, path)`` of every entry kept by a file's path (``facts``, ``files``)."""
        return [(table, path) for table in ("facts", "files")
                for (path,) in self.query(f"SELECT DISTINCT path FROM {table}", ()) if isinstance(path, str)]

    def forget_files(self, entries: list[tuple[str, str]]) -> None:
        """Forget the ``(table, path)`` entries of ``file_keyed``: those files are gone."""
        for table in ("facts", "files"):
            self.delete_in(table, "path", [path for entry_table, path in entries if entry_table == table])


def _file_state(row: Sequence[Any]) -> tuple[int, int, str, str, int, bytes] | None:
    """A ``files`` row's state as ``get_file`` gives it; ``None``: a damaged row (a miss)."""
    size, mtime_ns, version, head, offset, state = row
    if not (type(size) is int and type(mtime_ns) is int and isinstance(version, str) and isinstance(head, str)
            and type(offset) is int and isinstance(state, bytes)):
        return None
    return size, mtime_ns, version, head, offset, state
