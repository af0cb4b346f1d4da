"""A first SQLite export that fails leaves no index behind (pass 54).

A cron job's first run on a full disk (or under ``ulimit -f``) said "the new index holds no
sessions yet" and left the file it had begun: SQLite commits each table as it is made, so it
held ``sessions`` but no ``token_days`` (a dashboard failed on the missing table), and the next
export, finding ``sessions`` there, recorded the first migration without ever making the
full-text index: ``sessions_fts MATCH`` failed, ``no such table``, for good.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from builders import claude_sessions, invoke


def _limited() -> None:
    import resource

    # Past 64 KiB every write fails as on a full disk (Python ignores SIGXFSZ: EFBIG).
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))


def _tables(index: Path) -> set[str]:
    with sqlite3.connect(index) as conn:
        return {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE stands in for a full disk")
def test_a_first_export_with_no_room_leaves_no_index(isolated_home: Path, tmp_path: Path) -> None:
    claude_sessions(isolated_home, 400)  # more than 64 KiB to write
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "idx.sqlite"
    done = subprocess.run([sys.executable, "-m", "agentscan", "--no-cache", "export", "-f", "sqlite", "-o", str(out)],
                          capture_output=True, text=True, timeout=120, preexec_fn=_limited)
    assert done.returncode == 1, done.stderr
    assert "nothing of this run was kept, and the new index was removed" in " ".join(done.stderr.split())
    assert list(out.parent.iterdir()) == []  # (nor its journal)
    # Room again: the next run makes it whole.
    assert invoke("export", "-f", "sqlite", "-o", str(out), "--no-cache").exit_code == 0
    assert {"sessions_fts", "token_days", "subagents", "idx_sessions_updated_at"} <= _tables(out)


def test_a_first_export_killed_in_its_first_migration_is_made_whole_by_the_next(
        isolated_home: Path, tmp_path: Path) -> None:
    # What a kill (or a power cut) leaves: the migrations' table, and ``sessions`` alone.
    claude_sessions(isolated_home, 2)
    out = tmp_path / "idx.sqlite"
    with sqlite3.connect(out) as conn:
        conn.execute("CREATE TABLE [_agentscan_migrations] ([name] TEXT PRIMARY KEY, [applied_at] TEXT)")
        conn.execute("CREATE TABLE [sessions] ([id] TEXT PRIMARY KEY, [provider] TEXT, [native_id] TEXT, [path] TEXT, "
                     "[title] TEXT, [cwd] TEXT, [model] TEXT, [git_branch] TEXT, [started_at] TEXT, [updated_at] TEXT, "
                     "[tokens_input] INTEGER, [tokens_cache_read] INTEGER, [tokens_cache_write] INTEGER, "
                     "[tokens_output] INTEGER, [tokens_reasoning] INTEGER, [tokens_total] INTEGER, [prompts] INTEGER, "
                     "[responses] INTEGER, [tool_calls] INTEGER, [subagents] INTEGER, [running] INTEGER, "
                     "[first_seen_at] TEXT, [last_seen_at] TEXT, [gone_at] TEXT)")
    conn.close()
    assert invoke("export", "-f", "sqlite", "-o", str(out), "--no-cache").exit_code == 0
    assert {"sessions_fts", "sessions_ai", "sessions_au", "idx_sessions_cwd"} <= _tables(out)
    with sqlite3.connect(out) as conn:
        found = conn.execute("SELECT count(*) FROM sessions s JOIN sessions_fts f ON s.rowid = f.rowid "
                             "WHERE sessions_fts MATCH 'task'").fetchone()
    conn.close()
    assert found == (2,)
