"""doctor's STATUS of a database read without its -wal says so, not ``ok`` (pass 52).

A Cursor state DB (or Codex thread index) whose -shm is gone is read from its main file
alone: the finding and the warning said its latest changes are missing, while the STATUS
column beside them said ``database  ok``."""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import invoke
from codex_builders import at, index_row
from cursor_builders import bubble, composer_data, make_state_db, state_db_path, state_db_with_unread_wal
from test_codex_index_pass49 import A, B, _rollouts, _wal_only

STATUS = "read without its -wal (latest changes missing)"
W = "a5200000-0000-4000-8000-0000000000c3"


def _database(provider: str) -> dict:
    doctor = orjson.loads(invoke("doctor", "--json").stdout)
    (found,) = [p for p in doctor["providers"] if p["provider"] == provider]
    (database,) = [root for root in found["roots"] if root["kind"] == "database"]
    return database


def _status_line(provider_label: str) -> str:
    text = invoke("doctor").stdout
    section = text[text.index(provider_label):]
    return next(line for line in section.splitlines() if line.strip().startswith("database"))


def test_a_cursor_db_read_without_its_wal(isolated_home: Path) -> None:
    state_db_with_unread_wal(isolated_home, composers=[composer_data(A, name="old chat", bubbles=["u"])],
                             bubbles={A: [bubble("u", 1, "hello", tokens=(10, 20))]},
                             in_wal=[(f"composerData:{W}", orjson.dumps(composer_data(W, name="newest", bubbles=["w"])))])
    database = _database("cursor")
    assert (database["readable"], database["problem"]) == (True, STATUS)
    assert STATUS in _status_line("Cursor [cursor]")


def test_a_codex_index_read_without_its_wal(isolated_home: Path, tmp_path: Path) -> None:
    codex = isolated_home / ".codex"
    paths = _rollouts(codex)
    _wal_only(codex, tmp_path, checkpointed=[index_row(A, paths[A], created=at(0), updated=at(5))],
              in_wal=[index_row(B, paths[B], created=at(100), updated=at(105))])
    database = _database("codex")
    assert (database["readable"], database["problem"]) == (True, STATUS)
    assert STATUS in _status_line("Codex CLI [codex]")


def test_a_whole_database_is_ok(isolated_home: Path) -> None:
    make_state_db(state_db_path(isolated_home), composers=[composer_data(A, name="chat", bubbles=["u"])],
                  bubbles={A: [bubble("u", 1, "hello", tokens=(10, 20))]})
    assert (_database("cursor")["readable"], _database("cursor")["problem"]) == (True, None)
    assert " ok " in _status_line("Cursor [cursor]")


def test_the_wal_is_looked_at_once_a_read(isolated_home: Path, monkeypatch) -> None:  # noqa: ANN001
    """``StateDbReader`` asks ``unread_wal`` when it opens the DB, and its status reuses the answer
    (it stat'ed the -wal and -shm again); the WAL-mode header test is one function."""
    from agentscan.context import ScanContext
    from agentscan.providers.cursor import statedb_reader
    from agentscan.providers.cursor.statedb import state_db
    from agentscan.toolkit import sqlite_ro

    make_state_db(state_db_path(isolated_home), composers=[composer_data(A, name="chat", bubbles=["u"])],
                  bubbles={A: [bubble("u", 1, "hello", tokens=(10, 20))]})
    asked: list[Path] = []
    original = statedb_reader.unread_wal
    monkeypatch.setattr(statedb_reader, "unread_wal", lambda path: asked.append(path) or original(path))
    db = state_db(ScanContext.create(home=isolated_home))
    db.composers()
    assert db.status().endswith("used)") and db.caveat() is None
    assert len(asked) == 1
    assert sqlite_ro._in_wal_mode(b"\0" * 18 + b"\2\2") and not sqlite_ro._in_wal_mode(b"\0" * 18 + b"\1\1")
