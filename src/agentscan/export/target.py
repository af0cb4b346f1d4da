"""What an export's output must be before anything is read or written: a file the format
would not ruin (``check_target``), and one this user can write where it is (``check_writable``);
both, with the file the output leads to, in ``checked_target``.

Both run before the scan (a cron job learns at once, not after minutes of reading) and
again under the output's lock; each failure is one line naming the file or the folder
that is the problem, and leaves the output as it was.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from agentscan.errors import ExportFailed

#: how every SQLite database starts (its header string)
SQLITE_HEADER = b"SQLite format 3\x00"
#: the files SQLite keeps beside a database while it writes it (a rollback journal) or
#: while it is open in WAL mode (an index an older agentscan wrote)
SIDE_FILES = ("-journal", "-wal", "-shm")


def check_target(fmt: str, output: Path) -> None:
    """Refuse an output that the format would ruin: an SQLite index (its ``first_seen_at`` and
    ``gone_at`` history, kept nowhere else) replaced by a JSON Lines or CSV file, or a FIFO or
    device given to SQLite, which needs a file it can update in place."""
    try:
        found = os.stat(output)
    except OSError:
        return  # none yet (or unreadable: the write says why)
    if not stat.S_ISREG(found.st_mode):
        if fmt == "sqlite":
            raise ExportFailed(f"{output} is not a regular file: --format sqlite updates a file in place")
        return  # a FIFO, /dev/null: written into (``toolkit.atomicfile``)
    if fmt == "sqlite":
        _check_own_index(output, found.st_size)
        return
    try:
        with open(output, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except OSError:
        return
    if head == SQLITE_HEADER:
        raise ExportFailed(f"{output} is an SQLite database (an `export -f sqlite` index?); a {fmt} export "
                           "would replace it: give another --output, or remove it first")


#: columns only agentscan's ``sessions`` table has together (an index older than its migrations)
_LEGACY_COLUMNS = {"native_id", "first_seen_at", "last_seen_at", "gone_at"}


def _check_own_index(output: Path, size: int) -> None:
    """An SQLite export updates ``output`` in place: refuse a database of someone else's
    (an agent's own ``state.vscdb``, an app's), which it would change for good (its tables,
    its journal mode).  An empty file, or one agentscan wrote, is fine; a file that is not
    SQLite at all fails when it is opened ("file is not a database")."""
    if size == 0:
        return
    import sqlite3

    from agentscan.errors import DatabaseUnavailable
    from agentscan.export.migrations import MIGRATIONS_TABLE
    from agentscan.toolkit.sqlite_ro import connect_readonly, table_columns

    try:
        with open(output, "rb") as handle:
            if handle.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                return
        # As a provider database is opened: a plain ``mode=ro`` open of a WAL database
        # whose -wal/-shm are absent creates them, beside the very file this guards.
        conn = connect_readonly(output)
        try:
            tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            # An index from before migrations were recorded has agentscan's sessions table alone.
            columns = set(table_columns(conn, "sessions"))
        finally:
            conn.close()
    except (OSError, sqlite3.Error, DatabaseUnavailable):
        return  # the write says why
    if tables and MIGRATIONS_TABLE not in tables and not _LEGACY_COLUMNS <= columns:
        raise ExportFailed(f"{output} is an SQLite database agentscan did not write (no {MIGRATIONS_TABLE} table); "
                           "an export would change it: give another --output")


def _access(path: Path, mode: int) -> bool:
    """``os.access`` (a seam for tests: root passes every permission check)."""
    return os.access(path, mode)


def check_writable(fmt: str, output: Path, target: Path) -> None:
    """``ExportFailed`` naming what this user cannot write that the export of ``output`` needs
    (``target``: the file it lands on, through its links): the file itself (JSON Lines and
    CSV are refused too, as SQLite is: a file left read-only was not silently replaced), its
    folder (a JSON Lines or CSV file is written beside it and renamed over it; SQLite keeps its
    journal there), or a file SQLite keeps beside an index (another user's ``-shm``, left by
    a reader that opened an index an older agentscan wrote in WAL mode).  ``os.access``:
    nothing is created.  A FIFO or device is written into: its open says what is wrong."""
    if fmt == "sqlite":  # before its access checks: a planted 0666 journal passes them
        from agentscan.toolkit.atomicfile import refuse_planted_beside

        refuse_planted_beside(target, SIDE_FILES)
    problem = writable_problem(fmt, target, output)
    if problem is not None:
        raise ExportFailed(f"cannot write {output}: {problem}")


def writable_problem(fmt: str, target: Path, output: Path | None = None) -> str | None:
    """``check_writable``'s reason, in words, or ``None`` (``output``: the path given, when
    ``target`` is where its links lead)."""
    try:
        found = os.stat(target)
    except FileNotFoundError:
        found = None
    except OSError:
        return None  # a folder above it cannot be searched: the write says so
    if found is not None and not stat.S_ISREG(found.st_mode):
        return None
    from agentscan.toolkit.atomicfile import own_descriptor

    if own_descriptor(target) is not None:
        return None  # written into as the shell opened it (``2>>log``): neither its mode nor its folder matters
    if found is not None and not _access(target, os.W_OK):
        which = "the file" if output is None or output == target else f"{target}, where it leads,"
        why = _refusal(target, found)
        # chmod mends only the user's own file's mode: a read-only mount or another's file it cannot.
        mend = ("make it writable (chmod u+w), or " if why.startswith("permission denied: mode")
                else "mount it read-write, or " if why == READ_ONLY else "")
        return f"{which} cannot be written ({why}): {mend}give another --output; it is left as it is"
    folder = target.parent
    if not _access(folder, os.W_OK | os.X_OK):
        beside = ("SQLite writes its journal beside the file" if fmt == "sqlite"
                  else "the new file is written beside the old one, then renamed over it")
        return f"its folder {folder} cannot be written ({_refusal(folder, None)}): {beside}"
    if fmt != "sqlite":
        return None
    refused = []
    for suffix in SIDE_FILES:
        side = Path(f"{target}{suffix}")
        try:
            held = os.lstat(side)
        except OSError:
            continue
        if not _access(side, os.R_OK | os.W_OK):
            refused.append(f"{side} cannot be written ({_refusal(side, held)}): {_left_by(suffix, held)}")
    if refused:  # every one named: removing one to meet the next failed run was a round trip each
        return "SQLite must write the files it keeps beside the index to open it; " + "; ".join(refused)
    return None


#: ``_refusal``'s words for a file system mounted read-only
READ_ONLY = "read-only file system"


def _refusal(path: Path, found: os.stat_result | None) -> str:
    """Why ``path`` cannot be written, in words: a read-only file system, another user's
    file, or its mode."""
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return READ_ONLY
    except (OSError, AttributeError):  # no statvfs on Windows
        pass
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    if found is not None and uid is not None and found.st_uid != uid:
        return f"permission denied: owned by uid {found.st_uid}, mode {stat.S_IMODE(found.st_mode):04o}"
    if found is not None:
        return f"permission denied: mode {stat.S_IMODE(found.st_mode):04o}"
    return "permission denied"


def _left_by(suffix: str, held: os.stat_result) -> str:
    """What to do about a file SQLite keeps beside the index that this user cannot write."""
    if suffix == "-shm" or (suffix == "-wal" and held.st_size == 0):
        return "remove it once nothing has the index open (it holds nothing SQLite cannot make again)"
    if suffix == "-wal":
        return ("it holds changes not yet in the index: let its owner open the index once (`sqlite3 FILE "
                "'PRAGMA wal_checkpoint'`), or make it yours")
    return "it is a journal left by a write that was stopped: let its owner open the index once, or make it yours"


def checked_target(fmt: str, output: Path) -> Path:
    """The file ``output`` (expanded) leads to, once ``export``'s checks that need no lock
    pass (``ExportFailed``: a folder, a missing folder, a loop of links, a file or folder this
    user cannot write, an index a CSV export would replace).  Made before the scan too
    (``run_export``: a mistyped folder was heard of only after every session had been read,
    5 s on a heavy home), and again by ``export`` (a library caller's, or the output changed)."""
    from agentscan.export.files import place_problem
    from agentscan.toolkit.atomicfile import output_target, own_descriptor

    problem = place_problem(output)
    if problem is not None:
        raise ExportFailed(problem)
    # SQLite opens a path by name and follows links: the file it updates is the one
    # ``atomic_write`` would replace, reached only through links no one else planted.
    try:
        target = output_target(output)
    except OSError as exc:  # a loop of links
        raise ExportFailed(f"cannot write {output}: {exc.strerror or exc}") from None
    if fmt == "sqlite" and own_descriptor(output) is not None:
        # Opened by name beside its journal, ``/proc/<pid>/fd/N-journal``: no such file can be made.
        raise ExportFailed(f"{output} is a descriptor of this process (a pipe or a shell's redirection): --format "
                           "sqlite updates a file in place by its name; give that file's path")
    check_target(fmt, output)
    check_writable(fmt, output, target)
    return target
