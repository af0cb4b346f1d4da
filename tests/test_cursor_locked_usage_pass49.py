"""A Cursor session whose usage is in a locked ``state.vscdb`` could not be read this run (pass 49).

Another program holding the DB's write lock (``BEGIN EXCLUSIVE``: SQLite's "database is
locked") is temporary.  ``tokens`` said the session "recorded no usage", and an SQLite export
run meanwhile wrote its ``tokens_total`` as NULL and deleted its ``token_days``.  Now it is
told as a session that could not be read, and the export keeps its last row, as for a file it
could not read (docs/cron.md).  A DB broken for good (not SQLite) holds back nothing, as before.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import refund_chat

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

S = "11111111-aaaa-4bbb-8ccc-000000000049"
T0 = 1_780_000_000_000
LOCKED = "database is locked by Cursor or another program"


def _home(home: Path) -> Path:
    return refund_chat(home, S, T0)[0]


def test_tokens_says_the_session_could_not_be_read(isolated_home: Path) -> None:
    db = _home(isolated_home)
    assert invoke("tokens").exit_code == 0  # its sums kept
    _cursor_writes(db)
    with LiveWriter("exclusive", db):
        table = invoke("tokens")
        report = invoke("tokens", "--json")
        asked = invoke("tokens", S[:8])
    assert table.exit_code == 0, table.stderr
    said = " ".join(table.stderr.split())
    assert f"(+ 1 session that could not be read, not counted: cursor:{S}" in said, said
    assert "recorded no usage" not in said
    document = orjson.loads(report.stdout)
    assert document["rows"] == []  # no row of "null": its usage is not known
    # Asked for by its id, it fails as ``show`` of an unreadable session does (exit 1).
    assert asked.exit_code == 1
    assert f"cannot read cursor:{S}: {db}: {LOCKED}; try again in a moment, or close Cursor" in asked.stderr


def test_a_db_broken_for_good_still_holds_back_nothing(isolated_home: Path, tmp_path: Path) -> None:
    db = _home(isolated_home)
    db.write_bytes(b"not a database at all" * 10)
    table = invoke("tokens")
    assert table.exit_code == 0, table.stderr
    said = " ".join(table.stderr.split())
    # its usage is the DB's, so not known (pass 52: was "recorded no usage"), as while locked
    assert f"(+ 1 session that could not be read, not counted: cursor:{S}" in said, said
    # but an export writes its row: a DB broken for good must not keep it out of every export
    out = tmp_path / "index.db"
    assert invoke("export", "--format", "sqlite", "-o", str(out)).exit_code == 0
    assert _index(out)[0] == [(f"cursor:{S}", None)]


def _cursor_writes(db: Path) -> None:
    """A write elsewhere in the DB (UI state), as Cursor makes them all the time."""
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("INSERT INTO ItemTable VALUES ('workbench.ui.state', 'x')")
        conn.commit()


def _index(path: Path) -> tuple[list[tuple], list[tuple]]:
    with closing(sqlite3.connect(path)) as conn:
        rows = conn.execute("SELECT id, tokens_total FROM sessions").fetchall()
        days = conn.execute("SELECT session_id, day, tokens_total FROM token_days").fetchall()
    return rows, days


def test_an_export_keeps_the_last_row_and_days_while_the_db_is_locked(isolated_home: Path, tmp_path: Path) -> None:
    db = _home(isolated_home)
    out = tmp_path / "index.sqlite"
    first = invoke("export", "--format", "sqlite", "-o", str(out))
    assert first.exit_code == 0, first.stderr
    before = _index(out)
    assert before == ([(f"cursor:{S}", 54_130)], [(f"cursor:{S}", "2026-05-28", 54_130)])
    _cursor_writes(db)  # the kept row and sums are not the DB's now: read again
    with LiveWriter("exclusive", db):
        locked = invoke("export", "--format", "sqlite", "-o", str(out), "-p", "cursor")
        strict = invoke("--strict", "export", "--format", "sqlite", "-o", str(out))
    assert locked.exit_code == 0, locked.stderr
    assert _index(out) == before  # not NULL, its days not deleted
    said = " ".join(locked.stderr.split())
    # (pass 55: the DB and the lock named, not "see the warnings naming its file": none does)
    assert f"1 Cursor session held out: its usage is kept in {db}, which could not be read this run" in said, said
    assert "no Cursor session" not in locked.stdout, locked.stdout  # it is there, left as it was
    assert strict.exit_code == 1
    again = invoke("export", "--format", "sqlite", "-o", str(out))  # the lock gone: written whole
    assert again.exit_code == 0 and _index(out) == before
