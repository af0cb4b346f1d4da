"""The index is asked once for a batch of sessions whose usage (and so archived state) may
not be known, not once a session (pass 55): ``list`` and ``export`` marking rows of a Cursor
state DB locked (``unreadrows.archived_unknown_ids``), and ``tokens`` naming why each session
it could not read was not read (``tokenrowmarks.unread_causes``); and what the index keeps of
such a session is asked once a scan, however many outputs' marks ask it
(``unreadrows.read_with_its_db``).  The answers are unchanged
(``test_cursor_archived_unknown_pass54`` holds them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import invoke
from cursor_builders import assistant, user, write_transcript
from spies import record_calls
from test_cursor_archived_unknown_pass54 import IDE_ONLY, NEW, _chats, _cursor_writing

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

OTHER_NEW = "a5400000-0000-4000-8000-0000000000e5"


def _locked_home(home: Path) -> Path:
    db = _chats(home, IDE_ONLY)
    assert invoke("list").exit_code == 0  # read with the DB: the rows kept, for the DB as it is
    for chat in (NEW, OTHER_NEW):  # written while Cursor holds the DB: read without it
        write_transcript(home, "home-dev-src-pay", chat, [user("a new chat"), assistant("ok")])
    return db


def test_rows_of_a_locked_db_are_marked_with_one_question_to_the_index(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan.cache import Cache

    db = _locked_home(isolated_home)
    with _cursor_writing(db):
        asked = record_calls(monkeypatch, Cache, "row_fingerprints", lambda self, ids: tuple(ids))
        sums = record_calls(monkeypatch, Cache, "get_usage_sums", lambda self, ids: tuple(ids))
        listed = invoke("list", "--all", "--json")
    assert listed.exit_code == 0, listed.stderr
    archived = {row["id"]: row.get("archived", False) for row in json.loads(listed.stdout)["sessions"]}
    assert archived[f"cursor:{NEW}"] is None and archived[f"cursor:{OTHER_NEW}"] is None
    # One question of the chats together for each: what the index keeps of those the DB holds
    # (``read_with_its_db``'s sums, which ``tokens_unknown``'s marks take again from this scan),
    # and which rows it keeps (``Scanner.rows_kept``).  The archived marks asked once a chat: five.
    assert len(asked) == 1 and len(asked[0]) >= 2, asked
    # (and the rows built without the DB take their tokens from the kept sums: one more, batched)
    assert len(sums) <= 2 and all(len(ids) >= 2 for ids in sums), sums


def test_the_causes_of_unread_sessions_are_asked_at_once(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan import unreadrows

    db = _locked_home(isolated_home)
    with _cursor_writing(db):
        asked = record_calls(monkeypatch, unreadrows, "unknown_usages", lambda scanner, pairs: len(pairs))
        report = invoke("tokens", "--json")
    assert report.exit_code == 0, report.stderr
    document = json.loads(report.stdout)
    assert {entry["id"] for entry in document["unreadable"]} >= {f"cursor:{NEW}", f"cursor:{OTHER_NEW}"}, document
    assert 1 not in asked and len(asked) <= 2, asked  # (which sessions are unread, then why: each once)

