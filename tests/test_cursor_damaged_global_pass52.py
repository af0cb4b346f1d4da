"""A damaged global ``state.vscdb`` hides no composer a workspace DB lists (pass 52).

Only composers with an inline conversation were listed from a workspace DB: with the global
DB corrupt, ``doctor`` said "1 composer listed" yet "Cursor: 0 sessions", and ``list`` said
"no sessions found".  Such a composer is now a row from what the workspace DB says (name,
times, folder), its tokens unknown (``null``, "could not be read" in ``tokens``, not "recorded
no usage"), its counts partial; the warning names the damaged DB.  Nothing is written to it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest

from builders import invoke
from cursor_builders import (break_schema, bubble, composer_data, make_state_db, make_workspace_db, state_db_path,
                             state_db_with_unread_wal, write_chat_store)

pytestmark = pytest.mark.usefixtures("only_cursor")

A = "a5200000-0000-4000-8000-0000000000a1"
B = "a5200000-0000-4000-8000-0000000000b2"


def _home(home: Path, *, corrupt: bool) -> Path:
    db = make_state_db(state_db_path(home), composers=[composer_data(A, name="global chat", bubbles=["u"])],
                       bubbles={A: [bubble("u", 1, "hello", tokens=(10, 20))]})
    make_workspace_db(home, "file:///work/proj", [
        {"composerId": A, "name": "global chat", "createdAt": 1764000000000, "lastUpdatedAt": 1764000500000},
        {"composerId": B, "name": "second chat", "createdAt": 1764100000000, "lastUpdatedAt": 1764100500000},
    ])
    return break_schema(db) if corrupt else db


def test_a_corrupt_global_db_still_lists_the_workspace_composers(isolated_home: Path) -> None:
    db = _home(isolated_home, corrupt=True)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    listed = orjson.loads(invoke("list", "--json").stdout)
    rows = {row["native_id"]: row for row in listed["sessions"]}
    assert set(rows) == {A, B}, rows
    assert rows[B]["title"] == "second chat" and rows[B]["cwd"] == "/work/proj"
    assert rows[B]["updated_at"].startswith("2025-11-25")
    assert rows[A]["tokens"] is None and rows[B]["tokens"] is None  # unknown, never 0
    assert rows[B]["counts_partial"] is True
    assert any(w["path"] == str(db) and "Cursor state DB not used" in w["message"] for w in listed["warnings"])
    tokens = invoke("tokens")
    assert "could not be read, not counted" in tokens.stdout + tokens.stderr
    assert "recorded no usage" not in tokens.stdout + tokens.stderr
    doctor = invoke("doctor")
    assert "Cursor [cursor]: 2 sessions" in doctor.stdout, doctor.stdout
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # never written


def test_a_sound_global_db_lists_only_its_own(isolated_home: Path) -> None:
    # A composer a workspace DB lists but the sound global DB no longer holds (deleted in
    # Cursor) stays unlisted, as before.
    _home(isolated_home, corrupt=False)
    rows = orjson.loads(invoke("list", "--json").stdout)["sessions"]
    assert [row["native_id"] for row in rows] == [A]
    assert rows[0]["tokens"]["total"] == 30


M = "a5200000-0000-4000-8000-0000000000c3"


def test_a_composer_whose_bubbles_are_gone_says_so(isolated_home: Path) -> None:
    # Its conversation lists two bubbles and the DB holds neither: "0 prompts" and no tokens
    # read as an empty chat; one warning names the composer (again on a warm run, from the
    # kept stats), and the other composer is untouched.
    db = make_state_db(state_db_path(isolated_home), composers=[
        composer_data(A, name="whole", created=1764000000000, updated=1764000500000, bubbles=["u"]),
        composer_data(M, name="gone", created=1764000000000, updated=1764000600000, bubbles=["x", "y"])],
        bubbles={A: [bubble("u", 1, "hello", tokens=(10, 20))]})
    said = f"conversation missing from the DB: composer {M} lists 2 bubbles, none of them there"
    for _ in range(2):
        listed = orjson.loads(invoke("list", "--json").stdout)
        rows = {row["native_id"]: row for row in listed["sessions"]}
        assert rows[A]["tokens"]["total"] == 30 and rows[M]["title"] == "gone"
        (warning,) = [w for w in listed["warnings"] if said in w["message"]]
        assert warning["path"] == str(db)
    assert not [w for w in listed["warnings"] if A in w["message"]]


def test_an_empty_global_db_is_said_empty(isolated_home: Path) -> None:
    # A 0-byte state.vscdb (a crash before its first page) is said so, not "not a SQLite
    # database" alone, and the composers the workspace DB lists are still rows.
    db = _home(isolated_home, corrupt=False)
    db.write_bytes(b"")
    listed = orjson.loads(invoke("list", "--json").stdout)
    assert {row["native_id"] for row in listed["sessions"]} == {A, B}
    (warning,) = [w for w in listed["warnings"] if w["path"] == str(db)]
    assert "Cursor state DB not used (an empty file (0 bytes), not a SQLite database)" in warning["message"]


def test_a_damaged_workspace_db_is_one_warning_naming_it_once(isolated_home: Path) -> None:
    _home(isolated_home, corrupt=False)
    (workspace_db,) = (state_db_path(isolated_home).parent.parent / "workspaceStorage").glob("*/state.vscdb")
    workspace_db.write_bytes(b"")
    listed = orjson.loads(invoke("list", "--json").stdout)
    assert [row["native_id"] for row in listed["sessions"]] == [A]  # the global DB's, whole
    (warning,) = [w for w in listed["warnings"] if w["path"] == str(workspace_db)]
    assert warning["message"] == "Cursor workspace DB not read: an empty file (0 bytes), not a SQLite database"


W = "a5200000-0000-4000-8000-0000000000d4"


def test_a_wal_left_without_its_shm_is_said(isolated_home: Path) -> None:
    # Cursor crashed: its -wal holds the newest composer, its -shm is gone.  A read-only open
    # reads the main file alone (nothing is made beside the DB): said, on every run, not silent.
    db = state_db_with_unread_wal(
        isolated_home, composers=[composer_data(A, name="old chat", bubbles=["u"])],
        bubbles={A: [bubble("u", 1, "hello", tokens=(10, 20))]},
        in_wal=[(f"composerData:{W}", orjson.dumps(composer_data(W, name="newest", bubbles=["w"]))),
                (f"bubbleId:{W}:w", orjson.dumps(bubble("w", 1, "new")))])
    said = "state DB read from its main file alone: its latest changes are in its -wal"
    for _ in range(2):  # cold, then warm: the rows read without the -wal were not kept as whole
        listed = orjson.loads(invoke("list", "--json").stdout)
        assert [row["native_id"] for row in listed["sessions"]] == [A]
        assert [w["path"] for w in listed["warnings"] if said in w["message"]] == [str(db)]
    assert sorted(p.name for p in db.parent.iterdir()) == ["state.vscdb", "state.vscdb-wal"]  # nothing made
    doctor = orjson.loads(invoke("doctor", "--json").stdout)
    (cursor,) = [provider for provider in doctor["providers"] if provider["provider"] == "cursor"]
    assert any("used from its main file alone" in finding for finding in cursor["findings"]), cursor["findings"]


def test_an_empty_cli_store_is_one_warning_naming_it_once(isolated_home: Path) -> None:
    # The Agent CLI crashed as it made its store.db: the chat is still listed from meta.json.
    chat = "a5200000-0000-4000-8000-0000000000e5"
    directory = write_chat_store(isolated_home, "/work/cli", chat, meta={"name": "cli chat", "cwd": "/work/cli"},
                                 store={"name": "cli chat"})
    (directory / "store.db").write_bytes(b"")
    listed = orjson.loads(invoke("list", "--json").stdout)
    assert [row["native_id"] for row in listed["sessions"]] == [chat]
    said = {w["message"] for w in listed["warnings"] if w["path"] == str(directory / "store.db")}
    assert said == {"Agent CLI store not read: an empty file (0 bytes), not a SQLite database"}
