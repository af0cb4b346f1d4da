"""The SQLite export evolves: an existing database is upgraded in place, keeping every row."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.export import migrations
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()
S1 = "a1a1a1a1-1111-4222-8333-444444444444"

# The DDL agentscan 0.1 wrote before migrations existed (copied from a real
# export of that release: sqlite-utils' own quoting and FTS triggers).
LEGACY_SCHEMA = """
CREATE TABLE [sessions] (
   [id] TEXT PRIMARY KEY, [provider] TEXT, [native_id] TEXT, [path] TEXT, [title] TEXT, [cwd] TEXT,
   [model] TEXT, [git_branch] TEXT, [started_at] TEXT, [updated_at] TEXT,
   [tokens_input] INTEGER, [tokens_cache_read] INTEGER, [tokens_cache_write] INTEGER, [tokens_output] INTEGER,
   [tokens_reasoning] INTEGER, [tokens_total] INTEGER, [prompts] INTEGER, [responses] INTEGER,
   [tool_calls] INTEGER, [subagents] INTEGER, [running] INTEGER,
   [first_seen_at] TEXT, [last_seen_at] TEXT, [gone_at] TEXT
);
CREATE TABLE [subagents] (
   [session_id] TEXT, [subagent_id] TEXT, [tokens_input] INTEGER, [tokens_cache_read] INTEGER,
   [tokens_cache_write] INTEGER, [tokens_output] INTEGER, [tokens_reasoning] INTEGER, [tokens_total] INTEGER,
   PRIMARY KEY ([session_id], [subagent_id])
);
CREATE TABLE [token_days] (
   [session_id] TEXT, [day] TEXT, [model] TEXT, [subagent_id] TEXT, [tokens_input] INTEGER,
   [tokens_cache_read] INTEGER, [tokens_cache_write] INTEGER, [tokens_output] INTEGER,
   [tokens_reasoning] INTEGER, [tokens_total] INTEGER,
   PRIMARY KEY ([session_id], [day], [model], [subagent_id])
);
"""
# A session from an older machine: agentscan must keep it, never delete it.
OLD_ROW = ("codex:old-laptop-session", "codex", "old-laptop-session", "/mnt/old/rollout.jsonl", "kept forever",
           "/src/old", "gpt-5", "main", "2025-01-01T00:00:00Z", "2025-01-02T00:00:00Z",
           1, 2, 3, 4, 0, 10, 1, 1, 0, 0, None, "2025-01-03T00:00:00Z", "2025-01-03T00:00:00Z", None)


@pytest.fixture
def home(isolated_home: Path) -> Path:
    claude_session_file(isolated_home, S1, [
        claude_user(S1, "2026-11-01T10:00:00Z", "hello"),
        claude_assistant(S1, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 10)),
    ])
    return isolated_home


def legacy_database(path: Path) -> Path:
    with sqlite3.connect(path) as conn:
        conn.executescript(LEGACY_SCHEMA)
        conn.execute(f"INSERT INTO sessions VALUES ({','.join('?' * len(OLD_ROW))})", OLD_ROW)
        conn.execute("INSERT INTO token_days VALUES ('codex:old-laptop-session', '2025-01-01', 'gpt-5', '', 1, 2, 3, 4, 0, 10)")
    conn.close()
    return path


def export_sqlite(out: Path) -> None:
    result = runner.invoke(app, ["export", "--format", "sqlite", "--output", str(out), "--provider", "claude"])
    assert result.exit_code == 0, result.output


def rows(path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_a_new_database_records_every_migration(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "index.sqlite"
    export_sqlite(out)
    names = [name for (name,) in rows(out, "SELECT name FROM _agentscan_migrations ORDER BY rowid")]
    assert names == [func.__name__ for func in migrations.MIGRATIONS]
    assert rows(out, "SELECT id FROM sessions") == [(f"claude:{S1}",)]


def test_a_database_from_before_migrations_keeps_every_row(home: Path, tmp_path: Path) -> None:
    out = legacy_database(tmp_path / "index.sqlite")
    export_sqlite(out)
    assert rows(out, "SELECT title, tokens_total, gone_at FROM sessions WHERE id = 'codex:old-laptop-session'") == [
        ("kept forever", 10, None)  # another provider's row: not in this export's scope, so not marked gone
    ]
    assert rows(out, "SELECT count(*) FROM token_days WHERE session_id = 'codex:old-laptop-session'") == [(1,)]
    assert {r[0] for r in rows(out, "SELECT id FROM sessions")} == {"codex:old-laptop-session", f"claude:{S1}"}
    assert rows(out, "SELECT name FROM _agentscan_migrations")[0] == ("m001_initial",)


def test_a_newer_schema_upgrades_an_existing_database_in_place(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "index.sqlite"
    export_sqlite(out)
    before = rows(out, "SELECT * FROM sessions")

    # A later release adds a column and backfills it, as a new migration.
    calls = []

    def m999_add_note(db) -> None:
        calls.append(1)
        db["sessions"].add_column("note", str)
        db.execute("UPDATE sessions SET note = 'from ' || provider")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, m999_add_note])
    export_sqlite(out)
    export_sqlite(out)  # a second run applies nothing again

    assert calls == [1]
    after = rows(out, "SELECT * FROM sessions")
    assert len(after) == len(before) == 1
    assert after[0][: len(before[0])][:10] == before[0][:10]  # identity and text columns unchanged
    assert rows(out, "SELECT note FROM sessions") == [("from claude",)]
    assert rows(out, "SELECT name FROM _agentscan_migrations ORDER BY rowid")[-1] == ("m999_add_note",)


def test_a_failing_migration_is_not_recorded_and_runs_again(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "index.sqlite"
    export_sqlite(out)
    attempts = []

    def m998_flaky(db) -> None:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("disk full")
        db.execute("CREATE TABLE IF NOT EXISTS notes (x)")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, m998_flaky])
    import sqlite_utils

    db = sqlite_utils.Database(out)
    try:
        with pytest.raises(RuntimeError):
            migrations.migrate(db)
        assert "m998_flaky" not in migrations.applied(db)
        assert migrations.migrate(db) == ["m998_flaky"]
        assert migrations.migrate(db) == []
    finally:
        db.close()
    assert len(attempts) == 2
    assert rows(out, "SELECT count(*) FROM sessions") == [(1,)]


_OLD_UPDATE_TRIGGER = """
DROP TRIGGER [sessions_au];
CREATE TRIGGER [sessions_au] AFTER UPDATE ON [sessions] BEGIN
  INSERT INTO [sessions_fts] ([sessions_fts], rowid, [title], [cwd]) VALUES('delete', old.rowid, old.[title], old.[cwd]);
  INSERT INTO [sessions_fts] (rowid, [title], [cwd]) VALUES (new.rowid, new.[title], new.[cwd]);
END;
DELETE FROM _agentscan_migrations WHERE name = 'm003_fts_on_text_change';
"""


def _update_trigger(path: Path) -> str:
    return rows(path, "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'sessions_au'")[0][0]


def _found(path: Path, words: str) -> list[tuple]:
    return rows(path, f"SELECT s.id FROM sessions s JOIN sessions_fts f ON s.rowid = f.rowid WHERE sessions_fts MATCH '{words}'")


@pytest.mark.parametrize("upgraded", [False, True])
def test_the_full_text_index_follows_a_changed_title_only(home: Path, tmp_path: Path, upgraded: bool) -> None:
    """``m003_fts_on_text_change``: every export rewrites each session (``last_seen_at``), but
    the index is written again only for a title or cwd that changed; it stays in step, in a
    new file and in one upgraded from the trigger ``enable_fts`` made."""
    out = tmp_path / "index.sqlite"
    export_sqlite(out)
    if upgraded:
        with sqlite3.connect(out) as conn:
            conn.executescript(_OLD_UPDATE_TRIGGER)
        conn.close()
        assert " WHEN " not in _update_trigger(out)
    export_sqlite(out)
    assert " WHEN " in _update_trigger(out)
    assert _found(out, "hello") == [(f"claude:{S1}",)]
    # The title changes (``/rename``): found by the new one only.
    path = next(home.rglob(f"{S1}.jsonl"))
    with path.open("a") as handle:
        handle.write('{"type":"custom-title","customTitle":"weather migration","sessionId":"%s"}\n' % S1)
    export_sqlite(out)
    export_sqlite(out)
    assert _found(out, "migration") == [(f"claude:{S1}",)] and _found(out, "hello") == []
    assert rows(out, "SELECT last_seen_at >= first_seen_at FROM sessions") == [(1,)]
    conn = sqlite3.connect(out)
    try:
        conn.execute("INSERT INTO sessions_fts(sessions_fts) VALUES('integrity-check')")  # raises when out of step
    finally:
        conn.close()


def test_a_database_without_a_full_text_index_is_left_without_one(home: Path, tmp_path: Path) -> None:
    out = legacy_database(tmp_path / "index.sqlite")
    export_sqlite(out)
    assert ("m003_fts_on_text_change",) in rows(out, "SELECT name FROM _agentscan_migrations")
    assert rows(out, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") == [(0,)]
