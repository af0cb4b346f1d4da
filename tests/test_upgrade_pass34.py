"""Upgrades met by what an older or a newer agentscan left: an SQLite export holding a session
that is now part of another (its days no longer counted twice), an export a newer agentscan
migrated (refused, left as it was), a cache a newer agentscan wrote (left alone, not rebuilt)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from codex_builders import at, rollout_path
from test_codex_recovery import R2, T, _codex, _paginated_home

OLD_TOKENS = 1620  # what the earlier agentscan wrote for the second rollout, as its own session


def cli(*argv: str):  # noqa: ANN201 - click's Result
    return CliRunner().invoke(app, list(argv))


def rows(path: Path, sql: str) -> list[tuple]:
    db = sqlite3.connect(path)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def _old_row(index: Path, native_id: str, path: Path, *, gone_at: str | None = None) -> None:
    """What an earlier agentscan wrote for a file it listed as a session of its own."""
    db = sqlite3.connect(index)
    try:
        with db:
            db.execute("INSERT INTO sessions (id, provider, native_id, path, title, first_seen_at, last_seen_at, gone_at) "
                       "VALUES (?, 'codex', ?, ?, 'edited prompt', '2026-03-02T09:00:00.000Z', "
                       "'2026-03-02T09:00:00.000Z', ?)", (f"codex:{native_id}", native_id, str(path), gone_at))
            db.execute("INSERT INTO token_days (session_id, day, model, subagent_id, tokens_input, tokens_cache_read, "
                       "tokens_cache_write, tokens_output, tokens_reasoning, tokens_total, cost_usd) "
                       "VALUES (?, '2026-03-02', 'gpt-5', '', 1000, 500, 0, 120, 0, ?, 0.01)",
                       (f"codex:{native_id}", OLD_TOKENS))
            db.execute("INSERT INTO subagents (session_id, subagent_id, tokens_input, tokens_cache_read, "
                       "tokens_cache_write, tokens_output, tokens_reasoning, tokens_total, cost_usd) "
                       "VALUES (?, 'agent-1', 1, 0, 0, 1, 0, 2, 0.0)", (f"codex:{native_id}",))
    finally:
        db.close()


def _day_total(index: Path) -> int:
    return rows(index, "SELECT sum(tokens_total) FROM token_days")[0][0]


@pytest.mark.parametrize("gone_at", [None, "2026-12-05T03:23:28.654Z"])
def test_a_session_an_earlier_agentscan_listed_on_its_own_is_merged_not_gone(
    isolated_home: Path, tmp_path: Path, gone_at: str | None,
) -> None:
    # An early release listed a paginated Codex thread's second rollout as a session; now it is
    # part of the thread, whose days hold its calls.  Kept (or marked gone, as an export of
    # this version before the fix did: gone_at set), its days were counted twice in every sum.
    _paginated_home(isolated_home)
    fresh, index = tmp_path / "fresh.sqlite", tmp_path / "index.sqlite"
    assert cli("export", "-f", "sqlite", "-o", str(fresh)).exit_code == 0
    assert cli("export", "-f", "sqlite", "-o", str(index)).exit_code == 0
    second = rollout_path(_codex(isolated_home), R2, at(20))
    _old_row(index, R2, second, gone_at=gone_at)
    assert _day_total(index) == _day_total(fresh) + OLD_TOKENS
    result = cli("export", "-f", "sqlite", "-o", str(index))
    assert result.exit_code == 0, result.output
    assert "(sqlite, 1 merged into another session)" in result.stdout
    assert rows(index, "SELECT id, gone_at FROM sessions") == [(f"codex:{T}", None)]
    assert rows(index, f"SELECT count(*) FROM token_days WHERE session_id = 'codex:{R2}'") == [(0,)]
    assert rows(index, f"SELECT count(*) FROM subagents WHERE session_id = 'codex:{R2}'") == [(0,)]
    assert _day_total(index) == _day_total(fresh)
    assert rows(index, "SELECT count(*) FROM sessions_fts") == [(1,)]  # the full-text index follows
    # Said once: the next run has nothing to merge.
    again = cli("export", "-f", "sqlite", "-o", str(index))
    assert again.exit_code == 0 and "merged into" not in again.stdout


def test_a_session_whose_file_went_is_still_marked_gone_with_its_days(isolated_home: Path, tmp_path: Path) -> None:
    _paginated_home(isolated_home)
    index = tmp_path / "index.sqlite"
    assert cli("export", "-f", "sqlite", "-o", str(index)).exit_code == 0
    deleted = rollout_path(_codex(isolated_home), "019d9999-0000-7000-8000-000000000009", at(30))
    _old_row(index, "019d9999-0000-7000-8000-000000000009", deleted)
    result = cli("export", "-f", "sqlite", "-o", str(index))
    assert "(sqlite, 1 marked gone)" in result.stdout
    [(gone_at,)] = rows(index, "SELECT gone_at FROM sessions WHERE id = 'codex:019d9999-0000-7000-8000-000000000009'")
    assert gone_at is not None
    assert rows(index, "SELECT count(*) FROM token_days WHERE session_id LIKE 'codex:019d9999%'") == [(1,)]


def test_a_merged_session_waits_while_the_session_holding_its_file_is_not_written(
    isolated_home: Path, tmp_path: Path,
) -> None:
    # --since leaves the thread out: its row (from an earlier run) may lack the second file's
    # calls, so the old row is left as it was: not deleted, not marked gone.
    _paginated_home(isolated_home)
    index = tmp_path / "index.sqlite"
    assert cli("export", "-f", "sqlite", "-o", str(index)).exit_code == 0
    _old_row(index, R2, rollout_path(_codex(isolated_home), R2, at(20)))
    result = cli("export", "-f", "sqlite", "-o", str(index), "--since", "2099-01-01")
    assert result.exit_code == 0, result.output
    assert "merged into" not in result.stdout and "marked gone" not in result.stdout
    assert rows(index, f"SELECT gone_at FROM sessions WHERE id = 'codex:{R2}'") == [(None,)]
    assert cli("export", "-f", "sqlite", "-o", str(index)).stdout.count("1 merged into another session") == 1


# -- an SQLite export a newer agentscan migrated --------------------------------------------

def _claude_session(home: Path) -> None:
    sid = "aaaaaaaa-1111-4222-8333-444444444444"
    claude_session_file(home, sid, [
        claude_user(sid, "2026-11-01T10:00:00Z", "hello"),
        claude_assistant(sid, "2026-11-01T10:00:01Z", msg_id="m-1", request_id="r-1", usage=claude_usage(5, 7)),
    ])


def test_an_export_a_newer_agentscan_migrated_is_refused_and_left_as_it_was(isolated_home: Path, tmp_path: Path) -> None:
    _claude_session(isolated_home)
    index = tmp_path / "index.sqlite"
    assert cli("export", "-f", "sqlite", "-o", str(index)).exit_code == 0
    db = sqlite3.connect(index)
    with db:
        db.execute("INSERT INTO _agentscan_migrations VALUES ('m999_future_thing', '2027-01-01T00:00:00.000Z')")
        db.execute("ALTER TABLE sessions ADD COLUMN future_col TEXT")
    db.close()
    before = rows(index, "SELECT * FROM sessions")
    result = cli("export", "-f", "sqlite", "-o", str(index))
    assert result.exit_code == 1
    assert f"cannot write {index}: a newer agentscan wrote it" in result.stderr
    assert "m999_future_thing" in result.stderr and "wrote" not in result.stdout
    assert rows(index, "SELECT * FROM sessions") == before  # last_seen_at too: nothing written


def test_migrate_refuses_before_running_any_migration(tmp_path: Path) -> None:
    import sqlite_utils

    from agentscan.errors import ExportFailed
    from agentscan.export import migrations

    db = sqlite_utils.Database(tmp_path / "x.sqlite")
    try:
        db.table(migrations.MIGRATIONS_TABLE).create({"name": str, "applied_at": str}, pk="name")
        db.table(migrations.MIGRATIONS_TABLE).insert({"name": "m900_newer", "applied_at": "now"})
        with pytest.raises(ExportFailed, match="m900_newer, which this one does not know"):
            migrations.migrate(db)
        assert not db["sessions"].exists()  # m001 did not run
    finally:
        db.close()


# -- a cache a newer agentscan wrote ------------------------------------------------------------

def test_a_cache_written_by_a_newer_agentscan_is_left_alone_not_rebuilt(isolated_home: Path, tmp_path: Path) -> None:
    from agentscan.scan.cachefile import SCHEMA_VERSION

    _claude_session(isolated_home)
    assert cli("list").exit_code == 0
    cache = tmp_path / "agentscan-cache"
    index = cache / "index.sqlite"
    db = sqlite3.connect(index)
    with db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    db.close()
    for _ in range(2):  # every run: two installs used in turn no longer rebuild each other's index
        result = cli("list", "--json")
        assert result.exit_code == 0, result.output
        document = orjson.loads(result.stdout)
        assert len(document["sessions"]) == 1
        assert [w["message"] for w in document["warnings"]] == [
            f"cache disabled: written by a newer agentscan (schema {SCHEMA_VERSION + 1}); "
            f"this one reads schema {SCHEMA_VERSION}; left as it is (upgrade agentscan, or set "
            "AGENTSCAN_CACHE_DIR to another folder for this one)"]
        assert sorted(path.name for path in cache.iterdir() if "corrupt" in path.name) == []
        assert rows(index, "SELECT value FROM meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION + 1),)]
