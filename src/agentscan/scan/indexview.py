"""The index as a forked worker sees it: ``ctx.file_cache`` in a worker process.

A SQLite connection must not cross a fork, and only the parent writes the
index: a worker reads it through a read-only connection of its own (or not at
all) and lists the writes its work made, for the parent to make in its turn.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Sequence


class IndexView:
    """The index as a worker process sees it (``scan.rowbuild``, ``scan.aside``): read
    through its own read-only connection, opened when first asked, or not read at all
    (``path`` ``None``); writes listed for the parent to make."""

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._reader: Any = None
        self._opened = False
        self.writes: list[tuple[str, tuple]] = []

    def _cache(self) -> Any:
        if not self._opened and self._path is not None:
            self._opened = True
            from agentscan.scan.cache import Cache
            from agentscan.scan.cachefile import BUSY_TIMEOUT
            from agentscan.toolkit.sqlite_ro import read_only_uri

            # Not ``sqlite_ro.connect_readonly``: this is agentscan's own index, written by the parent
            # meanwhile, read with its WAL as any reader of it does.
            try:
                conn = sqlite3.connect(read_only_uri(self._path), uri=True, timeout=BUSY_TIMEOUT,
                                       isolation_level=None, check_same_thread=False)
                self._reader = Cache(conn, self._path)
            except sqlite3.Error:
                self._reader = None  # a miss: only speed is lost
        return self._reader

    def get_file(self, path: str, kind: str) -> Any:
        cache = self._cache()
        return cache.get_file(path, kind) if cache is not None else None

    def get_files(self, kind: str, paths: list[str]) -> dict:
        cache = self._cache()
        return cache.get_files(kind, paths) if cache is not None else {}

    def get_usage(self, session_ids: list[str]) -> dict:
        cache = self._cache()
        return cache.get_usage(session_ids) if cache is not None else {}

    def get_facts(self, kind: str) -> dict:
        cache = self._cache()
        return cache.get_facts(kind) if cache is not None else {}

    def put_file(self, *args: Any) -> None:
        self.writes.append(("put_file", args))

    def put_usage(self, *args: Any) -> None:
        self.writes.append(("put_usage", args))

    def put_facts(self, *args: Any) -> None:
        self.writes.append(("put_facts", args))

    def drop_files(self, *args: Any) -> None:
        self.writes.append(("drop_files", args))


def make_writes(cache: Any, writes: Sequence[tuple[str, tuple]]) -> None:
    """Make, on the parent's ``Cache``, the writes a worker's ``IndexView`` listed."""
    for name, args in writes:
        getattr(cache, name)(*args)
