"""A Cursor chat whose row is built without its locked state DB takes what the DB said last time
from the row the index keeps of it (pass 56), and a model tie has one rule.

A chat written since the DB's last read (Cursor at work in it) has no row kept for its files
as they are: its row is built without the DB.  ``list`` showed the transcript's mtime as
UPDATED, its first prompt as title and MODEL ``-``, and ``show`` agreed only when the index
kept the row at its fingerprint (``showing._as_kept`` built its own row otherwise).  The row kept
at its older fingerprint lends the name, model, folder and times (``cursor.keptrow``); ``show``
takes the scanner's row, as ``list``, ``tokens`` and an export do."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import (
    assistant, bubble, composer_data, make_state_db, state_db_path, user, write_subagent, write_transcript,
)

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

SPENT = "a5600000-0000-4000-8000-00000000c001"
RUN = "a5600000-0000-4000-8000-00000000c002"  # a run only the DB holds (its bubbles)
T0 = 1_780_000_000_000
KEYS = ("title", "model", "cwd", "started_at", "updated_at")


def _home(home: Path, *, bad: bool = False) -> Path:
    write_transcript(home, "work-app", SPENT, [user("fix the build"), assistant("Fixed.")])
    return make_state_db(state_db_path(home), composers=[
        composer_data(SPENT, name="spent chat", created=T0, updated=T0 + 1000, model="gpt-5",
                      fs_path=str(home / "app"), bubbles=["u1", "a1"]),
    ], bubbles={SPENT: [bubble("u1", 1, "fix the build"),
                        bubble("a1", 2, "Fixed.", tokens=(100.5 if bad else 100, 20), model="gpt-5")]})


def _doc(result) -> dict:  # noqa: ANN001 - click's Result
    assert result.exit_code == 0, result.stderr
    return orjson.loads(result.stdout)


def _grown(home: Path) -> None:
    write_transcript(home, "work-app", SPENT, [user("fix the build"), assistant("Fixed."), user("and the tests")])


def test_a_row_built_without_the_db_takes_the_kept_rows_facts(isolated_home: Path) -> None:
    db = _home(isolated_home)
    read = _doc(invoke("list", "--json"))["sessions"][0]
    assert read["title"] == "spent chat" and read["model"] == "gpt-5"
    _grown(isolated_home)
    with LiveWriter("exclusive", db):
        listed = _doc(invoke("list", "--json"))["sessions"][0]
        shown = _doc(invoke("show", "--json", SPENT))["session"]
        table = invoke("tokens")
        report = _doc(invoke("tokens", "--json"))
        exported = invoke("export", "-f", "jsonl", "-o", "-")
    for key in KEYS[:-1]:  # what the DB said last time, not the first prompt and ``-``
        assert listed[key] == read[key], key
        assert shown[key] == read[key], key
    # Its time the newer: the transcript written since (its mtime), not the kept one
    # (``test_cursor_kept_lending_review_pass56``).
    assert listed["updated_at"] == shown["updated_at"] > read["updated_at"]
    # Its counts are the transcript's own; its tokens, in the DB, not known, alike everywhere.
    assert listed["counts"]["prompts"] == shown["counts"]["prompts"] == 2
    assert listed["tokens"] is None and listed["tokens_unknown"] is True and shown["tokens_unknown"] is True
    assert [entry["id"] for entry in report["unreadable"]] == [f"cursor:{SPENT}"]
    assert f"could not be read, not counted: cursor:{SPENT}" in " ".join(table.stderr.split())
    assert exported.exit_code == 0 and exported.stdout == ""  # held out, and said
    assert "1 Cursor session held out" in " ".join(exported.stderr.split())


def test_show_takes_the_scanners_row_with_sums_kept_and_no_row(isolated_home: Path) -> None:
    # ``list`` keeps row and sums; the DB then written (another fingerprint), ``tokens`` keeps
    # the sums alone.  Under the lock ``list`` built the row from those sums and the older kept
    # row's facts, while ``show`` built its own: the first prompt, no model, no cwd.  The sums'
    # warning (a bad bubble value) is said once.
    import sqlite3
    from contextlib import closing

    db = _home(isolated_home, bad=True)
    read = _doc(invoke("list", "--json"))["sessions"][0]
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("INSERT INTO ItemTable VALUES ('other', 'x')")
        conn.commit()
    assert invoke("tokens", "--json").exit_code == 0
    with LiveWriter("exclusive", db):
        listed = _doc(invoke("list", "--json"))["sessions"][0]
        shown = _doc(invoke("show", "--json", SPENT))
        card = invoke("show", SPENT)
    session = shown["session"]
    for key in (*KEYS, "tokens", "counts"):
        assert session[key] == listed[key], key
    assert session["title"] == read["title"] and session["tokens"]["total"] == 120
    assert [w["message"] for w in shown["warnings"]].count(next(
        w["message"] for w in shown["warnings"] if "counted as 100" in w["message"])) == 1
    assert card.stderr.count("counted as 100") == 1, card.stderr


def _tied_home(home: Path) -> Path:
    # Its run (no model of its own) made one gpt-5 call and one claude-4-sonnet call: a tie.
    write_transcript(home, "work-app", SPENT, [user("fix the build"), assistant("Fixed.")])
    write_subagent(home, "work-app", SPENT, RUN, [user("look around"), assistant("ok")])
    return make_state_db(state_db_path(home), composers=[
        composer_data(SPENT, name="spent chat", created=T0, updated=T0 + 1000, bubbles=["u1", "a1"], sub_ids=[RUN]),
        composer_data(RUN, created=T0, updated=T0 + 500, bubbles=["u3", "a3", "a4"]),
    ], bubbles={SPENT: [bubble("u1", 1, "fix the build"), bubble("a1", 2, "Fixed.", tokens=(100, 20), model="gpt-5")],
                RUN: [bubble("u3", 1, "look around"), bubble("a3", 2, "ok", tokens=(30, 5), model="gpt-5"),
                      bubble("a4", 2, "done", tokens=(30, 5), model="claude-4-sonnet")]})


def test_a_runs_model_tie_has_one_rule_locked_or_not(isolated_home: Path) -> None:
    # The bubbles' count broke a tie by the order they were read (gpt-5, read first), the kept
    # sums' under a lock by name: ``show`` named the run's model one way, then the other.
    db = _tied_home(isolated_home)
    read = _doc(invoke("show", "--json", SPENT))["session"]
    assert invoke("list").exit_code == 0
    with LiveWriter("exclusive", db):
        locked = _doc(invoke("show", "--json", SPENT))["session"]
    models = [{sub["id"]: sub["model"] for sub in doc["subagents"]} for doc in (read, locked)]
    assert models[0] == models[1] == {RUN: "claude-4-sonnet"}, models
