"""A Cursor chat's archived state while its state DB cannot be read is not known, and is said
so (pass 54).

``isArchived`` is in the state DB.  Listed while that DB was corrupt (or locked, with no row
kept from a run that read it), an archived chat was a plain row in ``list``, left out of
``list --json``'s ``archived`` (which reads as ``false``), and ``false`` in a JSON Lines or CSV
export and ``0`` in a new SQLite index's row: a value made up, where the contract says an
unknown one is ``null``.  It is ``null`` now (an empty CSV cell, NULL), ``(archived?)`` in the
table, with a line saying what that means, and ``archived not known`` on ``show``'s card.  A chat whose row the index keeps from a run that
read the DB is known (that row says it), in ``list`` and by ``--no-archived`` alike.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import subprocess
import sys
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from builders import invoke
from cursor_builders import (
    assistant, break_schema, bubble, composer_data, make_state_db, state_db_path, user, write_transcript,
)

pytestmark = pytest.mark.usefixtures("only_cursor")

LIVE, SHELVED = "a5400000-0000-4000-8000-0000000000a1", "a5400000-0000-4000-8000-0000000000b2"
IDE_ONLY, NEW = "a5400000-0000-4000-8000-0000000000c3", "a5400000-0000-4000-8000-0000000000d4"
T0 = 1_780_000_000_000


def _chats(home: Path, *ide_only: str) -> Path:
    """Two IDE chats with transcripts, the second archived in Cursor's chat list; and the
    ``ide_only`` chats, which only the DB holds (discovery reads it for them)."""
    for chat, said in ((LIVE, "refunds over $500 fail"), (SHELVED, "old idea")):
        write_transcript(home, "home-dev-src-pay", chat, [user(said), assistant("ok")])
    return make_state_db(state_db_path(home), composers=[
        composer_data(LIVE, name="Refund 502", created=T0, updated=T0 + 60_000, fs_path="/home/dev/src/pay",
                      bubbles=["u1", "a1"]),
        composer_data(SHELVED, name="archived idea", created=T0, updated=T0 + 2_000, fs_path="/home/dev/src/pay",
                      bubbles=["u2", "a2"], isArchived=True),
        *(composer_data(chat, name="IDE only", created=T0, updated=T0 + 1_000, fs_path="/home/dev/src/web",
                        bubbles=["u3"]) for chat in ide_only),
    ], bubbles={
        LIVE: [bubble("u1", 1, "refunds over $500 fail", created="2026-05-28T20:26:40.000Z"),
               bubble("a1", 2, "ok", created="2026-05-28T20:27:00.000Z", tokens=(51_500, 2_630), model="gpt-5")],
        SHELVED: [bubble("u2", 1, "old idea", created="2026-05-28T20:26:40.000Z"),
                  bubble("a2", 2, "ok", created="2026-05-28T20:27:00.000Z", tokens=(500, 20), model="gpt-5")],
        **{chat: [bubble("u3", 1, "make the header sticky", created="2026-05-28T20:26:40.000Z")] for chat in ide_only},
    })


def _ok(*args: str):
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    return result


def test_a_corrupt_state_db_lists_archived_unknown_not_false(isolated_home: Path) -> None:
    break_schema(_chats(isolated_home))
    listed = {row["id"]: row for row in json.loads(_ok("list", "--json").stdout)["sessions"]}
    for chat in (LIVE, SHELVED):
        assert "archived" in listed[f"cursor:{chat}"] and listed[f"cursor:{chat}"]["archived"] is None
    table = _ok("list")
    rows = [line for line in table.stdout.splitlines() if line.startswith("cursor:")]
    assert len(rows) == 2 and all("(archived?) " in line for line in rows), table.stdout
    assert "(archived?) = whether the chat is archived is not known" in " ".join(table.stderr.split())
    shown = json.loads(_ok("show", SHELVED, "--json").stdout)["session"]
    assert "archived" in shown and shown["archived"] is None
    card = [line.split() for line in _ok("show", SHELVED).stdout.splitlines()]
    assert ["archived", "not", "known", "(could", "not", "be", "read)"] in card, card


def test_a_corrupt_state_db_exports_archived_unknown_not_false(isolated_home: Path, tmp_path: Path) -> None:
    break_schema(_chats(isolated_home))
    lines = [json.loads(line) for line in _ok("export", "-f", "jsonl", "-o", "-").stdout.splitlines()]
    assert {line["id"]: line["archived"] for line in lines} == {f"cursor:{LIVE}": None, f"cursor:{SHELVED}": None}
    cells = {row["id"]: row["archived"] for row in csv.DictReader(io.StringIO(_ok("export", "-f", "csv", "-o", "-").stdout))}
    assert cells == {f"cursor:{LIVE}": "", f"cursor:{SHELVED}": ""}
    out = tmp_path / "index.sqlite"
    _ok("export", "-f", "sqlite", "-o", str(out))
    with closing(sqlite3.connect(out)) as conn:
        stored = dict(conn.execute("SELECT id, archived FROM sessions").fetchall())
    assert stored == {f"cursor:{LIVE}": None, f"cursor:{SHELVED}": None}  # NULL, not 0


def test_an_index_row_held_keeps_its_archived_mark(isolated_home: Path, tmp_path: Path) -> None:
    db = _chats(isolated_home)
    out = tmp_path / "index.sqlite"
    _ok("export", "-f", "sqlite", "-o", str(out))
    break_schema(db)
    _ok("export", "-f", "sqlite", "-o", str(out))
    with closing(sqlite3.connect(out)) as conn:
        stored = dict(conn.execute("SELECT id, archived FROM sessions").fetchall())
    assert stored == {f"cursor:{LIVE}": 0, f"cursor:{SHELVED}": 1}


#: Cursor writing: its uncommitted change in a rollback journal beside the DB, the DB locked
_WRITING = r"""
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=0)
conn.execute("BEGIN EXCLUSIVE")
conn.execute("INSERT INTO ItemTable VALUES ('workbench.ui.state', 'x')")
print("ready", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


@contextmanager
def _cursor_writing(db: Path) -> Iterator[None]:
    with subprocess.Popen([sys.executable, "-c", _WRITING, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True) as writer:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        try:
            yield
        finally:
            writer.communicate("\n", timeout=30)


@pytest.mark.usefixtures("short_sqlite_wait")
def test_a_locked_state_db_takes_the_mark_of_a_kept_row(isolated_home: Path) -> None:
    db = _chats(isolated_home, IDE_ONLY)
    _ok("list")  # read with the DB: the rows kept, for the DB as it is
    # A new chat, written while Cursor holds the DB: its row is read, without the DB.
    write_transcript(isolated_home, "home-dev-src-pay", NEW, [user("a new chat"), assistant("ok")])
    with _cursor_writing(db):  # (the DB's file unchanged: its journal holds the write)
        shelved = _ok("list", "--json", "--no-archived")
        listed = _ok("list", "--all")
    doc = json.loads(shelved.stdout)
    # The kept row says it is not archived: listed (it was left out, its state "not known");
    # the new chat's is not known: left out, and counted.  The chat only the DB holds is listed
    # from what its last read kept (pass 56: it was left out), its kept row's mark with it.
    assert [row["id"] for row in doc["sessions"]] == [f"cursor:{LIVE}", f"cursor:{IDE_ONLY}"], doc
    assert "archived" not in doc["sessions"][0] and "archived" not in doc["sessions"][1]
    assert [entry["sessions"] for entry in doc["archived_unknown"]] == [1], doc["archived_unknown"]
    rows = {line.split()[0]: line for line in listed.stdout.splitlines() if line.startswith("cursor:")}
    assert "(archived) archived idea" in rows[f"cursor:{SHELVED}"]
    assert "(archived" not in rows[f"cursor:{LIVE}"] and "(archived?) a new chat" in rows[f"cursor:{NEW}"], rows
    said = " ".join(listed.stderr.split())
    assert said.count("database is locked by Cursor") == 1, said  # the state DB's warning, once
    assert "those only it holds as its last read found them" in said
    assert "(try again in a moment, or close Cursor)" in said
