"""An archived Cursor chat stays marked in a windowed ``tokens --json`` while its state DB is
locked (pass 53).

``tokens --json --since`` asked the provider alone (``archived_unread``), which cannot tell
with the DB unread: ``"archived"`` dropped out of the JSON while the same command's table
said ``(archived)`` and ``list --all --json`` said ``true``, both from the row the index
keeps.  The JSON now takes that row's mark too (``tokenrowmarks.marked_archived``)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from test_cursor_archived_pass53 import GONE, KEPT, _home

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")


def test_a_windowed_json_keeps_the_mark_its_table_shows(isolated_home: Path) -> None:
    db = _home(isolated_home)
    assert invoke("list", "--all", "--json").exit_code == 0  # the rows kept, marks and all
    assert invoke("tokens", "--json").exit_code == 0
    with LiveWriter("exclusive", db):
        window = invoke("tokens", "--json", "--since", "2020-01-01")
        table = invoke("tokens", "--since", "2020-01-01")
        listed = invoke("list", "--all", "--json")
    assert window.exit_code == 0, window.stderr
    assert "locked" in window.stderr or any("locked" in warning["message"]
                                            for warning in orjson.loads(window.stdout)["warnings"])
    rows = {row["key"].split(":", 1)[1]: row for row in orjson.loads(window.stdout)["rows"]}
    said = {row["native_id"]: row.get("archived") for row in orjson.loads(listed.stdout)["sessions"]}
    assert GONE in rows and said[GONE] is True and "(archived) archived chat" in table.stdout
    for native_id, row in rows.items():  # as ``list`` and the table say each
        assert row.get("archived") is said.get(native_id), (native_id, row)
    assert rows[GONE].get("archived") is True
    assert "archived" not in rows.get(KEPT, {})
