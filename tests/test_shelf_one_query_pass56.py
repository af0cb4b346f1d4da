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

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

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
    asked = record_calls(monkeypatch, IndexConnection, "query", lambda self, sql, params: sql)
    result = invoke("list", "--all", "--no-archived", "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    # Each chat's kept row says it is not archived (pass 57: the kept row's mark stands,
    # ``keptrow.kept_archived``), so none is left out as not known.
    assert len(doc["sessions"]) == len(chats) and not doc.get("archived_unknown"), doc
    marks_asked = [sql for sql in asked if "'$.archived'" in sql]
    assert len(marks_asked) == 1, marks_asked  # (one query for the twelve, was one a chat)
    # By the chats' ids, not ``WHERE provider=?``: no index on ``provider``, so that read every
    # row of the index (a home of 20,000 Claude rows and 20 Cursor chats paid 50-110 ms).
    assert "session_id IN" in marks_asked[0] and "provider" not in marks_asked[0], marks_asked


def test_a_windowed_tokens_under_a_lock_asks_the_kept_marks_once(isolated_home: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``tokens --since`` under a locked state DB asks the kept rows' archived marks in one
    query (pass 57, ``Provider.before_archived_unread``): nothing in such a scan had opened the
    DB when the provider was told, so the batch was skipped and each chat asked alone."""
    from bad_corpus import LiveWriter
    from agentscan.scan.indexconn import IndexConnection
    from test_cursor_archived_pass53 import _home

    db = _home(isolated_home)
    assert invoke("list", "--all", "--json").exit_code == 0 and invoke("tokens", "--json").exit_code == 0
    asked = record_calls(monkeypatch, IndexConnection, "query", lambda self, sql, params: sql)
    with LiveWriter("exclusive", db):
        result = invoke("tokens", "--json", "--since", "2020-01-01")
    assert result.exit_code == 0, result.stderr
    assert len([sql for sql in asked if "'$.archived'" in sql]) == 1, asked


def test_the_chats_with_no_kept_row_are_asked_in_one_query(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chats Cursor wrote after the state DB was last read whole have no kept row: their archived
    state is not known, and whether the index keeps a row of theirs at their fingerprint is
    asked once for all of them (``ShelfUnknown._row_kept``, ``row_fingerprints``), not once a
    chat.  (Pass 57 let a kept row's mark stand, so the test above no longer reaches that
    query: pinned here again, pass 58.)  The provider's sessions are walked once for the batch
    told before ``archived_unread`` and the one asked of the index."""
    from agentscan.scan.indexconn import IndexConnection
    from agentscan.scan.scanner import Scanner

    kept_chats = [f"a5800000-0000-4000-8000-{n:012x}" for n in range(4)]
    new_chats = [f"a5800000-0000-4000-8000-{n:012x}" for n in range(4, 9)]
    for n, chat in enumerate(kept_chats):
        write_transcript(isolated_home, "home-dev-src-pay", chat, [user(f"task {n}"), assistant("ok")])
    db = make_state_db(state_db_path(isolated_home), composers=[
        composer_data(chat, name=f"chat {n}", created=T0, updated=T0 + n, fs_path="/home/dev/src/pay")
        for n, chat in enumerate(kept_chats)])
    assert invoke("list", "--all").exit_code == 0  # (read with the DB: rows kept)
    break_schema(db)
    for n, chat in enumerate(new_chats):  # (written since: no row kept of them)
        write_transcript(isolated_home, "home-dev-src-pay", chat, [user(f"later {n}"), assistant("ok")])
    asked = record_calls(monkeypatch, IndexConnection, "query", lambda self, sql, params: sql)
    walked = record_calls(monkeypatch, Scanner, "stored_refs", lambda self, provider: provider)
    result = invoke("list", "--all", "--no-archived", "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    listed = {row["native_id"] for row in doc["sessions"]}
    assert listed == set(kept_chats) and doc["archived_unknown"][0]["sessions"] == len(new_chats), doc
    kept_asked = [sql for sql in asked if sql.startswith("SELECT session_id, fingerprint FROM rows")]
    assert len(kept_asked) == 1, kept_asked  # (one query for the five, not one a chat)
    assert "session_id IN" in kept_asked[0] and "provider" not in kept_asked[0], kept_asked
    assert walked.count("cursor") == 1, walked
