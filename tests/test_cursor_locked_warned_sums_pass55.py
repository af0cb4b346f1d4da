"""A Cursor chat whose kept sums carry a warning (a bad bubble value: ``inputTokens`` 100.5,
"counted as 100") under a locked state DB (pass 55, reviewer D).

``tokens`` showed its 120 kept tokens and said the warning again, while ``list`` and ``show``
said tokens "not known": the row's pass took only sums whose read said nothing
(``rowreader._KeptSums``, ``readsums.groups_read``) and ``show`` dropped the kept row and the
sums alike when the sums carried a warning (``showing._as_kept``).  Both take them now, as
``tokens`` does, and say the warning."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bad_corpus import LiveWriter
from builders import invoke
from cursor_builders import assistant, bubble, composer_data, make_state_db, state_db_path, user, write_transcript

pytestmark = pytest.mark.usefixtures("only_cursor", "short_sqlite_wait")

SPENT = "a5500000-0000-4000-8000-00000000d001"
NEW = "a5500000-0000-4000-8000-00000000d002"  # its transcript written after the last read
T0 = 1_780_000_000_000
COUNTED = "counted as 100"


def _home(home: Path) -> Path:
    write_transcript(home, "work-app", SPENT, [user("fix the build"), assistant("Fixed.")])
    return make_state_db(state_db_path(home), composers=[
        composer_data(SPENT, name="spent chat", created=T0, updated=T0 + 1000, bubbles=["u1", "a1"]),
    ], bubbles={SPENT: [bubble("u1", 1, "fix the build"),
                        bubble("a1", 2, "Fixed.", tokens=(100.5, 20), model="gpt-5")]})


def _doc(result) -> dict:  # noqa: ANN001 - click's Result
    assert result.exit_code == 0, result.stderr
    return orjson.loads(result.stdout)


def _said(document: dict) -> bool:
    return any(COUNTED in warning["message"] for warning in document["warnings"])


def test_list_and_show_take_warned_sums_under_the_lock(isolated_home: Path) -> None:
    db = _home(isolated_home)
    assert invoke("tokens", "--json").exit_code == 0  # sums kept (with their warning), no row
    with LiveWriter("exclusive", db):
        table = _doc(invoke("tokens", "--json"))
        listed = _doc(invoke("list", "--json"))
        shown = _doc(invoke("show", "--json", SPENT))
    assert table["rows"][0]["tokens"]["total"] == 120 and _said(table)
    row = next(row for row in listed["sessions"] if row["native_id"] == SPENT)
    assert row["tokens"] is not None and row["tokens"]["total"] == 120, row
    assert "tokens_unknown" not in row and _said(listed)
    card = shown["session"]
    assert card["tokens"] is not None and card["tokens"]["total"] == 120, card
    assert "tokens_unknown" not in card and _said(shown)


def test_show_takes_the_kept_row_when_its_sums_carry_a_warning(isolated_home: Path) -> None:
    db = _home(isolated_home)
    read = _doc(invoke("list", "--json"))["sessions"][0]  # the row kept, the sums too
    with LiveWriter("exclusive", db):
        shown = _doc(invoke("show", "--json", SPENT))
    card = shown["session"]
    assert card["title"] == read["title"] == "spent chat"
    assert card["tokens"] == read["tokens"] and card["model"] == read["model"] == "gpt-5"
    assert "tokens_unknown" not in card and _said(shown)


def test_a_report_row_of_unknown_archived_state_is_not_kept(isolated_home: Path) -> None:
    # ``tokens --json`` under the lock marked the row ``"archived": null`` before the report
    # kept its row (``rowmemo.SessionRows.keep_report``): every warm run after the lock was
    # gone, the DB unchanged, said ``null`` while ``--no-cache`` said nothing (not archived).
    db = _home(isolated_home)
    assert invoke("tokens", "--by", "day").exit_code == 0  # sums kept, no row, no report row
    with LiveWriter("exclusive", db):
        locked = _doc(invoke("tokens", "--json"))
    assert locked["rows"][0]["archived"] is None
    warm = _doc(invoke("tokens", "--json"))
    assert warm["rows"] == _doc(invoke("--no-cache", "tokens", "--json"))["rows"]
    assert "archived" not in warm["rows"][0]


def test_a_long_lived_scanner_sees_a_row_kept_meanwhile(isolated_home: Path) -> None:
    # ``unreadrows.read_with_its_db`` kept its "nothing kept" answers in the scanner's memo: a
    # library ``Scanner`` that met the locked DB went on calling a chat's usage unknown after
    # another process had read the DB (unchanged) and kept the chat's row.
    from agentscan import Scanner, token_report

    db = _home(isolated_home)
    assert invoke("list").exit_code == 0
    write_transcript(isolated_home, "work-app", NEW, [user("a new chat"), assistant("ok")])
    scanner = Scanner(use_cache=True, provider_names=["cursor"])
    with LiveWriter("exclusive", db):
        assert [str(ref) for ref in token_report(scanner).unreadable] == [f"cursor:{NEW}"]
    assert invoke("list").exit_code == 0  # another run reads the DB and keeps the new chat
    assert list(token_report(scanner).unreadable) == []


def test_warm_tokens_after_list_says_the_bad_token_count(isolated_home: Path) -> None:
    # ``list``'s cost pass took the composer's stats its row pass had built (memoised by the
    # state DB), and the usage sums it kept said nothing: a warm ``tokens --json`` after it
    # dropped the "counted as 100" warning a ``--no-cache`` run gives.
    _home(isolated_home)
    assert _said(_doc(invoke("list", "--json")))
    cold = _doc(invoke("--no-cache", "tokens", "--json"))
    warm = _doc(invoke("tokens", "--json"))
    assert _said(cold) and _said(warm)
    assert warm["warnings"] == cold["warnings"] and warm["rows"] == cold["rows"]
