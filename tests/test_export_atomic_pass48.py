"""An SQLite export is one transaction (pass 48): a reader sees the old index or the new one,
and a run that fails or is killed part-way leaves the old one.

``with db.conn`` opened no transaction under sqlite-utils 4, which commits each statement and
each batch of an upsert made outside one: a reader polling an export saw 3 of 1,789
``token_days`` rows, and a run that failed after its deletes (a disk full) kept them.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

IDS = [f"{n:08x}-1111-4111-8111-111111111148" for n in range(1, 6)]


def _home(home: Path) -> None:
    for day, native in enumerate(IDS, start=1):
        claude_session_file(home, native, [
            claude_user(native, f"2026-11-0{day}T10:00:00Z", f"work {day}", cwd="/w"),
            claude_assistant(native, f"2026-11-0{day}T10:00:01Z", msg_id=f"m-{native}", request_id=f"r-{native}",
                             usage=claude_usage(100 * day, 10)),
        ], project="-w")


def _counts(index: Path) -> tuple:
    with sqlite3.connect(index) as conn:
        return (conn.execute("select count(*), sum(tokens_total) from token_days").fetchone(),
                conn.execute("select count(*) from sessions where gone_at is null").fetchone())


def test_a_failed_export_leaves_the_index_as_it_was(isolated_home: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.export import sqlite as export_sqlite

    _home(isolated_home)
    index = tmp_path / "index.db"
    assert invoke("export", "-f", "sqlite", "-o", str(index)).exit_code == 0
    before = _counts(index)
    assert before == ((5, sum(100 * day + 10 for day in range(1, 6))), (5,))
    real = export_sqlite.replace_children

    def full_disk(db, ids, usage_days, **kwargs) -> None:  # noqa: ANN001 - the real one's arguments
        real(db, ids, [], **kwargs)  # its deletes made, and nothing written back
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(export_sqlite, "replace_children", full_disk)
    result = invoke("export", "-f", "sqlite", "-o", str(index), "--no-cache")
    assert result.exit_code == 1 and "database or disk is full" in result.stderr
    assert _counts(index) == before


def test_a_reader_never_sees_an_export_half_written(isolated_home: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.export import sqlite as export_sqlite

    _home(isolated_home)
    index = tmp_path / "index.db"
    assert invoke("export", "-f", "sqlite", "-o", str(index)).exit_code == 0
    before = _counts(index)
    seen = []
    real = export_sqlite.replace_children

    def read_meanwhile(db, ids, usage_days, **kwargs) -> list:  # noqa: ANN001 - the real one's arguments
        real(db, ids, usage_days[:1], **kwargs)  # a first batch written, the rest to come
        reader = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
        try:
            seen.append(reader.execute("select count(*), sum(tokens_total) from token_days").fetchone())
        finally:
            reader.close()
        return real(db, ids, usage_days, **kwargs)

    monkeypatch.setattr(export_sqlite, "replace_children", read_meanwhile)
    assert invoke("export", "-f", "sqlite", "-o", str(index), "--no-cache").exit_code == 0
    assert seen == [before[0]] and _counts(index) == before


def test_an_export_waits_for_another_of_the_same_output_before_it_scans(isolated_home: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # (a slower run's older scan, written after a newer run's, marked a session just made gone:
    # the lock was taken only around the write)
    import os

    from filelock import FileLock

    from agentscan.export.locks import usable_lock
    from agentscan.scan.scanner import Scanner
    from spies import record_calls

    _home(isolated_home)
    index = tmp_path / "index.db"
    scans = record_calls(monkeypatch, Scanner, "all_rows", lambda *args, **kwargs: None)
    with FileLock(str(usable_lock(index, os.environ)[0])):
        result = invoke("export", "-f", "sqlite", "-o", str(index), "--lock-timeout", "0.2")
    assert result.exit_code == 1 and "another agentscan export" in result.stderr
    assert not scans and not index.exists()
