"""A Codex thread index that cannot be read (not SQLite, no ``threads`` table, locked) is not
``ok`` in ``doctor``: its STATUS says why, as for a root that cannot be read.  And when the
newest generation cannot be read, the older one beside it is used (with a warning saying so),
not none at all (review s35, finding 5)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from codex_builders import cli_doc, codex_doctor, INDEX_COLUMNS_WITH_NAME, Calls, at, index_row, meta, rollout_path, turn_context, \
    user_message, write_rollout, write_state_db

A = "019c8888-0000-7000-8000-00000000000a"


def _home(codex: Path) -> Path:
    calls = Calls()
    path = rollout_path(codex, A, at(0))
    write_rollout(path, [meta(A, at(0)), turn_context(at(1)), user_message(at(1), "first prompt"),
                         calls.call(at(5), 100, 0, 10)], mtime=at(5).timestamp())
    return path


def _no_threads(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE other (x)")
    conn.commit()
    conn.close()


_run, _codex_doctor = cli_doc, codex_doctor


@pytest.mark.parametrize("damage, problem", [
    (lambda db: db.write_bytes(b"SQLite format 3\0garbage"), "file is not a database"),
    (_no_threads, "no threads table (unfamiliar schema)"),
], ids=["not-a-database", "no-threads-table"])
def test_doctor_says_why_the_newest_index_cannot_be_read_and_the_older_one_is_used(
        isolated_home: Path, damage, problem: str) -> None:
    codex = isolated_home / ".codex"
    rollout = _home(codex)
    write_state_db(codex / "state_5.sqlite", [index_row(A, rollout, created=at(0), updated=at(5), name="login-flake")],
                   columns=INDEX_COLUMNS_WITH_NAME)
    damage(codex / "state_7.sqlite")
    report = _codex_doctor()
    (database,) = [root for root in report["roots"] if root["kind"] == "database"]
    assert database["path"].endswith("state_7.sqlite")
    assert (database["readable"], database["problem"]) == (False, problem)
    assert any(finding.startswith("thread index: ") and finding.endswith("state_5.sqlite (1 thread)")
               for finding in report["findings"]), report["findings"]
    listed = _run("list")
    # The older generation's thread name is not lost, and the warning says what was used.
    assert [row["title"] for row in listed["sessions"]] == ["login-flake"]
    assert [warning["message"] for warning in listed["warnings"]] == [
        f"thread index unreadable, using state_5.sqlite instead: {problem}"]


def test_an_unreadable_index_with_no_older_one_lists_from_the_rollouts(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _home(codex)
    _no_threads(codex / "state_5.sqlite")
    (database,) = [root for root in _codex_doctor()["roots"] if root["kind"] == "database"]
    assert (database["readable"], database["problem"]) == (False, "no threads table (unfamiliar schema)")
    listed = _run("list")
    assert [row["title"] for row in listed["sessions"]] == ["first prompt"]
    assert [warning["message"] for warning in listed["warnings"]] == [
        "thread index unreadable, listing from rollouts instead: no threads table (unfamiliar schema)"]


def test_a_readable_index_is_ok(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    rollout = _home(codex)
    write_state_db(codex / "state_5.sqlite", [index_row(A, rollout, created=at(0), updated=at(5))])
    (database,) = [root for root in _codex_doctor()["roots"] if root["kind"] == "database"]
    assert (database["readable"], database["problem"]) == (True, None)


def test_one_row_outside_codex_home_is_said_in_the_singular_and_counted_once(isolated_home: Path, tmp_path: Path) -> None:
    """Review s35, finding 9: "1 thread index rows", and doctor's "1 × 1 thread index rows …"."""
    codex = isolated_home / ".codex"
    rollout = _home(codex)
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_bytes(b"{}\n")
    write_state_db(codex / "state_5.sqlite", [index_row(A, rollout, created=at(0), updated=at(5)),
                                              index_row("019c8888-0000-7000-8000-0000000000ff", elsewhere,
                                                        created=at(0), updated=at(5))])
    assert [warning["message"] for warning in _run("list")["warnings"]] == [
        "thread index rows point outside CODEX_HOME, their files not opened: 1 row"]
    report = _codex_doctor()
    assert "1 thread index row points outside CODEX_HOME (not opened, not listed)" in report["findings"]
    assert any(finding.endswith("state_5.sqlite (2 threads)") for finding in report["findings"])
    assert report["warnings"] == {"thread index rows point outside CODEX_HOME, their files not opened": 1}
