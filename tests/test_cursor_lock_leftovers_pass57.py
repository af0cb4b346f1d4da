"""Cursor under a locked state DB, the leftovers of pass 56 (docs/providers/cursor.md, "Errors").

* A row built without the DB takes the kept row's facts (``keptrow.with_kept``): its archived
  mark too.  It kept ``(archived?)`` beside the kept row's name, though that row was read with
  the DB and says whether the chat is archived.
* A chat only the DB holds, listed from the links kept with the DB's stamp (``keptfamily``) with
  only its sums kept (``tokens`` ran last, no row kept): no title at all.  Its name is kept with
  its links.
* ``tokens`` after an upgrade (another parser version) under a lock: the rows read without the
  DB counted nothing, and the table printed nothing but the ``(+ N sessions that could not be
  read…)`` line.
* ``show`` under a lock built the session's row twice.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import assistant, bubble, composer_data, make_state_db, state_db_path, user, write_transcript

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

SPENT = "a5700000-0000-4000-8000-00000000c001"
ALONE = "a5700000-0000-4000-8000-00000000e002"
T0 = 1_780_000_000_000


def _doc(result) -> dict:  # noqa: ANN001 - click's Result
    assert result.exit_code == 0, result.stderr
    return orjson.loads(result.stdout)


def _by_id(result) -> dict[str, dict]:  # noqa: ANN001
    return {row["native_id"]: row for row in _doc(result)["sessions"]}


def _archived_home(home: Path) -> Path:
    write_transcript(home, "work-app", SPENT, [user("fix the build"), assistant("Fixed.")])
    return make_state_db(state_db_path(home), composers=[
        composer_data(SPENT, name="spent chat", created=T0, updated=T0 + 1000, model="gpt-5",
                      fs_path=str(home / "app"), bubbles=["u1", "a1"], isArchived=True),
    ], bubbles={SPENT: [bubble("u1", 1, "fix the build"), bubble("a1", 2, "Fixed.", tokens=(100, 20), model="gpt-5")]})


def test_a_lent_row_takes_the_kept_rows_archived_mark(isolated_home: Path) -> None:
    db = _archived_home(isolated_home)
    read = _by_id(invoke("list", "--json"))[SPENT]
    assert read["archived"] is True and read["title"] == "spent chat"
    # Cursor at work in it: the transcript grew since the kept read, the DB locked.
    write_transcript(isolated_home, "work-app", SPENT, [user("fix the build"), assistant("Fixed."), user("more")])
    with LiveWriter("exclusive", db):
        listed = _by_id(invoke("list", "--json"))[SPENT]
        table = invoke("list")
        shown = _doc(invoke("show", "--json", SPENT))["session"]
    assert listed["title"] == "spent chat"  # (lent)
    assert listed["archived"] is True and shown["archived"] is True, (listed, shown)
    assert "(archived) spent chat" in table.stdout and "(archived?)" not in table.stdout, table.stdout


def _db_only(home: Path) -> Path:
    return make_state_db(state_db_path(home), composers=[
        composer_data(ALONE, name="ide chat", created=T0, updated=T0 + 2000, model="gpt-5",
                      fs_path=str(home / "proj"), bubbles=["u2", "a2"]),
    ], bubbles={ALONE: [bubble("u2", 1, "explain"), bubble("a2", 2, "It is fine.", tokens=(200, 40), model="gpt-5")]})


def test_a_db_only_chat_with_only_its_sums_kept_keeps_its_name(isolated_home: Path) -> None:
    db = _db_only(isolated_home)
    assert invoke("tokens", "--json").exit_code == 0  # the sums and the links kept, no row
    with LiveWriter("exclusive", db):
        listed = _by_id(invoke("list", "--json"))
        shown = _doc(invoke("show", "--json", ALONE))["session"]
    assert listed[ALONE]["title"] == "ide chat" and shown["title"] == "ide chat", listed
    assert listed[ALONE]["tokens"]["total"] == 240


def test_tokens_after_an_upgrade_under_a_lock_counts_the_kept_sums(isolated_home: Path, monkeypatch) -> None:
    from agentscan.providers.cursor.provider import CursorProvider

    db = _archived_home(isolated_home)
    before = invoke("tokens")
    assert before.exit_code == 0 and "spent chat" in before.stdout or SPENT[:8] in before.stdout
    monkeypatch.setattr(CursorProvider, "parser_version", str(int(CursorProvider.parser_version) + 1))
    with LiveWriter("exclusive", db):
        table = invoke("tokens")
        report = _doc(invoke("tokens", "--json"))
        listed = _by_id(invoke("list", "--json"))[SPENT]
    assert report["total"] is not None and report["total"]["total"] == 120, report
    assert "could not be read" not in table.stderr and SPENT[:8] in table.stdout, (table.stdout, table.stderr)
    # ``list`` alike: the row built without the DB takes those sums (it said "not known").
    assert listed["tokens"]["total"] == 120 and listed["cost_usd"] == report["rows"][0]["cost_usd"], listed


def test_show_under_a_lock_builds_the_row_once(isolated_home: Path, monkeypatch) -> None:
    from agentscan.providers.cursor import assembly

    db = _archived_home(isolated_home)
    assert invoke("list").exit_code == 0
    write_transcript(isolated_home, "work-app", SPENT, [user("fix the build"), assistant("Fixed."), user("more")])
    built: list[str] = []
    real = assembly.assemble

    def counting(ref, ctx):  # noqa: ANN001, ANN202
        built.append(ref.native_id)
        return real(ref, ctx)

    monkeypatch.setattr(assembly, "assemble", counting)
    with LiveWriter("exclusive", db):
        assert invoke("show", SPENT).exit_code == 0
    assert built == [SPENT], built
