"""A Cursor chat that recorded no usage stays so while its state DB is locked, when the index
keeps its row from a run that read the DB, unchanged since (pass 54).

The locked DB's warning says the sessions unchanged since its last read keep their figures,
and a chat with usage did; but one whose kept row says "recorded no usage" (Cursor's current
builds record none) was named "could not be read" by ``tokens`` (text and ``unreadable``),
``tokens_unknown`` by ``list --json``, and was kept out of a JSON Lines export: the rule
asked the provider alone, which cannot tell with the DB unread.  A row is kept only when read
with the DB, and its fingerprint takes in the DB's own, so such a row is the DB's answer
(``unreadrows.read_with_its_db``).  A chat new since that run has no kept row: still not known."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentscan.toolkit import sqlite_ro
from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import assistant, bubble, composer_data, make_state_db, state_db_path, user, write_transcript

pytestmark = pytest.mark.usefixtures("only_cursor")

SPENT = "a5400000-0000-4000-8000-00000000f001"
QUIET = "a5400000-0000-4000-8000-00000000f002"  # its bubbles record no tokens
NEW = "a5400000-0000-4000-8000-00000000f003"  # its transcript written after the last read
T0 = 1_780_000_000_000


@pytest.fixture(autouse=True)
def _short_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_ro, "BUSY_TIMEOUT_MS", 200)


def _home(home: Path) -> Path:
    write_transcript(home, "work-app", SPENT, [user("fix the build"), assistant("Fixed.")])
    write_transcript(home, "work-app", QUIET, [user("what is 2+2?"), assistant("4")])
    return make_state_db(state_db_path(home), composers=[
        composer_data(SPENT, name="spent chat", created=T0, updated=T0 + 1000, bubbles=["u1", "a1"]),
        composer_data(QUIET, name="quiet chat", created=T0, updated=T0 + 2000, bubbles=["u2", "a2"]),
    ], bubbles={SPENT: [bubble("u1", 1, "fix the build"), bubble("a1", 2, "Fixed.", tokens=(100, 20), model="gpt-5")],
                QUIET: [bubble("u2", 1, "what is 2+2?"), bubble("a2", 2, "4")]})


def _said(result) -> str:  # noqa: ANN001 - click's Result
    assert result.exit_code == 0, result.stderr
    return " ".join(result.stderr.split())


def test_a_kept_row_of_no_usage_is_not_called_unreadable(isolated_home: Path) -> None:
    db = _home(isolated_home)
    read = {row["native_id"]: row for row in orjson.loads(invoke("list", "--json").stdout)["sessions"]}
    assert read[QUIET]["tokens"] is None and "tokens_unknown" not in read[QUIET]  # the DB read: none recorded
    write_transcript(isolated_home, "work-app", NEW, [user("a new chat"), assistant("ok")])
    with LiveWriter("exclusive", db):
        table = invoke("tokens")
        report = invoke("tokens", "--json")
        window = invoke("tokens", "--since", "2020-01-01")
        window_json = invoke("tokens", "--json", "--since", "2020-01-01")
        listed = invoke("list", "--json")
        exported = invoke("export", "-f", "jsonl", "-o", "-")
    for said in (_said(table), _said(window)):
        assert "locked" in said
        assert f"(+ 1 session that recorded no usage, not counted: cursor:{QUIET})" in said, said
        assert f"(+ 1 session that could not be read, not counted: cursor:{NEW})" in said, said
    for result in (report, window_json):
        assert [entry["id"] for entry in orjson.loads(result.stdout)["unreadable"]] == [f"cursor:{NEW}"]
    rows = {row["native_id"]: row for row in orjson.loads(listed.stdout)["sessions"]}
    assert rows[QUIET]["tokens"] is None and "tokens_unknown" not in rows[QUIET]
    assert rows[NEW]["tokens_unknown"] is True  # new since the DB's last read: not known
    assert rows[SPENT]["tokens"]["total"] == 120  # kept figures, as before
    lines = {line["native_id"]: line for line in map(orjson.loads, exported.stdout.splitlines())}
    assert QUIET in lines and lines[QUIET]["tokens"] is None and not lines[QUIET].get("tokens_unknown")
    assert NEW not in lines  # left out, as a chat that could not be read
    assert "could not be read this run" in _said(exported)


def test_a_workspace_chat_of_a_db_broken_for_good_is_exported(isolated_home: Path) -> None:
    # The global DB broken for good (no lock to wait out): a chat only a workspace DB lists was
    # held out of every JSON Lines export as if locked; it is written, its usage not known.
    from test_cursor_damaged_global_pass52 import B, _home as damaged_home

    damaged_home(isolated_home, corrupt=True)
    for _ in range(2):  # cold, then from the kept rows
        exported = invoke("export", "-f", "jsonl", "-o", "-")
        lines = {line["native_id"]: line for line in map(orjson.loads, exported.stdout.splitlines())}
        assert B in lines and lines[B]["tokens"] is None and lines[B]["tokens_unknown"] is True
        assert "could not be read this run" not in _said(exported)
    assert f"could not be read, not counted: cursor:{B}" in _said(invoke("tokens"))  # not known, as before
