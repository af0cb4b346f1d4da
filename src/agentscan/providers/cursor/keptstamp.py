"""The state DB's stamp (its and its ``-wal``'s stat, as a session's fingerprint takes them) and
the index's keys of what ``keptheaders`` and ``keptfamily`` keep with it; and whether what is kept
is of the DB as it is now (``kept_at_stamp``, for the DB's own warning: ``statedb_reader``).
Apart from both, which read the DB: the reader asks this without importing them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.context import ScanContext

HEADERS_KIND = "cursor.header_workspaces"
HEADERS_VERSION = "1"
FAMILY_KIND = "cursor.family_links"
# 2: each composer's name too (``keptfamily.Links``; its update time is a fifth entry, which a
# value kept before lacks: read without it, not refused, so links kept before an upgrade still
# list a locked DB's chats)
# 3: an update time from a bubble's ``timingInfo`` too, walked back up to 8 bubbles (Cursor
# parser 22-23): links kept at an unchanged DB by older code kept the composer's older time
FAMILY_VERSION = "3"


def path_stamp(db_path: Path, ctx: ScanContext) -> str:
    """The stamp of the DB at ``db_path``: its and its ``-wal``'s stats, as a fingerprint takes them."""
    from agentscan.toolkit.sqlite_ro import with_wal

    parts = []
    for path in with_wal(db_path):
        stat = ctx.stat(path)
        parts.append("-" if stat is None else f"{stat.st_size}\0{stat.st_mtime_ns}\0{stat.st_ino}\0{stat.st_ctime_ns}")
    return "\n".join(parts)


def db_key(path: str) -> str:
    """The index's key of a DB's kept headers: a digest of its path's bytes, as a path that is
    not UTF-8 (``CURSOR_STATE_DB`` of a Latin-1 folder) cannot be stored as text."""
    from hashlib import blake2b

    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # (a lone surrogate that is no escaped byte)
        raw = path.encode("utf-8", "surrogatepass")
    return "cursor-headers:" + blake2b(raw, digest_size=16).hexdigest()


def family_key(path: str) -> str:
    """The index's key of a DB's kept composer links (``keptfamily``), beside its headers'."""
    return db_key(path) + ":family"


def kept_at_stamp(ctx: ScanContext, path: Path) -> bool:
    """Whether the index keeps what a run read of the state DB at ``path`` with the DB at the
    stamp it has now (its links, or ``keptheaders``' headers): the DB is then unchanged since its
    last read, whatever made it unreadable now (a lock, the query deadline on a big DB, an I/O
    error), and the figures kept of a session unchanged since are still its figures.  A DB
    damaged since has another stamp: nothing kept is of it."""
    return family_at_stamp(ctx, path) or _at_stamp(ctx, path, db_key(str(path)), HEADERS_KIND, HEADERS_VERSION)


def family_at_stamp(ctx: ScanContext, path: Path) -> bool:
    """Whether the index keeps the composer links (``keptfamily``) a run read of the DB at
    ``path`` with the DB at the stamp it has now: the chats only it holds are then listed as that
    read found them (``children``), and its warning says so (``dbonly.left_out_words``)."""
    return _at_stamp(ctx, path, family_key(str(path)), FAMILY_KIND, FAMILY_VERSION)


def _at_stamp(ctx: ScanContext, path: Path, key: str, kind: str, version: str) -> bool:
    cache = ctx.file_cache
    if cache is None:
        return False
    stored = cache.get_file(key, kind)
    return stored is not None and stored[2] == version and stored[3] == path_stamp(path, ctx)
