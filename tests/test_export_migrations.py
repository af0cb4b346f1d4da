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
