"""A parent chat keeps its kept figures while the state DB is locked, and a run it lists that
has a transcript of its own is still no session (pass 55).

Which runs are a session's (``subComposerIds``, ``subagentInfo.parentComposerId``) is read
from ``composerData``, and a session's runs are part of its fingerprint.  While the DB was
locked those links read as none: the parent's fingerprint never equalled the kept one (its
tokens "could not be read"), and the run with its own top-level transcript was listed as a
session beside it.  The links are kept with the DB's stamp, as the headers are
(``keptfamily``), and taken while the DB, unchanged, cannot be read."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import assistant, bubble, composer_data, make_state_db, state_db_path, user, write_transcript

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

PARENT = "a5500000-0000-4000-8000-0000000000f1"
RUN = "a5500000-0000-4000-8000-0000000000f2"  # listed by the parent, with a transcript of its own
NEW = "a5500000-0000-4000-8000-0000000000f3"  # written after the DB's last read
T0 = 1_780_000_000_000


def _home(home: Path) -> Path:
    write_transcript(home, "work-app", PARENT, [user("plan the release"), assistant("Delegating.")])
    write_transcript(home, "work-app", RUN, [user("write the notes"), assistant("Done.")])
    return make_state_db(state_db_path(home), composers=[
        composer_data(PARENT, name="release plan", created=T0, updated=T0 + 1000, bubbles=["u1", "a1"], sub_ids=[RUN]),
        composer_data(RUN, name="notes", created=T0, updated=T0 + 2000, bubbles=["u2", "a2"]),
    ], bubbles={PARENT: [bubble("u1", 1, "plan the release"), bubble("a1", 2, "Delegating.", tokens=(100, 20), model="gpt-5")],
                RUN: [bubble("u2", 1, "write the notes"), bubble("a2", 2, "Done.", tokens=(7, 3), model="gpt-5")]})


def _rows(result) -> dict[str, dict]:  # noqa: ANN001 - click's Result
    assert result.exit_code == 0, result.stderr
    return {row["native_id"]: row for row in orjson.loads(result.stdout)["sessions"]}


def test_a_parent_keeps_its_runs_while_the_db_is_locked(isolated_home: Path) -> None:
    db = _home(isolated_home)
    read = _rows(invoke("list", "--json"))
    assert set(read) == {PARENT} and read[PARENT]["tokens"]["total"] == 130 and read[PARENT]["subagents"] == 1
    # Another chat written since (Cursor at work): the roots changed, so discovery is done
    # again, with the DB locked (the memo's refs carry the old family: ``scan.memo``).
    write_transcript(isolated_home, "work-app", NEW, [user("a new chat"), assistant("ok")])
    with LiveWriter("exclusive", db):
        listed = invoke("list", "--json")
        table = invoke("tokens", "--json")
    rows = _rows(listed)
    assert any("locked" in warning["message"] for warning in orjson.loads(listed.stdout)["warnings"])
    assert set(rows) == {PARENT, NEW}, rows  # the run is no session of its own: not counted twice
    assert rows[PARENT]["tokens"]["total"] == 130 and "tokens_unknown" not in rows[PARENT]
    report = orjson.loads(table.stdout)
    assert [entry["id"] for entry in report["unreadable"]] == [f"cursor:{NEW}"], report
    assert report["total"]["total"] == 130 and f"cursor:{RUN}" not in table.stdout


def test_links_of_a_db_changed_since_are_not_taken(isolated_home: Path) -> None:
    db = _home(isolated_home)
    _rows(invoke("list", "--json"))
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(db)) as conn:  # Cursor wrote since: the kept links are not this DB's
        conn.execute("INSERT INTO ItemTable VALUES ('workbench.ui.state', 'x')")
        conn.commit()
    write_transcript(isolated_home, "work-app", NEW, [user("a new chat"), assistant("ok")])
    with LiveWriter("exclusive", db):
        rows = _rows(invoke("list", "--json"))
    assert rows[PARENT]["tokens"] is None and rows[PARENT]["tokens_unknown"] is True  # not known, as before
    # The links kept at the DB's old stamp are not taken: the run, with a transcript of its own,
    # is listed as a session (as it was before pass 55), not as the parent's run of that read.
    assert RUN in rows and rows[PARENT]["subagents"] in (None, 0), rows


def test_show_of_the_parent_while_locked_lists_its_run_with_its_tokens(isolated_home: Path) -> None:
    # Its card from the kept row (``showing._as_kept``); its run's tokens and model from the
    # kept sums: "tokens not recorded" was said of a run of 10 tokens.
    db = _home(isolated_home)
    assert invoke("list").exit_code == 0
    read = invoke("show", PARENT)
    with LiveWriter("exclusive", db):
        locked = invoke("show", PARENT)
        shown = orjson.loads(invoke("show", "--json", PARENT).stdout)["session"]
    assert locked.exit_code == 0 and "locked" in locked.stderr
    assert locked.stdout == read.stdout
    (run,) = shown["subagents"]
    assert run["tokens"]["total"] == 10 and run["model"] == "gpt-5" and shown["tokens"]["total"] == 130
