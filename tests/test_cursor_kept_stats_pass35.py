"""Cursor: a composer's bubble stats are kept under a digest of its rows (``keptstats``), so
a write to ``state.vscdb`` elsewhere (UI state, another composer) does not make every
session's bubbles be decoded again, and a change to a composer's own rows always does."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Iterator

import orjson
import pytest

from agentscan.context import ScanContext
from agentscan.providers.cursor.statedb import StateDb, state_db
from builders import cli_json
from spies import record_calls
from cursor_builders import bubble, composer_data, make_state_db, state_db_path

A = "a3500000-0000-4000-8000-000000000001"
B = "b3500000-0000-4000-8000-000000000002"
T0 = 1_785_000_000_000  # 2026-07-25T17:20:00Z


#: every test of this file reads Cursor alone (``conftest.only_cursor``)
pytestmark = pytest.mark.usefixtures("only_cursor")


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The composers whose bubbles were decoded, in order."""
    return record_calls(monkeypatch, StateDb, "build_stats", lambda db, composer_id, digest=None: composer_id)


def _home(home: Path) -> Path:
    return make_state_db(
        state_db_path(home), wal=True,
        composers=[composer_data(A, name="cart", updated=T0, model="gpt-5", bubbles=["u", "a"]),
                   composer_data(B, name="checkout", updated=T0, model="gpt-5", bubbles=["u", "a"])],
        bubbles={A: [bubble("u", 1, "write the cart"), bubble("a", 2, "done", tokens=(1234, 7), model="gpt-5",
                                                               created="2026-07-25T17:20:05.123456+02:00")],
                 B: [bubble("u", 1, "write the checkout"), bubble("a", 2, "done", tokens=(5, 2), model="gpt-5")]},
    )


@contextmanager
def _cursor_running(db: Path) -> Iterator[sqlite3.Connection]:
    """Cursor's connection, held open: the DB's ``-wal`` is there while it runs."""
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("SELECT count(*) FROM ItemTable").fetchone()
        assert db.with_name(db.name + "-wal").exists()
        yield conn


def _write(conn: sqlite3.Connection, sql: str, *args: object) -> None:
    conn.execute(sql, args)
    conn.commit()


def _answers() -> tuple[dict, list]:
    report = cli_json("tokens")
    rows = cli_json("list")["sessions"]
    return report, [(row["id"], row["title"], row["tokens"], row["counts"], row["model"]) for row in rows]


def test_a_write_elsewhere_decodes_no_bubble_again(isolated_home: Path, builds: list[str]) -> None:
    db = _home(isolated_home)
    with _cursor_running(db) as cursor:
        first = _answers()
        assert sorted(set(builds)) == [A, B]
        builds.clear()
        _write(cursor, "INSERT INTO ItemTable VALUES ('workbench.state', 'x')")  # Cursor's UI state: a new stat
        again = _answers()
        assert builds == []
        assert again == first
        assert cli_json("--no-cache", "tokens")["total"] == first[0]["total"]


def test_a_db_cursor_is_not_writing_keeps_nothing(isolated_home: Path, builds: list[str]) -> None:
    """No ``-wal``: no Cursor running, the next run finds the DB as it is: hashing would only cost."""
    db = _home(isolated_home)
    first = _answers()
    assert not db.with_name(db.name + "-wal").exists()
    os.utime(db, (db.stat().st_atime, db.stat().st_mtime + 10))  # a new stat: rows and sums read again
    builds.clear()
    assert _answers() == first
    assert sorted(set(builds)) == [A, B]


def test_a_changed_bubble_is_decoded_again_even_in_place_at_the_same_length(isolated_home: Path,
                                                                            builds: list[str]) -> None:
    """A plain UPDATE keeps the row's rowid, and this one its length too: only the bytes tell."""
    db = _home(isolated_home)
    running = _cursor_running(db)
    cursor = running.__enter__()
    assert _answers()[0]["total"]["total"] == 1234 + 7 + 5 + 2
    builds.clear()
    changed = orjson.dumps(bubble("a", 2, "done", tokens=(5678, 7), model="gpt-5",
                                  created="2026-07-25T17:20:05.123456+02:00"))
    with closing(sqlite3.connect(db)) as conn:
        (old,) = conn.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (f"bubbleId:{A}:a",)).fetchone()
    assert len(old) == len(changed)
    _write(cursor, "UPDATE cursorDiskKV SET value = ? WHERE key = ?", changed, f"bubbleId:{A}:a")
    report, rows = _answers()
    running.__exit__(None, None, None)
    assert set(builds) == {A}  # B's rows are the same bytes: kept
    assert report["total"]["total"] == 5678 + 7 + 5 + 2
    assert report == cli_json("--no-cache", "tokens")
    assert dict((row[0], row[2]["total"]) for row in rows) == {f"cursor:{A}": 5685, f"cursor:{B}": 7}


def test_kept_stats_say_the_warnings_their_build_said(isolated_home: Path, builds: list[str]) -> None:
    db = _home(isolated_home)
    with _cursor_running(db) as cursor:
        _write(cursor, "INSERT INTO cursorDiskKV VALUES (?, ?)", f"bubbleId:{B}:torn", b'{"type": 2, "tokenCount"')
        cold = cli_json("tokens")
        assert [w["message"] for w in cold["warnings"]] == [f"invalid JSON skipped: bubbleId:{B}:torn"]
        _write(cursor, "INSERT INTO ItemTable VALUES ('workbench.state', 'x')")
        builds.clear()
        warm = cli_json("tokens")
    assert builds == [] and warm["warnings"] == cold["warnings"] and warm["total"] == cold["total"]


def test_a_kept_document_of_another_shape_is_not_taken(isolated_home: Path, builds: list[str]) -> None:
    from agentscan.providers.cursor import keptstats

    db = _home(isolated_home)
    keptstats_version = keptstats.VERSION
    with _cursor_running(db) as cursor:
        first = _answers()
        try:
            keptstats.VERSION = "other"  # as another build of agentscan (its code identity) would be
            _write(cursor, "INSERT INTO ItemTable VALUES ('workbench.state', 'x')")
            builds.clear()
            assert _answers() == first
            assert sorted(set(builds)) == [A, B]
        finally:
            keptstats.VERSION = keptstats_version


def test_stats_come_from_the_bytes_hashed_not_an_earlier_read(isolated_home: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The composers' scan ran earlier in the scan (Cursor may have written since): a legacy
    composer's inline conversation is read from the value hashed with the stats, so what is
    kept under that digest is what those bytes hold."""
    inline = {"bubbleId": "i", "type": 2, "text": "ok", "tokenCount": {"inputTokens": 1000, "outputTokens": 20}}
    make_state_db(state_db_path(isolated_home), composers=[composer_data(A, name="legacy", updated=T0, conversation=[inline])])
    state = state_db(ScanContext(isolated_home, {}))
    monkeypatch.setattr(StateDb, "composers", lambda self: {})  # as if the scan had not seen it yet
    stats = state.build_stats(A)
    assert stats.tokens() is not None and stats.tokens().total == 1020

