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

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import assistant, bubble, composer_data, make_state_db, state_db_path, user, write_transcript

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

SPENT = "a5400000-0000-4000-8000-00000000f001"
QUIET = "a5400000-0000-4000-8000-00000000f002"  # its bubbles record no tokens
NEW = "a5400000-0000-4000-8000-00000000f003"  # its transcript written after the last read
T0 = 1_780_000_000_000


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
    for _ in range(2):  # cold, then again (pass 55: no row read without the DB is kept)
        exported = invoke("export", "-f", "jsonl", "-o", "-")
        lines = {line["native_id"]: line for line in map(orjson.loads, exported.stdout.splitlines())}
        assert B in lines and lines[B]["tokens"] is None and lines[B]["tokens_unknown"] is True
        assert "could not be read this run" not in _said(exported)
    assert f"could not be read, not counted: cursor:{B}" in _said(invoke("tokens"))  # not known, as before


HEADED = "a5400000-0000-4000-8000-00000000f004"  # a Cursor 3.0 composer: its header names a workspace
WORKSPACE = "0123456789abcdef0123456789abcdef"


def _headed_home(home: Path) -> tuple[Path, Path]:
    import sqlite3
    from contextlib import closing

    from cursor_builders import HEADERS_DDL

    write_transcript(home, "work-app", HEADED, [user("what is 3+3?"), assistant("6")])
    db = make_state_db(state_db_path(home), composers=[
        composer_data(HEADED, name="headed chat", created=T0, updated=T0 + 3000, bubbles=["u3", "a3"])],
        bubbles={HEADED: [bubble("u3", 1, "what is 3+3?"), bubble("a3", 2, "6", tokens=(100, 20), model="gpt-5")]})
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(HEADERS_DDL)
        conn.execute("INSERT INTO composerHeaders (composerId, workspaceId, createdAt, lastUpdatedAt, isSubagent, recency)"
                     " VALUES (?, ?, ?, ?, 0, ?)", (HEADED, WORKSPACE, T0, T0 + 3000, T0 + 3000))
        conn.commit()
    directory = db.parent.parent / "workspaceStorage" / WORKSPACE
    directory.mkdir(parents=True)
    (directory / "workspace.json").write_bytes(orjson.dumps({"folder": f"file://{home}/proj"}))
    return db, directory / "workspace.json"


def test_a_headed_chat_keeps_its_figures_while_the_db_is_locked(isolated_home: Path) -> None:
    # Its fingerprint covers the workspace.json its header names; with the DB locked the headers
    # read as none, so the fingerprint never matched the kept one: "could not be read".
    db, workspace_json = _headed_home(isolated_home)
    read = {row["native_id"]: row for row in orjson.loads(invoke("list", "--json").stdout)["sessions"]}
    assert read[HEADED]["tokens"]["total"] == 120 and read[HEADED]["cwd"] == f"{isolated_home}/proj"
    # Another chat written since (Cursor at work): the roots changed, so discovery is done
    # again, fingerprints and all (the memo's refs carry the old ones: ``scan.memo``).
    write_transcript(isolated_home, "work-app", NEW, [user("a new chat"), assistant("ok")])
    with LiveWriter("exclusive", db):
        listed = invoke("list", "--json")
        table = invoke("tokens")
    assert f"(+ 1 session that could not be read, not counted: cursor:{NEW})" in _said(table), _said(table)
    rows = {row["native_id"]: row for row in orjson.loads(listed.stdout)["sessions"]}
    assert rows[HEADED]["tokens"]["total"] == 120 and "tokens_unknown" not in rows[HEADED]
    assert rows[HEADED]["cwd"] == f"{isolated_home}/proj"
    # Its workspace.json changed since the DB's last read: the kept row is stale, not taken.
    workspace_json.write_bytes(orjson.dumps({"folder": f"file://{isolated_home}/moved"}))
    with LiveWriter("exclusive", db):
        listed = invoke("list", "--json")
        table = invoke("tokens")
    rows = {row["native_id"]: row for row in orjson.loads(listed.stdout)["sessions"]}
    assert rows[HEADED]["tokens"] is None and rows[HEADED]["tokens_unknown"] is True
    assert f"(+ 2 sessions that could not be read, not counted: cursor:{NEW}, cursor:{HEADED})" in _said(table)
