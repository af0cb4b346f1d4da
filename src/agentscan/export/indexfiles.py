"""The files an SQLite export makes beside the index and the index a first run makes: a
journal of this user's in a sticky folder, removed when empty, and a new index removed when
its first run failed."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def size_of(path: Path) -> int | None:
    """The size of ``path`` when it is a regular file (``0``: a file of no index yet), else
    ``None`` (gone, a folder, unreadable)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_size if stat.S_ISREG(found.st_mode) else None


def own_journal(path: Path) -> Path | None:
    """In a sticky world-writable folder (``/tmp``), the index's ``-journal`` made this user's
    (0600) before SQLite opens it, and kept for the whole run (``journal_mode=TRUNCATE``):
    SQLite deletes a ``DELETE`` journal at each commit and opens the next without ``O_EXCL``,
    so another user's file planted between two transactions would receive the index's pages,
    or be rolled back into it (docs/security.md).  ``None`` elsewhere.  One of this user's
    already there (a killed run's) is kept: SQLite rolls it back."""
    from agentscan.toolkit.atomicfile import refuse_planted_beside, sticky_owner

    if sticky_owner(path) is None:
        return None
    journal = Path(f"{path}-journal")
    from agentscan.filemodes import open_private

    try:
        os.close(open_private(journal, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        refuse_planted_beside(path, ("-journal",))
    return journal


def identity(path: Path) -> tuple[int, int] | None:
    """The regular file at ``path`` (device and inode; ``None``: none, or a link)."""
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return (found.st_dev, found.st_ino) if stat.S_ISREG(found.st_mode) else None


def remove_new(path: Path, made: tuple[int, int] | None) -> None:
    """The index a first run made, removed when the run failed (a full disk, ``ulimit -f``, a
    signal): its schema was half made (SQLite commits each table as it is created), so a
    dashboard pointed at it failed on a missing table, and the next export recorded the first
    migration without the full-text index it had not reached.  Only the file this run made
    (not a link, nor one put there since), with its journal."""
    if made is None or identity(path) != made:
        return
    for leftover in (path, Path(f"{path}-journal")):
        try:
            os.unlink(leftover)
        except OSError:
            pass


def drop_empty(journal: Path) -> None:
    """The journal ``own_journal`` kept, removed once the run is over and it holds nothing
    (a journal with content is a write to roll back: left for SQLite)."""
    try:
        if os.lstat(journal).st_size == 0:
            os.unlink(journal)
    except OSError:
        pass
