"""``doctor``'s check of the index for damage (``PRAGMA quick_check``).

A file damaged past its first pages opens as any other: only a read or a write of a
damaged page fails, and the index takes each such failure for a miss (``scan.indexconn``),
so ``list`` and ``tokens`` stay right, only slower, and say nothing.  Nothing moves such a
file aside (``cachefile.open_index`` does so only when the open itself fails), so
``doctor`` is where it is told, with what to do.  About 40 ms for a 16 MB index.
"""

from __future__ import annotations

import os
import shlex
import sqlite3
import stat
from pathlib import Path

from agentscan.scan.cachefile import BUSY_TIMEOUT, damaged
from agentscan.toolkit.sqlite_ro import read_only_uri


def damage(path: Path) -> str | None:
    """``damaged (<SQLite's words>)`` when the index at ``path`` fails SQLite's quick check,
    else ``None`` (whole, absent, or not checkable: a lock, a read-only folder say nothing
    of the file).  Opened read-only: ``doctor`` changes nothing."""
    if not os.path.isfile(path):  # (never raises: ``Path.is_file`` did on a name too long, a traceback)
        return None
    try:
        conn = sqlite3.connect(read_only_uri(path), uri=True, timeout=BUSY_TIMEOUT)
    except sqlite3.Error:
        return None
    try:
        rows = conn.execute("PRAGMA quick_check(1)").fetchall()
    except sqlite3.Error as exc:
        return f"damaged ({exc})" if damaged(exc) else None
    finally:
        conn.close()
    first = str(rows[0][0]) if rows else "ok"
    # "*** in database main ***\nPage 300: …": the line that names the page
    return None if first == "ok" else f"damaged ({first.splitlines()[-1].strip()})"


def damage_step(path: Path) -> str:
    """What to do about a damaged index: its files removed, the next run makes it anew.
    The ``-wal`` too: one left beside a new file would be played into it."""
    names = " ".join(shlex.quote(f"{path}{suffix}") for suffix in ("", "-wal", "-shm"))
    return ("agentscan reads around the damaged pages (each is a miss: what it held is read from the session "
            "files again, every run), so answers stay right, only slower, and the index is not rebuilt by itself: "
            f"remove it (`rm -f {names}`) and the next run makes it anew (one cold run)")


def shared(directory: Path) -> tuple[str, str] | None:
    """Why a user other than this one could replace the files in the index's folder, and what
    to do, or ``None``: the files agentscan makes are its own (0600), but a folder others may
    write lets them swap the index for one that answers what they like, or put a ``-wal``
    beside it before it is made.  ``None`` on Windows (no such modes) and for a folder not
    made yet."""
    if os.name == "nt":
        return None
    try:
        info = os.stat(directory)
    except OSError:
        return None
    mode = stat.S_IMODE(info.st_mode)
    elsewhere = "point AGENTSCAN_CACHE_DIR at a folder of this user's alone"
    if info.st_uid != os.geteuid():
        return (f"its folder belongs to another user (uid {info.st_uid}), who could replace the index",
                f"{elsewhere} (or have that user give this one the folder)")
    if mode & stat.S_ISVTX and mode & 0o002:
        # A shared folder such as /tmp: others may not replace a file of this user's there,
        # but may put one beside it; chmod on it would take it from everyone else.
        return (f"others can put files in its folder (mode {mode:04o}, a shared folder), beside the index",
                elsewhere)
    if mode & 0o022:
        return (f"others can write its folder (mode {mode:04o}), so they could replace the index",
                f"make the folder this user's alone (`chmod 700 {shlex.quote(str(directory))}`), or {elsewhere}")
    return None
