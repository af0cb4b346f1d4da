"""A Cursor chat the user archived is marked, as a Codex thread archived is (pass 53).

``composerData.isArchived`` (``true``), the ``composerHeaders`` table's ``isArchived`` (``1``)
and a workspace DB entry's were not read: an archived chat looked like any other.  It is
now ``"archived": true`` in ``--json`` (absent for the others), ``(archived)`` before its
title in ``list`` and ``tokens``, and an ``archived yes`` line on ``show``'s card; it is
still listed and counted."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest

from builders import invoke
from cursor_builders import (assistant, break_schema, bubble, composer_data, make_state_db, make_workspace_db,
                             state_db_path, user, write_transcript)

pytestmark = pytest.mark.usefixtures("only_cursor")

KEPT = "a5300000-0000-4000-8000-00000000ee01"
GONE = "a5300000-0000-4000-8000-00000000ee02"
TABLED = "a5300000-0000-4000-8000-00000000ee03"
T0 = 1_780_000_000_000


def _home(home: Path) -> Path:
    write_transcript(home, "work-app", GONE, [user("old idea"), assistant("ok")])
    db = make_state_db(state_db_path(home), composers=[
        composer_data(KEPT, name="live chat", created=T0, updated=T0 + 1000, bubbles=["u"]),
        composer_data(GONE, name="archived chat", created=T0, updated=T0 + 2000, bubbles=["v"], isArchived=True),
        composer_data(TABLED, name="table archived", created=T0, updated=T0 + 3000, bubbles=["w"], isArchived=False),
    ], bubbles={KEPT: [bubble("u", 1, "hi", tokens=(10, 20))], GONE: [bubble("v", 1, "old idea", tokens=(5, 5))],
                TABLED: [bubble("w", 1, "tabled", tokens=(1, 1))]},
        headers_table=[(KEPT, T0, T0 + 1000, 0), (GONE, T0, T0 + 2000, 0), (TABLED, T0, T0 + 3000, 0)])
    with closing(sqlite3.connect(db)) as conn:  # (the header alone says it: Cursor 3.x's list)
        conn.execute("UPDATE composerHeaders SET isArchived = 1 WHERE composerId = ?", (TABLED,))
        conn.commit()
    return db


def test_an_archived_chat_is_marked_everywhere(isolated_home: Path) -> None:
    _home(isolated_home)
    for _ in range(2):  # cold, then from the kept rows
        rows = {row["native_id"]: row for row in orjson.loads(invoke("list", "--json").stdout)["sessions"]}
        assert rows[GONE]["archived"] is True and rows[TABLED]["archived"] is True
        assert "archived" not in rows[KEPT]  # absent, not false, as for Codex
        assert rows[GONE]["tokens"]["total"] == 10  # counted as any other
    listed = invoke("list").stdout
    assert "(archived) archived chat" in listed and "(archived) table archived" in listed
    assert "(archived) live chat" not in listed
    assert "(archived) archived chat" in invoke("tokens").stdout
    card = invoke("show", GONE).stdout
    assert any(line.split() == ["archived", "yes"] for line in card.splitlines()), card
    assert not [line for line in invoke("show", KEPT).stdout.splitlines() if line.split()[:1] == ["archived"]]


def test_a_workspace_entry_archived_is_marked(isolated_home: Path) -> None:
    # Only a workspace DB lists it (the global DB damaged): its entry's flag is read.
    db = make_state_db(state_db_path(isolated_home), composers=[])
    make_workspace_db(isolated_home, "file:///work/proj", [
        {"composerId": GONE, "name": "archived chat", "createdAt": T0, "lastUpdatedAt": T0 + 500, "isArchived": True},
        {"composerId": KEPT, "name": "live chat", "createdAt": T0, "lastUpdatedAt": T0 + 600},
    ])
    break_schema(db)
    rows = {row["native_id"]: row for row in orjson.loads(invoke("list", "--json").stdout)["sessions"]}
    assert rows[GONE].get("archived") is True and "archived" not in rows[KEPT]
