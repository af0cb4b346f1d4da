"""While Cursor's state DB is locked, an export writes what the index keeps whole of a chat
with usage, and says what it holds out and why (pass 55).

A chat whose usage the index kept from a run that read the DB, unchanged since, showed its
figures in ``list`` and ``tokens`` but was held out of every JSON Lines and CSV export ("could
not be read", pointing at warnings that named no file of its).  It is written now when its row
and sums are kept (and, for an export of days, its calls); one whose calls are not kept is held
out with a warning naming the DB and the lock.  Three leaks of the rule are closed with it:
calls read while the DB was locked were kept (``[]``), so once the lock was gone an export of
the unchanged DB wrote no days and no cost; a row rebuilt without the DB (no tokens) of a chat
whose kept sums had usage was written and listed as "recorded no usage"; and a kept row with
usage made ``tokens`` call a chat whose sums were not kept "recorded no usage"."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from test_cursor_locked_kept_none_pass54 import QUIET, SPENT, _home

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

HELD = "held out: its usage is kept in"
LOCKED = "database is locked by Cursor or another program; try again in a moment, or close Cursor"


def _ok(result) -> str:  # noqa: ANN001 - click's Result
    assert result.exit_code == 0, result.stderr
    return " ".join(result.stderr.split())


def _lines(result) -> dict[str, dict]:  # noqa: ANN001
    return {line.get("native_id") or line["session_id"]: line for line in map(orjson.loads, result.stdout.splitlines())}


def test_a_kept_chat_with_usage_is_exported_while_the_db_is_locked(isolated_home: Path, tmp_path: Path) -> None:
    db = _home(isolated_home)
    assert invoke("list").exit_code == 0  # rows and sums kept, read with the DB
    with LiveWriter("exclusive", db):
        jsonl = invoke("export", "-f", "jsonl", "-o", "-")
        csv = invoke("export", "-f", "csv", "-o", "-")
        days = invoke("export", "-f", "jsonl", "--days", "-o", "-")
    lines = _lines(jsonl)
    assert "locked" in _ok(jsonl) and HELD not in _ok(jsonl)
    assert lines[SPENT]["tokens"]["total"] == 120 and lines[SPENT]["cost_usd"] is not None
    assert lines[SPENT]["title"] == "spent chat" and not lines[SPENT].get("tokens_unknown")
    assert lines[QUIET]["tokens"] is None
    assert f"cursor:{SPENT}" in csv.stdout and HELD not in _ok(csv)
    # Its days need its calls, which no run kept: held out, and said so, naming the DB.
    said = _ok(days)
    assert days.stdout == "", days.stdout
    assert f"1 Cursor session {HELD} {db}, which could not be read this run ({LOCKED}), and no run that read it since " \
        "it was last changed kept its row, sums and calls (for the days): it is not in this export" in said, said
    assert "could not be read this run (see the warnings" not in said
    out = tmp_path / "index.sqlite"
    assert invoke("export", "-f", "sqlite", "-o", str(out)).exit_code == 0  # its calls kept now
    with LiveWriter("exclusive", db):
        days = invoke("export", "-f", "jsonl", "--days", "-o", "-")
        index = invoke("export", "-f", "sqlite", "-o", str(tmp_path / "fresh.sqlite"))
    assert _lines(days)[f"cursor:{SPENT}"]["tokens"]["total"] == 120 and HELD not in _ok(days)
    assert HELD not in _ok(index)
    with closing(sqlite3.connect(tmp_path / "fresh.sqlite")) as conn:
        assert conn.execute("SELECT tokens_total FROM token_days").fetchall() == [(120,)]


def test_calls_read_while_the_db_was_locked_are_not_kept(isolated_home: Path, tmp_path: Path) -> None:
    db = _home(isolated_home)
    assert invoke("tokens").exit_code == 0  # sums kept, no calls
    with LiveWriter("exclusive", db):
        _ok(invoke("export", "-f", "jsonl", "--days", "-o", "-"))  # its calls read without the DB
    # The lock let go, the DB as it was (the same fingerprint): its calls are read again.
    days = invoke("export", "-f", "jsonl", "--days", "-o", "-")
    assert _lines(days)[f"cursor:{SPENT}"]["tokens"]["total"] == 120
    out = tmp_path / "index.sqlite"
    assert invoke("export", "-f", "sqlite", "-o", str(out)).exit_code == 0
    with closing(sqlite3.connect(out)) as conn:
        assert conn.execute("SELECT cost_usd IS NOT NULL FROM sessions WHERE id = ?", (f"cursor:{SPENT}",)).fetchone() == (1,)
        assert conn.execute("SELECT tokens_total FROM token_days").fetchall() == [(120,)]


def test_a_row_built_without_the_db_is_not_told_as_no_usage(isolated_home: Path) -> None:
    db = _home(isolated_home)
    assert invoke("tokens", "--by", "day").exit_code == 0  # its sums kept (120 tokens), no row
    with LiveWriter("exclusive", db):
        listed = invoke("list", "--json")
        exported = invoke("export", "-f", "jsonl", "-o", "-")
    rows = {row["native_id"]: row for row in orjson.loads(listed.stdout)["sessions"]}
    # (not "recorded no usage": its tokens are its kept sums', ``test_cursor_locked_sums_row_pass55``)
    assert rows[SPENT]["tokens"]["total"] == 120 and "tokens_unknown" not in rows[SPENT]
    assert rows[QUIET]["tokens"] is None and "tokens_unknown" not in rows[QUIET]  # its kept sums have no call
    lines = _lines(exported)
    assert SPENT not in lines and QUIET in lines  # no row of null tokens for a chat of 120
    assert f"1 Cursor session {HELD} {db}, which could not be read this run ({LOCKED}), and no run that read it since " \
        "it was last changed kept its row and sums: it is not in this export" in _ok(exported)


def test_a_kept_row_with_usage_is_not_told_as_no_usage_by_tokens(isolated_home: Path) -> None:
    db = _home(isolated_home)
    assert invoke("list").exit_code == 0
    with closing(sqlite3.connect(_index(isolated_home))) as conn:  # its sums forgotten, its row kept
        conn.execute("DELETE FROM usage")
        conn.execute("DELETE FROM snapshots")
        conn.execute("DELETE FROM report_rows")
        conn.commit()
    with LiveWriter("exclusive", db):
        table = invoke("tokens")
    said = _ok(table)
    assert f"could not be read, not counted: cursor:{SPENT}" in said, said
    assert f"recorded no usage, not counted: cursor:{QUIET})" in said, said


def _index(home: Path) -> Path:
    return home.parent / "agentscan-cache" / "index.sqlite"  # (``isolated_home``'s AGENTSCAN_CACHE_DIR)


@pytest.mark.parametrize("table", ["usage", "calls"])
def test_sums_or_calls_kept_at_an_older_fingerprint_hold_a_chat_out(isolated_home: Path, tmp_path: Path,
                                                                    table: str) -> None:
    # Its row kept at the chat's fingerprint as it is, its sums (or its calls, for the days) at
    # an older one (read before the chat or the DB last changed): they are not its figures now,
    # and what is written of it under the lock would be (``unreadrows.kept_whole``).
    db = _home(isolated_home)
    assert invoke("list").exit_code == 0
    assert invoke("export", "-f", "sqlite", "-o", str(tmp_path / "index.sqlite")).exit_code == 0  # its calls too
    with closing(sqlite3.connect(_index(isolated_home))) as conn:
        conn.execute(f"UPDATE {table} SET fingerprint = 'read before the chat changed' WHERE session_id = ?",
                     (f"cursor:{SPENT}",))
        assert conn.total_changes == 1
        conn.commit()
    with LiveWriter("exclusive", db):
        exported = invoke("export", "-f", "jsonl", "--days", "-o", "-")
    said = _ok(exported)
    assert f"1 Cursor session {HELD} {db}" in said, said
    assert f"cursor:{SPENT}" not in exported.stdout
