"""SQLite's result codes as Python's ``sqlite3`` gives them (``exc.sqlite_errorcode``), named
once: the index's opener (``scan.cachefile``), the export's advice (``export.sqlerrors``) and
the providers' read-only opener (``toolkit.sqlite_ro``) each read them, and wrote their own
numbers before (10 and 13 bare in one place).
"""

from __future__ import annotations

import sqlite3

#: primary result codes (``primary``)
ERROR, BUSY, LOCKED, READONLY, IOERR, CORRUPT, FULL, CANTOPEN, NOTADB = 1, 5, 6, 8, 10, 11, 13, 14, 26
#: an extended code: a hot ``-journal`` (its writer stopped mid-transaction) must be rolled
#: back before anyone reads, and a read-only connection may not
READONLY_ROLLBACK = 776


def primary(exc: BaseException) -> int:
    """``exc``'s primary result code (``sqlite_errorcode & 0xFF``); 0 for anything else."""
    return getattr(exc, "sqlite_errorcode", 0) & 0xFF if isinstance(exc, sqlite3.Error) else 0


def extended(exc: BaseException) -> int:
    """``exc``'s extended result code (``sqlite_errorcode``); 0 for anything else."""
    return getattr(exc, "sqlite_errorcode", 0) if isinstance(exc, sqlite3.Error) else 0
