"""A Cursor state DB that fails is "locked" by SQLite's result code, not by its words (pass 52).

``statedb_reader._reason`` took any error whose text held "locked" or "busy" for another
program's lock: a corrupt DB whose broken schema names a ``lockedFiles`` table was said
"locked by Cursor or another program (try again in a moment, or close Cursor)", advice that
never mends it.  SQLite's own code (``SQLITE_BUSY``, ``SQLITE_LOCKED``) tells a lock; a real
one is still said so (tests/test_cursor_pass34.py)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import invoke
from cursor_builders import break_schema, bubble, composer_data, make_state_db, state_db_path

pytestmark = pytest.mark.usefixtures("only_cursor")

A = "a5200000-0000-4000-8000-000000000001"


def test_a_corrupt_schema_that_names_a_lock_is_not_a_lock(isolated_home: Path) -> None:
    db = make_state_db(state_db_path(isolated_home), composers=[composer_data(A, name="a chat", bubbles=["u"])],
                       bubbles={A: [bubble("u", 1, "hello")]})
    break_schema(db, "lockedFiles")
    result = invoke("doctor", "--json")
    (cursor,) = [provider for provider in orjson.loads(result.stdout)["providers"] if provider["provider"] == "cursor"]
    said = " ".join([*cursor["findings"], *(root["problem"] or "" for root in cursor["roots"])])
    assert "malformed database schema (lockedFiles)" in said, said
    assert "locked by Cursor" not in said and "try again" not in said, said
