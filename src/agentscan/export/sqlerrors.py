"""What to do next when SQLite refused to write the index: the hint after its own words.

SQLite's message names the database whatever file was the problem (``attempt to write a
readonly database`` for another user's ``-shm``), and a damaged file's (``database disk
image is malformed``, ``vtable constructor failed: sessions_fts``) said nothing of what to
do.  The file is always left as it was: the index is the only copy of its history.
"""

from __future__ import annotations

import errno
import shlex
import sqlite3
from pathlib import Path

from agentscan.export.indexfiles import size_of
from agentscan.toolkit.sqlitecodes import BUSY as _BUSY, CANTOPEN as _CANTOPEN, CORRUPT as _CORRUPT, FULL as _FULL
from agentscan.toolkit.sqlitecodes import IOERR as _IOERR, NOTADB as _NOTADB, READONLY as _READONLY, primary


def next_step(exc: sqlite3.Error, path: Path, busy_timeout: float, *, fresh: bool = False,
              was_empty: bool = False) -> str:
    """``; <what to do>`` for ``exc``, raised writing the index at ``path`` (``fresh``: made by
    this run; ``was_empty``: a file of no bytes before it), or ``''``."""
    code = primary(exc)
    if code == _CORRUPT:
        return (f"; the index is damaged, and is left as it is: move it aside (`mv {path} {path}.damaged`) and "
                f"export again to make it anew from what is on disk (sessions no longer there, and their "
                f"history, are not in the new one), or recover what it holds (`sqlite3 {path}.damaged .recover "
                f"| sqlite3 {path}`)")
    if code == _NOTADB:
        return ("; it is not an SQLite database (or its first page is damaged): give another --output, or, if it "
                "was your index, move it aside and export again to make it anew")
    if code in (_FULL, _IOERR):
        # A full disk (``database or disk is full``), or a write the system refused (a file
        # size limit, a quota, a failing disk: ``disk I/O error``).  SQLite rolled the
        # transaction back: an hourly job's user needs to hear that the index is whole.
        journal = Path(f"{path}-journal")
        played = (f" (its {journal.name}, left beside it, is played back by the next export or reader)"
                  if _holds_pages(journal) else "")
        cause = "the disk is full" if code == _FULL else REFUSED
        left = "the new index was removed" if fresh else f"the index was left as it was{played}"
        if was_empty and (size_of(path) or 0) > 0:
            # SQLite commits each table as it is made: the tables made before the failure stay
            # (the file is the user's, not removed); the next export makes the rest.
            return (f"; {cause}: {path.name} was empty, and now holds part of an index (the tables made before "
                    f"the failure, no sessions); the next export completes it{free_space(path, full=code == _FULL)}")
        return f"; {cause}: nothing of this run was kept, and {left}{free_space(path, full=code == _FULL)}"
    if code == _BUSY and getattr(exc, "at_commit", False):
        return (f"; a reader kept a query open on it longer than {busy_timeout:g} s (a dashboard's read left "
                "unfinished, a `sqlite3` shell's BEGIN), so this run could not commit: nothing was changed; "
                "--lock-timeout S waits longer")
    if code == _BUSY:
        return (f"; another program held it for writing longer than {busy_timeout:g} s (a reader writing its own "
                "tables, a long query): --lock-timeout S waits longer")
    if code in (_READONLY, _CANTOPEN):
        from agentscan.export.target import writable_problem

        problem = writable_problem("sqlite", path)
        return f" ({problem})" if problem else ""
    return ""


#: ``OSError`` numbers of a write that found no room: the disk, a quota, ``ulimit -f``
NO_ROOM = frozenset(getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG") if hasattr(errno, name))


#: why a write the system refused was refused, when it may not be a full disk: ``EFBIG`` is a
#: file-size limit (``ulimit -f``), ``EDQUOT`` a quota, SQLite's ``disk I/O error`` any of them
REFUSED = "the system refused a write (a full disk, a quota, a size limit)"


def free_space(path: Path, *, full: bool = True) -> str:
    """``; free space in <folder> (…) and export again``: the step after a write that found no
    room.  Not ``full`` (a quota, a size limit may have stopped it: freeing space would not
    help): the limit is named too."""
    folder = f"{path.parent} (`df -h {shlex.quote(str(path.parent))}`)"
    if full:
        return f"; free space in {folder} and export again"
    return f"; free space in {folder}, or raise the quota or file-size limit (`ulimit -f`), and export again"


def no_room_step(errno_: int | None, path: Path) -> str:
    """``; <why>; <what to do>`` after an ``OSError`` ``errno_`` (one of ``NO_ROOM``) writing a
    file at ``path``: a full disk is said to be one, a quota or a size limit as SQLite's is."""
    if errno_ == errno.ENOSPC:
        return free_space(path)
    return f"; {REFUSED}{free_space(path, full=False)}"


def _holds_pages(journal: Path) -> bool:
    """Whether a ``-journal`` was left with pages to play back: one an export owns in a sticky
    folder (``journal_mode=TRUNCATE``) is emptied by a rollback, and removed after."""
    try:
        return journal.stat().st_size > 0
    except OSError:
        return False
