"""A state DB that fails for a reason other than a lock (the query deadline on a big
``state.vscdb``, an I/O error) while it is unchanged since a run read it: one answer per chat
(pass 55, mend).

Its sessions' fingerprints take in the DB's stat, so the figures kept of one unchanged since are
still its figures: ``tokens`` counted such a chat at them, yet the warning said "the tokens it
holds not known" with no exception, ``show --json`` gave ``tokens: null`` (the kept row and sums
were taken under a lock alone), and a chat whose kept row recorded no usage was "could not be
read".  A DB damaged since has another stamp: nothing kept is of it, and the words say so."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import invoke
from cursor_builders import assistant, user, write_transcript
from test_cursor_locked_kept_none_pass54 import NEW, QUIET, SPENT, _home

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

KEPT = "the tokens it holds not known but for sessions unchanged since its last read"


def _said(result) -> str:  # noqa: ANN001 - click's Result
    assert result.exit_code == 0, result.stderr
    return " ".join(result.stderr.split())


def test_a_db_past_its_deadline_unchanged_keeps_its_figures_everywhere(isolated_home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)
    assert invoke("list").exit_code == 0 and invoke("tokens").exit_code == 0
    read = orjson.loads(invoke("show", "--json", SPENT).stdout)["session"]
    monkeypatch.setattr("agentscan.bounds.MAX_QUERY_SECONDS", 0.0)  # every query past its deadline
    write_transcript(isolated_home, "work-app", NEW, [user("a new chat"), assistant("ok")])
    table = invoke("tokens")
    report = orjson.loads(invoke("tokens", "--json").stdout)
    shown = invoke("show", "--json", SPENT)
    said = _said(table)
    assert "query interrupted" in said and KEPT in said, said
    assert report["total"]["total"] == 120
    assert f"(+ 1 session that recorded no usage, not counted: cursor:{QUIET})" in said, said
    assert [entry["id"] for entry in report["unreadable"]] == [f"cursor:{NEW}"]
    session = orjson.loads(shown.stdout)["session"]
    assert session["tokens"] == read["tokens"] and session["tokens"]["total"] == 120
    assert session["title"] == "spent chat" and not session.get("tokens_unknown")


def test_a_db_damaged_since_keeps_none_and_says_so(isolated_home: Path) -> None:
    db = _home(isolated_home)
    assert invoke("list").exit_code == 0
    db.write_bytes(b"not a database at all, " * 64)  # another stamp: nothing kept is of it
    table = invoke("tokens")
    said = _said(table)
    assert "the tokens it holds not known" in said and KEPT not in said, said
    assert "120" not in table.stdout
