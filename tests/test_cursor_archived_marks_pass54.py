"""Cursor's archived marks in a warm windowed ``tokens --json`` (pass 54).

A warm windowed report takes its sessions from the index (no discovery): whether a chat is
archived is asked of the state DB alone (``CursorProvider.archived_unread``).

* A chat only a workspace DB lists (an old composer whose conversation is inline there) has
  its flag in that entry, which was not read: its mark dropped out of the JSON while the
  same command's table said ``(archived)``.
* With the state DB locked and no row kept in the index (only ``tokens`` warmed it), the
  mark is not known: the row said nothing, as if not archived.  It is ``"archived": null``
  now, as ``list`` counts such chats ``archived_unknown``."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import bubble, make_state_db, make_workspace_db, state_db_path
from test_cursor_archived_pass53 import GONE, KEPT, _home

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

OLD = "a5400000-0000-4000-8000-00000000ee01"


def _settled(home: Path) -> None:
    """Every file of the home written long ago: the index keeps discovery (``scan.memo``)."""
    for directory, _, files in os.walk(home):
        for name in files:
            os.utime(os.path.join(directory, name), (1_700_000_000, 1_700_000_000))


def _rows(*args: str) -> dict[str, dict]:
    result = invoke("tokens", "--json", *args)
    assert result.exit_code == 0, result.stderr
    return {row["key"].split(":", 1)[1]: row for row in orjson.loads(result.stdout)["rows"]}


def test_a_workspace_only_chat_keeps_its_mark_in_a_warm_window(isolated_home: Path) -> None:
    make_state_db(state_db_path(isolated_home))  # the global DB knows nothing of it
    make_workspace_db(isolated_home, "file:///Users/dev/src/oldapp", [{
        "composerId": OLD, "name": "Old composer", "createdAt": 1700000000000, "lastUpdatedAt": 1700000600000,
        "isArchived": True,
        "conversation": [bubble("b1", 1, "rename the helper", created="2023-11-14T22:13:20.000Z"),
                         bubble("b2", 2, "Renamed.", tokens=(1200, 80), model="claude-3.5-sonnet",
                                created="2023-11-14T22:13:30.000Z")]}])
    _settled(isolated_home)
    assert invoke("list").exit_code == 0  # discovery kept: the next run's refs are the index's
    assert _rows("--since", "2020-01-01")[OLD].get("archived") is True
    assert "(archived) Old composer" in invoke("tokens", "--since", "2020-01-01").stdout


def test_a_mark_not_known_is_null_not_left_out(isolated_home: Path) -> None:
    db = _home(isolated_home)
    _settled(isolated_home)
    assert invoke("tokens", "--json").exit_code == 0  # no row kept: only the report's
    with LiveWriter("exclusive", db):
        rows = _rows("--since", "2020-01-01")
    assert rows, "the sessions' usage is in the report"
    assert rows[GONE]["archived"] is None and rows[KEPT]["archived"] is None
    # Read, it is known again: absent for a chat not archived, as before.
    rows = _rows("--since", "2020-01-01")
    assert rows[GONE]["archived"] is True and "archived" not in rows[KEPT]


def test_a_row_of_a_mark_not_known_is_not_kept(isolated_home: Path) -> None:
    # Kept (``rowmemo``), a report's row of a mark not known came back once the DB could be
    # read again (its files the same): the archived chat unmarked for good.
    db = _home(isolated_home)
    _settled(isolated_home)
    assert invoke("tokens", "--json", "--since", "2020-01-01").exit_code == 0  # sums kept, no row
    with LiveWriter("exclusive", db):
        assert _rows()[GONE]["archived"] is None
    assert _rows()[GONE]["archived"] is True
