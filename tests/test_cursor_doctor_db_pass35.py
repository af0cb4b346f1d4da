"""Cursor's state DB in ``doctor``: a file that is no Cursor state DB is not ``ok`` beside a
finding that says it was not used (its STATUS says why, as Codex's thread index's does)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from builders import cli_json
from cursor_builders import bubble, composer_data, make_state_db, state_db_path


#: every test of this file reads Cursor alone (``conftest.only_cursor``)
pytestmark = pytest.mark.usefixtures("only_cursor")


@pytest.mark.parametrize("damage, problem", [
    (lambda db: db.write_bytes(b"not a database at all, just text"), "not a SQLite database"),
    (lambda db: sqlite3.connect(db).execute("CREATE TABLE other (x)").connection.commit(),
     "no cursorDiskKV table (not a Cursor state DB?)"),
], ids=["not-a-database", "no-cursor-table"])
def test_doctor_says_why_the_state_db_cannot_be_used(isolated_home: Path, damage, problem: str) -> None:  # noqa: ANN001
    db = state_db_path(isolated_home)
    db.parent.mkdir(parents=True)
    damage(db)
    (cursor,) = [report for report in cli_json("doctor")["providers"] if report["provider"] == "cursor"]
    (database,) = [root for root in cursor["roots"] if root["kind"] == "database"]
    assert (database["readable"], database["problem"]) == (False, problem)


def test_doctor_says_a_good_state_db_is_ok(isolated_home: Path) -> None:
    make_state_db(state_db_path(isolated_home), composers=[composer_data("a1", name="x", bubbles=["u"])],
                  bubbles={"a1": [bubble("u", 1, "hi")]})
    (cursor,) = [report for report in cli_json("doctor")["providers"] if report["provider"] == "cursor"]
    (database,) = [root for root in cursor["roots"] if root["kind"] == "database"]
    assert (database["readable"], database["problem"]) == (True, None)
