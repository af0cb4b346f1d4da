"""``--archived``/``--no-archived`` under a Cursor state DB that cannot be read ask the index
which rows it keeps (a kept row knows its archived state) once, not once a row
(``unreadrows.ShelfUnknown``): 3,000 chats were 3,000 queries.  What is listed and counted is
unchanged (``test_cursor_archived_unknown_pass54``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import invoke
from cursor_builders import assistant, break_schema, composer_data, make_state_db, state_db_path, user, write_transcript
from spies import record_calls

pytestmark = pytest.mark.usefixtures("only_cursor")

T0 = 1_780_000_000_000


def test_the_rows_kept_are_asked_once_for_every_row(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan.indexconn import IndexConnection

    chats = [f"a5600000-0000-4000-8000-{n:012x}" for n in range(12)]
    for n, chat in enumerate(chats):
        write_transcript(isolated_home, "home-dev-src-pay", chat, [user(f"task {n}"), assistant("ok")])
    db = make_state_db(state_db_path(isolated_home), composers=[
        composer_data(chat, name=f"chat {n}", created=T0, updated=T0 + n, fs_path="/home/dev/src/pay")
        for n, chat in enumerate(chats)])
    assert invoke("list", "--all").exit_code == 0  # (read with the DB: rows kept)
    break_schema(db)
    asked = record_calls(monkeypatch, IndexConnection, "_query", lambda self, sql, params: sql)
    result = invoke("list", "--all", "--no-archived", "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["sessions"] == [] and doc["archived_unknown"][0]["sessions"] == len(chats), doc
    kept_asked = [sql for sql in asked if sql.startswith("SELECT session_id, fingerprint FROM rows")]
    assert len(kept_asked) == 1, kept_asked
    # By the chats' ids, not ``WHERE provider=?``: no index on ``provider``, so that read every
    # row of the index (a home of 20,000 Claude rows and 20 Cursor chats paid 50-110 ms).
    assert "session_id IN" in kept_asked[0] and "provider" not in kept_asked[0], kept_asked
