"""Every export format names a multi-root Cursor chat's folders (pass 51).

``cwd`` holds only the first folder of a ``.code-workspace``; ``list --cwd`` matches any of
them (``workspace_folders`` in JSON), but a CSV or SQLite export had only ``cwd``, so a query
for the sessions of the second folder missed them.  Now a ``workspace_folders`` column (a JSON
array) is the last CSV column and a ``sessions`` column, added to an older index by the
migration ``m005_workspace_folders``; docs/cron.md's query finds them.
"""

from __future__ import annotations

import csv
import io
import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest

from builders import invoke
from test_cursor_multiroot_pass49 import MONO, A, B, _home

pytestmark = pytest.mark.usefixtures("only_cursor")

#: docs/cron.md's query for the sessions that worked in a folder (there, ``/src/web``)
FOLDER_QUERY = """SELECT id FROM sessions WHERE cwd = :f OR cwd LIKE :f || '/%'
  OR EXISTS (SELECT 1 FROM json_each(sessions.workspace_folders) f
             WHERE f.value = :f OR f.value LIKE :f || '/%') ORDER BY id"""


def _export(*args: str) -> None:
    result = invoke("export", *args)
    assert result.exit_code == 0, result.stderr


def test_csv_names_every_folder_last(isolated_home: Path, tmp_path: Path) -> None:
    _home(isolated_home, MONO)
    api = str(isolated_home / "src" / "services" / "api")
    out = tmp_path / "s.csv"
    _export("-f", "csv", "-o", str(out))
    rows = list(csv.DictReader(io.StringIO(out.read_text("utf-8"))))
    header = out.read_text("utf-8").splitlines()[0].split(",")
    # added after ``running`` (``archived`` after it since, pass 52): positions kept
    assert header[-2:] == ["workspace_folders", "archived"] and header[-3] == "running"
    assert {row["native_id"]: orjson.loads(row["workspace_folders"]) for row in rows} == {
        A: [api, "/elsewhere/web"], B: [api, "/elsewhere/web"]}


def test_csv_of_a_one_folder_session_leaves_it_empty(isolated_home: Path, tmp_path: Path) -> None:
    _home(isolated_home, '{"folders": [{"path": "/abs/app"}]}')
    out = tmp_path / "s.csv"
    _export("-f", "csv", "-o", str(out))
    assert [row["workspace_folders"] for row in csv.DictReader(io.StringIO(out.read_text("utf-8")))] == ["", ""]


def test_sqlite_query_of_docs_finds_a_chat_of_the_second_folder(isolated_home: Path, tmp_path: Path) -> None:
    _home(isolated_home, MONO)
    api = str(isolated_home / "src" / "services" / "api")
    out = tmp_path / "s.sqlite"
    _export("-o", str(out))
    with closing(sqlite3.connect(out)) as conn:
        stored = dict(conn.execute("SELECT native_id, workspace_folders FROM sessions").fetchall())
        assert {key: orjson.loads(value) for key, value in stored.items()} == {A: [api, "/elsewhere/web"],
                                                                              B: [api, "/elsewhere/web"]}
        for folder in ("/elsewhere/web", "/elsewhere", api):
            assert [row[0] for row in conn.execute(FOLDER_QUERY, {"f": folder})] == [f"cursor:{A}", f"cursor:{B}"]
        assert conn.execute(FOLDER_QUERY, {"f": "/elsewhere/we"}).fetchall() == []


def test_an_older_index_gains_the_column_and_keeps_its_rows(isolated_home: Path, tmp_path: Path) -> None:
    """An index written before the column (its migrations up to m004): migrated in place,
    its rows kept (``first_seen_at`` as it was) and the column filled by the run."""
    _home(isolated_home, MONO)
    out = tmp_path / "s.sqlite"
    _export("-o", str(out))
    with closing(sqlite3.connect(out)) as conn:
        conn.execute("ALTER TABLE sessions DROP COLUMN workspace_folders")
        conn.execute("DELETE FROM _agentscan_migrations WHERE name = 'm005_workspace_folders'")
        conn.execute("UPDATE sessions SET first_seen_at = '2020-01-01T00:00:00.000Z'")
        conn.commit()
    _export("-o", str(out))
    with closing(sqlite3.connect(out)) as conn:
        assert conn.execute("SELECT count(*) FROM sessions WHERE workspace_folders IS NOT NULL "
                            "AND first_seen_at = '2020-01-01T00:00:00.000Z'").fetchone() == (2,)
        assert [name for (name,) in conn.execute("SELECT name FROM _agentscan_migrations ORDER BY rowid")][-1:] == \
            ["m005_workspace_folders"]  # (the later ones were applied already, by the first run)


def test_jsonl_and_redact_keep_the_folders_masked(isolated_home: Path, tmp_path: Path) -> None:
    secret = "ghp_" + "a" * 36
    _home(isolated_home, '{"folders": [{"path": "/abs/app"}, {"path": "/abs/%s/web"}]}' % secret)
    for fmt in ("csv", "sqlite"):
        out = tmp_path / f"s.{fmt}"
        _export("--redact", "-o", str(out))
        assert secret not in out.read_bytes().decode("utf-8", "replace")
    rows = [orjson.loads(line) for line in invoke("export", "-f", "jsonl", "--redact").stdout.splitlines()]
    assert [len(row["workspace_folders"]) for row in rows] == [2, 2]
