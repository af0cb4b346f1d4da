"""Nothing read while Cursor's state DB could not be read is kept in the index (pass 55).

docs/providers/cursor.md says so, and it held for every row but one kind: a composer listed
from its workspace DB alone while the global DB was corrupt or locked.  Its row reads nothing
of the global DB, so its capture never heard the DB could not be read, and the row was kept
(its tokens ``null``, its counts partial).  Asked of the DB now, the row hears the failure
again, as every other row does."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from test_cursor_damaged_global_pass52 import A, B, _home

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")


def _kept_rows(home: Path) -> list[str]:
    with closing(sqlite3.connect(home.parent / "agentscan-cache" / "index.sqlite")) as conn:  # (``isolated_home``'s)
        return [row[0] for row in conn.execute("SELECT session_id FROM rows")]


@pytest.mark.parametrize("damage", ["corrupt", "locked"])
def test_no_row_read_without_the_global_db_is_kept(isolated_home: Path, damage: str) -> None:
    db = _home(isolated_home, corrupt=damage == "corrupt")
    if damage == "locked":
        with LiveWriter("exclusive", db):
            listed = invoke("list", "--json")
    else:
        listed = invoke("list", "--json")
    assert listed.exit_code == 0, listed.stderr
    assert {row["native_id"] for row in orjson.loads(listed.stdout)["sessions"]} == {A, B}  # listed, as before
    assert _kept_rows(isolated_home) == []
