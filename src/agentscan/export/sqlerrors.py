"""What to do next when SQLite refused to write the index: the hint after its own words.

SQLite's message names the database whatever file was the problem (``attempt to write a
readonly database`` for another user's ``-shm``), and a damaged file's (``database disk
image is malformed``, ``vtable constructor failed: sessions_fts``) said nothing of what to
do.  The file is always left as it was: the index is the only copy of its history.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

#: SQLite's primary result codes (``sqlite_errorcode & 0xFF``)
_BUSY, _READONLY, _CANTOPEN, _CORRUPT, _NOTADB = 5, 8, 14, 11, 26


def next_step(exc: sqlite3.Error, path: Path, busy_timeout: float) -> str:
    """``; <what to do>`` for ``exc``, raised writing the index at ``path``, or ``''``."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    if code == _CORRUPT:
        return (f"; the index is damaged, and is left as it is: move it aside (`mv {path} {path}.damaged`) and "
                f"export again to make it anew from what is on disk (sessions no longer there, and their "
                f"history, are not in the new one), or recover what it holds (`sqlite3 {path}.damaged .recover "
                f"| sqlite3 {path}`)")
    if code == _NOTADB:
        return ("; it is not an SQLite database (or its first page is damaged): give another --output, or, if it "
                "was your index, move it aside and export again to make it anew")
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
