"""What a corrupt or locked Cursor state DB leaves a user told (pass 53).

* A home whose only Cursor data is a damaged ``state.vscdb`` said "no sessions found; doctor
  shows where agentscan looked" under ``list`` and ``tokens``: the DB that may hold them
  could not be read, and that is said instead (``--json`` stays the same document).
* An Agent CLI chat (its own ``store.db``) was "could not be read" in ``tokens`` and "not
  known" in ``show`` while the DB was damaged or locked, though the CLI writes nothing to the
  IDE's DB and records no tokens anywhere (formats.md 4.2): "recorded no usage", as with the
  DB sound.
* A transcript session's subagents said "tokens not recorded" under a card saying the
  session's own tokens are "not known": their tokens are the same DB's."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import (assistant, break_schema, bubble, composer_data, make_state_db, state_db_path, tool, user,
                             write_chat_store, write_subagent, write_transcript)

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

A = "a5300000-0000-4000-8000-0000000000a1"
CLI = "a5300000-0000-4000-8000-0000000000c3"
P = "a5300000-0000-4000-8000-0000000000d1"
C = "a5300000-0000-4000-8000-0000000000d2"
SAID = "no sessions found: a Cursor database that may hold some could not be read (see the warning)"


def _db(home: Path) -> Path:
    return make_state_db(state_db_path(home), composers=[composer_data(A, name="global chat", bubbles=["u"])],
                         bubbles={A: [bubble("u", 1, "hello", tokens=(10, 20))]})


def test_a_damaged_db_alone_is_said_not_sent_to_doctor(isolated_home: Path) -> None:
    db = break_schema(_db(isolated_home))
    for command in ("list", "tokens"):
        result = invoke(command)
        assert result.exit_code == 0, result.stderr
        said = " ".join(result.stderr.split())
        assert SAID in said, said
        assert "shows where agentscan looked" not in said
        assert f"warning: {db}: Cursor state DB not used" in said
        document = orjson.loads(invoke(command, "--json").stdout)  # the same document as ever
        assert [w["path"] for w in document["warnings"]] == [str(db)]


def test_an_export_of_nothing_says_it_too(isolated_home: Path, tmp_path: Path) -> None:
    break_schema(_db(isolated_home))
    result = invoke("export", "--format", "sqlite", "-o", str(tmp_path / "out.db"))
    assert result.exit_code == 0, result.stderr
    said = " ".join((result.stdout + result.stderr).split())
    assert f"(sqlite): {SAID}" in said, said
    assert "shows where agentscan looked" not in said


def test_a_sound_empty_home_still_points_at_doctor(isolated_home: Path) -> None:
    said = " ".join(invoke("list").stderr.split())
    assert "shows where agentscan looked" in said and "could not be read" not in said


def test_an_agent_cli_chat_recorded_no_usage_whatever_the_db(isolated_home: Path) -> None:
    db = _db(isolated_home)
    write_chat_store(isolated_home, "/work/cli", CLI, meta={"name": "cli chat", "cwd": "/work/cli"},
                     store={"name": "cli chat"})
    sound = " ".join(invoke("tokens").stderr.split())
    assert f"recorded no usage, not counted: cursor:{CLI}" in sound, sound
    with LiveWriter("exclusive", db):
        locked = " ".join(invoke("tokens").stderr.split())
    break_schema(db)
    corrupt = " ".join(invoke("tokens").stderr.split())
    # Locked, the global chat keeps its row as last read: the CLI chat is named under it.
    assert f"(+ 1 session that recorded no usage, not counted: cursor:{CLI})" in locked, locked
    assert "no usage: the only" not in locked
    # Corrupt, the global chat is left out: the CLI chat is the one session read, said once (pass 60),
    # not "the only" one: the DB that could not be read may hold more (pass 61).
    assert corrupt.startswith("no usage: the one Cursor session read recorded none (its tokens are not recorded, "
                              f"as `agentscan show cursor:{CLI}` says); a Cursor database that may hold more could "
                              "not be read (see the warning) warning: "), corrupt
    assert "recorded no usage, not counted" not in corrupt
    for said in (locked, corrupt):
        assert "could not be read, not counted" not in said
    card = invoke("show", CLI)
    assert card.exit_code == 0, card.stderr
    assert "tokens   not recorded" in card.stdout, card.stdout
    assert "tokens_unknown" not in orjson.loads(invoke("show", CLI, "--json").stdout)["session"]


def test_a_transcript_session_still_not_known_and_its_subagents_too(isolated_home: Path) -> None:
    break_schema(_db(isolated_home))
    write_transcript(isolated_home, "work-proj", P, [user("parent task"),
                                                     assistant("delegating", tool("Task", description="sub")),
                                                     assistant("done")])
    write_subagent(isolated_home, "work-proj", P, C, [user("do x"), assistant("did x")])
    card = invoke("show", P)
    assert card.exit_code == 0, card.stderr
    assert "tokens   not known (could not be read)" in card.stdout, card.stdout
    assert f"{C}  tokens not known" in card.stdout and "tokens not recorded" not in card.stdout
    said = " ".join(invoke("tokens").stderr.split())
    assert f"could not be read, not counted: cursor:{P}" in said, said
    assert orjson.loads(invoke("show", P, "--json").stdout)["session"]["tokens_unknown"] is True
    # ``list --json`` says it of the row too (its ``tokens`` null either way), as ``show`` does
    (row,) = orjson.loads(invoke("list", "--json").stdout)["sessions"]
    assert row["tokens"] is None and row["tokens_unknown"] is True


def test_list_json_says_unknown_only_of_what_is_unknown(isolated_home: Path) -> None:
    db = _db(isolated_home)
    write_chat_store(isolated_home, "/work/cli", CLI, meta={"name": "cli chat", "cwd": "/work/cli"},
                     store={"name": "cli chat"})
    write_transcript(isolated_home, "work-proj", P, [user("parent task"), assistant("done")])
    rows = {row["native_id"]: row for row in orjson.loads(invoke("list", "--json").stdout)["sessions"]}
    assert not any("tokens_unknown" in row for row in rows.values())  # the DB sound: none
    break_schema(db)
    rows = {row["native_id"]: row for row in orjson.loads(invoke("list", "--json").stdout)["sessions"]}
    assert rows[P]["tokens_unknown"] is True
    assert "tokens_unknown" not in rows[CLI]  # the Agent CLI recorded none, wherever


def test_doctor_says_the_database_not_where_to_look(isolated_home: Path) -> None:
    # Its last line sent the user to move their agents' folders ("set the variable that moves
    # them"): the folder was right, the DB in it damaged.
    break_schema(_db(isolated_home))
    last = " ".join(invoke("doctor").stdout.split("\n\n")[-1].split())
    assert last == "no sessions found for any agent here, and Cursor's database could not be used: see its STATUS above"
