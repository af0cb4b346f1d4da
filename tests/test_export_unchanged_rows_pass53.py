"""Pass 53: an SQLite export writes again only the sessions whose row changed; the others'
``last_seen_at`` alone is updated (``export.sqlite._as_stored``), the tables as a full upsert
leaves them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from typer.testing import CliRunner
from sqlite_utils.db import Table

from agentscan.cli import app
from agentscan.export import sqlite as exporting
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()


def _native(number: int) -> str:
    return f"{number:08x}-4444-4000-8000-000000000000"


def _home(home: Path) -> None:
    for number in range(5):
        native = _native(number)
        claude_session_file(home, native, [
            claude_user(native, "2026-11-02T09:00:00.000Z", f"task {number}", cwd=f"/src/p{number}"),
            claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id=f"m{number}", request_id=f"r{number}",
                             usage=claude_usage(100 + number, 10)),
        ])


def _export(out: Path) -> None:
    result = runner.invoke(app, ["export", "-o", str(out)])
    assert result.exit_code == 0, result.output


def _sessions(out: Path) -> list[tuple]:
    with sqlite3.connect(out) as conn:
        found = conn.execute("SELECT rowid, * FROM sessions ORDER BY rowid").fetchall()
        names = [column[0] for column in conn.execute("SELECT rowid, * FROM sessions").description]
    conn.close()
    seen = names.index("last_seen_at")
    return [values[:seen] + values[seen + 1:] for values in found]


def _recorded(monkeypatch) -> list[str]:
    """The ids of the sessions each export upserts from now on."""
    upserted: list[str] = []
    real = Table.upsert_all

    def recording(self, records, **kwargs):
        listed = list(records)
        upserted.extend(record["id"] for record in listed)
        return real(self, listed, **kwargs)

    monkeypatch.setattr(Table, "upsert_all", recording)
    return upserted


def test_an_unchanged_export_writes_no_session_again(isolated_home: Path, tmp_path: Path, monkeypatch) -> None:
    _home(isolated_home)
    out = tmp_path / "index.sqlite"
    _export(out)
    first = _sessions(out)
    upserted = _recorded(monkeypatch)
    _export(out)
    assert upserted == []
    assert _sessions(out) == first  # every column but the last sight, and the rows' order
    with sqlite3.connect(out) as conn:
        seen = conn.execute("SELECT DISTINCT last_seen_at FROM sessions").fetchall()
        runs = conn.execute("SELECT first_seen_at < last_seen_at FROM sessions").fetchall()
    conn.close()
    assert len(seen) == 1 and runs == [(1,)] * 5


def test_only_the_changed_session_is_upserted(isolated_home: Path, tmp_path: Path, monkeypatch) -> None:
    _home(isolated_home)
    out = tmp_path / "index.sqlite"
    _export(out)
    path = next(isolated_home.rglob(f"{_native(2)}.jsonl"))
    with path.open("a") as handle:
        handle.write('{"type":"custom-title","customTitle":"renamed","sessionId":"%s"}\n' % _native(2))
    upserted = _recorded(monkeypatch)
    _export(out)
    assert upserted == [f"claude:{_native(2)}"]
    with sqlite3.connect(out) as conn:
        titles = dict(conn.execute("SELECT id, title FROM sessions").fetchall())
        found = conn.execute("SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH 'renamed'").fetchall()
    conn.close()
    assert titles[f"claude:{_native(2)}"] == "renamed" and len(found) == 1


def test_a_value_of_another_type_is_written(tmp_path: Path) -> None:
    record = {"id": "x", "cost_usd": 1, "archived": False, "last_seen_at": "now"}
    assert exporting._as_stored(record, {"id": "x", "cost_usd": 1, "archived": 0, "last_seen_at": "then"})
    assert not exporting._as_stored(record, {"id": "x", "cost_usd": 1.0, "archived": 0, "last_seen_at": "then"})
    assert not exporting._as_stored(record, {"id": "x", "cost_usd": 1, "last_seen_at": "then"})
    assert not exporting._as_stored(record, None)
