"""Archived Codex threads, as a user who archives them reads them.

A thread Codex archived (its rollout moved to ``archived_sessions/``, the thread index's
``archived`` set) looked like any other in ``list``, ``show`` and ``--json``.  Now its row
says ``"archived": true`` (additive: the key is absent for any other row), ``show``'s card
has an ``archived`` line, and ``list`` puts ``(archived)`` before its title.  A stale index
row (``archived = 1`` naming the file's old place in ``archived_sessions/`` while the file
is back in ``sessions/``: unarchived) does not make it archived: the file's place wins.
"""

from __future__ import annotations

import csv
import io
import sqlite3
from contextlib import closing
from pathlib import Path

import orjson

from builders import cli_json, invoke
from codex_builders import Calls, at, index_row, meta, rollout_path, turn_context, user_message, write_rollout, write_state_db

A = "019c1111-0000-7000-8000-00000000000a"  # archived: in archived_sessions/ (.zst), index says so
B = "019c1111-0000-7000-8000-00000000000b"  # active
C = "019c1111-0000-7000-8000-00000000000c"  # in sessions/, archived by the index row naming it
D = "019c1111-0000-7000-8000-00000000000d"  # back in sessions/, the index row stale (old archived path)


def _thread(codex: Path, thread: str, start: float, title: str, **where: bool) -> Path:
    calls = Calls()
    lines = [meta(thread, at(start)), turn_context(at(start + 1)), user_message(at(start + 1), title),
             calls.call(at(start + 10), 100, 0, 10)]
    return write_rollout(rollout_path(codex, thread, at(start), **where), lines)


def _home(home: Path) -> None:
    codex = home / ".codex"
    a = _thread(codex, A, 0, "archived one", archived=True, compressed=True)
    b = _thread(codex, B, 100, "live one")
    c = _thread(codex, C, 200, "marked in the index")
    _thread(codex, D, 300, "unarchived since")
    write_state_db(codex / "state_5.sqlite", [
        index_row(A, a, created=at(0), updated=at(20), archived=1),
        index_row(B, b, created=at(100), updated=at(120), archived=0),
        index_row(C, c, created=at(200), updated=at(220), archived=1),
        index_row(D, rollout_path(codex, D, at(300), archived=True), created=at(300), updated=at(320), archived=1),
    ])


def test_list_json_says_which_threads_are_archived(isolated_home: Path) -> None:
    _home(isolated_home)
    rows = {row["native_id"]: row for row in cli_json("list", "--all")["sessions"]}
    assert rows[A]["archived"] is True and rows[C]["archived"] is True
    assert "archived" not in rows[B] and "archived" not in rows[D]  # additive: only when set
    assert rows[A]["tokens"]["total"] == 110  # counted as before


def test_a_cached_run_says_it_too(isolated_home: Path) -> None:
    _home(isolated_home)
    cli_json("list", "--all")
    rows = {row["native_id"]: row for row in cli_json("list", "--all")["sessions"]}
    assert rows[A].get("archived") is True and "archived" not in rows[B]


def test_show_json_and_card(isolated_home: Path) -> None:
    _home(isolated_home)
    assert cli_json("show", f"codex:{A}")["session"]["archived"] is True
    assert "archived" not in cli_json("show", f"codex:{B}")["session"]
    card = invoke("show", f"codex:{A}").stdout
    assert "\n  archived yes\n" in card
    assert "archived" not in invoke("show", f"codex:{B}").stdout


def test_list_text_marks_the_title(isolated_home: Path) -> None:
    _home(isolated_home)
    lines = invoke("list", "--all").stdout.splitlines()
    by_id = {line.split()[0]: line for line in lines[1:] if line.startswith("codex:")}
    assert by_id[f"codex:{A}"].endswith("(archived) archived one")
    assert by_id[f"codex:{C}"].endswith("(archived) marked in the index")
    assert by_id[f"codex:{B}"].endswith("  live one") and "(archived)" not in by_id[f"codex:{D}"]


def test_every_export_format_says_it(isolated_home: Path, tmp_path: Path) -> None:
    """CSV's last column and SQLite's ``sessions.archived`` (migration ``m006_archived``) say it of
    every row; a JSON Lines row has the key only when set, as ``list --json``'s."""
    _home(isolated_home)
    out = tmp_path / "s.csv"
    assert invoke("export", "-f", "csv", "-o", str(out)).exit_code == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text("utf-8"))))
    assert {row["native_id"]: row["archived"] for row in rows} == {A: "true", B: "false", C: "true", D: "false"}
    db = tmp_path / "s.sqlite"
    assert invoke("export", "-o", str(db)).exit_code == 0
    with closing(sqlite3.connect(db)) as conn:
        assert dict(conn.execute("SELECT native_id, archived FROM sessions").fetchall()) == {A: 1, B: 0, C: 1, D: 0}
        conn.execute("ALTER TABLE sessions DROP COLUMN archived")  # an index from before the column
        conn.execute("DELETE FROM _agentscan_migrations WHERE name = 'm006_archived'")
        conn.commit()
    assert invoke("export", "-o", str(db)).exit_code == 0
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT native_id FROM sessions WHERE archived = 1 ORDER BY native_id").fetchall() == [(A,), (C,)]
    lines = [orjson.loads(line) for line in invoke("export", "-f", "jsonl").stdout.splitlines()]
    assert {row["native_id"] for row in lines if row.get("archived") is True} == {A, C}
    assert all("archived" not in row for row in lines if row["native_id"] in (B, D))
