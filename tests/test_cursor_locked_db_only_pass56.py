"""A Cursor chat only the state DB holds (an IDE chat with no transcript), while that DB is
locked (pass 56).

Pass 55 kept a chat's row, sums and calls at its fingerprint under a lock, but a chat the DB
alone holds was not listed at all: discovery read its composers from the locked DB, so it
vanished from ``list``, ``tokens``, ``show`` and exports, the warning saying "those only it
holds left out".  It is listed from the composer links the index keeps with the DB's stamp
(``keptfamily``), its figures those kept of it, as any chat's; placed by the DB's time, not
after every other chat; its card says its prompts are not known rather than list none under
"1 prompt"."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import assistant, bubble, composer_data, make_state_db, state_db_path, user, write_transcript

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

SPENT = "a5600000-0000-4000-8000-00000000e001"  # a transcript and its composer
ALONE = "a5600000-0000-4000-8000-00000000e002"  # its composer alone (an IDE chat)
NEW = "a5600000-0000-4000-8000-00000000e003"  # a transcript written under the lock
OLD = "a5600000-0000-4000-8000-00000000e004"  # a transcript of the day before, no composer
T0 = 1_780_000_000_000


def _home(home: Path) -> Path:
    write_transcript(home, "work-app", SPENT, [user("fix the build"), assistant("Fixed.")])
    return make_state_db(state_db_path(home), composers=[
        composer_data(SPENT, name="spent chat", created=T0, updated=T0 + 1000, bubbles=["u1", "a1"]),
        composer_data(ALONE, name="ide chat", created=T0, updated=T0 + 2000, model="gpt-5",
                      fs_path=str(home / "proj"), bubbles=["u2", "a2"]),
    ], bubbles={SPENT: [bubble("u1", 1, "fix the build"), bubble("a1", 2, "Fixed.", tokens=(100, 20), model="gpt-5")],
                ALONE: [bubble("u2", 1, "explain the code"), bubble("a2", 2, "It is fine.", tokens=(200, 40), model="gpt-5")]})


def _doc(result) -> dict:  # noqa: ANN001 - click's Result
    assert result.exit_code == 0, result.stderr
    return orjson.loads(result.stdout)


def test_a_chat_only_the_db_holds_is_kept_while_it_is_locked(isolated_home: Path) -> None:
    db = _home(isolated_home)
    read = {row["native_id"]: row for row in _doc(invoke("list", "--json"))["sessions"]}
    assert read[ALONE]["tokens"]["total"] == 240
    # Another chat written since (Cursor at work): discovery is done again, under the lock.
    write_transcript(isolated_home, "work-app", NEW, [user("a new chat"), assistant("ok")])
    with LiveWriter("exclusive", db):
        listed = _doc(invoke("list", "--json"))
        table = invoke("tokens")
        report = _doc(invoke("tokens", "--json"))
        shown = _doc(invoke("show", "--json", ALONE))
        card = invoke("show", ALONE)
        exported = invoke("export", "-f", "jsonl", "-o", "-")
    rows = {row["native_id"]: row for row in listed["sessions"]}
    assert ALONE in rows, sorted(rows)
    for key in ("title", "cwd", "model", "started_at", "updated_at", "tokens", "counts"):
        assert rows[ALONE][key] == read[ALONE][key], key
    assert "tokens_unknown" not in rows[ALONE]
    said = " ".join(warning["message"] for warning in listed["warnings"])
    assert "those only it holds as its last read found them" in said and "left out" not in said, said
    assert f"cursor:{ALONE}" in [row["key"] for row in report["rows"]]
    assert table.exit_code == 0 and "ide chat" in table.stdout and "240" in table.stdout
    session = shown["session"]
    assert session["title"] == "ide chat" and session["tokens"]["total"] == 240
    # Its prompts are the DB's bubbles: not known, said so (the card listed none under "1 prompt").
    assert session["prompts"] == [] and session["exchange_unknown"] is True
    assert card.exit_code == 0
    fields = [line.split(None, 1) for line in card.stdout.splitlines()[1:] if line.startswith("  ")]
    assert ["note", "prompts and responses not known (could not be read)"] in fields, card.stdout
    assert ["counts", "1 prompt, 1 response, 0 tool calls"] in fields
    lines = {line["native_id"]: line for line in map(orjson.loads, exported.stdout.splitlines())}
    assert ALONE in lines and lines[ALONE]["tokens"]["total"] == 240


def test_a_chat_only_the_db_holds_is_placed_by_the_db_time(isolated_home: Path) -> None:
    # Its bound for ``list``'s order was 0 with the DB unread (no time of its own read), after an
    # old chat's: the listing stopped there, before it, though its kept row is newer than SPENT's.
    db = _home(isolated_home)
    write_transcript(isolated_home, "work-app", OLD, [user("an old chat"), assistant("ok")], mtime=T0 / 1000 - 86_400)
    assert invoke("list").exit_code == 0
    write_transcript(isolated_home, "work-app", NEW, [user("a new chat"), assistant("ok")])
    with LiveWriter("exclusive", db):
        listed = _doc(invoke("list", "--json", "-n", "2"))
    assert [row["native_id"] for row in listed["sessions"]] == [NEW, ALONE]


def test_a_chat_only_the_db_holds_stays_out_when_the_db_changed(isolated_home: Path) -> None:
    # The DB written since its last read: no link kept is of it, and nothing is made up.
    import sqlite3
    from contextlib import closing

    db = _home(isolated_home)
    assert invoke("list").exit_code == 0
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("INSERT INTO ItemTable VALUES ('other', 'x')")
        conn.commit()
    with LiveWriter("exclusive", db):
        listed = _doc(invoke("list", "--json"))
    assert ALONE not in {row["native_id"] for row in listed["sessions"]}
    said = " ".join(warning["message"] for warning in listed["warnings"])
    assert "those only it holds left out (1 was listed from it on the last run that read it)" in said, said


def test_a_chat_of_which_only_sums_are_kept_names_their_model(isolated_home: Path) -> None:
    # Only ``tokens --json`` ran (sums kept, no row): the chat only the DB holds is listed with
    # its kept tokens, priced by its calls' model, which ``list``, ``tokens`` and ``show`` named
    # ``-``; its counts are not known (``0 prompts`` would be a count nobody made).
    db = _home(isolated_home)
    assert invoke("tokens", "--json").exit_code == 0
    write_transcript(isolated_home, "work-app", NEW, [user("a new chat"), assistant("ok")])
    with LiveWriter("exclusive", db):
        listed = {row["native_id"]: row for row in _doc(invoke("list", "--json"))["sessions"]}
        shown = _doc(invoke("show", "--json", ALONE))["session"]
        report = {row["key"]: row for row in _doc(invoke("tokens", "--json"))["rows"]}
    assert listed[ALONE]["tokens"]["total"] == shown["tokens"]["total"] == 240
    assert listed[ALONE]["model"] == shown["model"] == "gpt-5"
    assert listed[ALONE]["counts_partial"] is True and shown["counts_partial"] is True
    assert report[f"cursor:{ALONE}"]["tokens"]["total"] == 240
