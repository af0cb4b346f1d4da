"""Cursor: a composer's bubble stats are kept under a digest of its rows (``keptstats``), so
a write to ``state.vscdb`` elsewhere (UI state, another composer) does not make every
session's bubbles be decoded again, and a change to a composer's own rows always does."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest

from agentscan.providers.cursor.statedb import StateDb
from builders import cli_json
from cursor_builders import bubble, composer_data, cursor_only, make_state_db, state_db_path

A = "a3500000-0000-4000-8000-000000000001"
B = "b3500000-0000-4000-8000-000000000002"
T0 = 1_785_000_000_000  # 2026-07-25T17:20:00Z


@pytest.fixture(autouse=True)
def _only_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    cursor_only(monkeypatch)


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The composers whose bubbles were decoded, in order."""
    seen: list[str] = []
    real = StateDb.build_stats

    def spy(self: StateDb, composer_id: str, digest: object = None):  # noqa: ANN202
        seen.append(composer_id)
        return real(self, composer_id, digest)

    monkeypatch.setattr(StateDb, "build_stats", spy)
    return seen


def _home(home: Path) -> Path:
    return make_state_db(
        state_db_path(home),
        composers=[composer_data(A, name="cart", updated=T0, model="gpt-5", bubbles=["u", "a"]),
                   composer_data(B, name="checkout", updated=T0, model="gpt-5", bubbles=["u", "a"])],
        bubbles={A: [bubble("u", 1, "write the cart"), bubble("a", 2, "done", tokens=(1234, 7), model="gpt-5",
                                                               created="2026-07-25T17:20:05.123456+02:00")],
                 B: [bubble("u", 1, "write the checkout"), bubble("a", 2, "done", tokens=(5, 2), model="gpt-5")]},
    )


def _write(db: Path, sql: str, *args: object) -> None:
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(sql, args)
        conn.commit()


def _answers() -> tuple[dict, list]:
    report = cli_json("tokens")
    rows = cli_json("list")["sessions"]
    return report, [(row["id"], row["title"], row["tokens"], row["counts"], row["model"]) for row in rows]


def test_a_write_elsewhere_decodes_no_bubble_again(isolated_home: Path, builds: list[str]) -> None:
    db = _home(isolated_home)
    first = _answers()
    assert sorted(set(builds)) == [A, B]
    builds.clear()
    _write(db, "INSERT INTO ItemTable VALUES ('workbench.state', 'x')")  # Cursor's UI state: a new stat
    again = _answers()
    assert builds == []
    assert again == first
    assert cli_json("--no-cache", "tokens")["total"] == first[0]["total"]


def test_a_changed_bubble_is_decoded_again_even_in_place_at_the_same_length(isolated_home: Path,
                                                                            builds: list[str]) -> None:
    """A plain UPDATE keeps the row's rowid, and this one its length too: only the bytes tell."""
    db = _home(isolated_home)
    assert _answers()[0]["total"]["total"] == 1234 + 7 + 5 + 2
    builds.clear()
    changed = orjson.dumps(bubble("a", 2, "done", tokens=(5678, 7), model="gpt-5",
                                  created="2026-07-25T17:20:05.123456+02:00"))
    with closing(sqlite3.connect(db)) as conn:
        (old,) = conn.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (f"bubbleId:{A}:a",)).fetchone()
    assert len(old) == len(changed)
    _write(db, "UPDATE cursorDiskKV SET value = ? WHERE key = ?", changed, f"bubbleId:{A}:a")
    report, rows = _answers()
    assert set(builds) == {A}  # B's rows are the same bytes: kept
    assert report["total"]["total"] == 5678 + 7 + 5 + 2
    assert report == cli_json("--no-cache", "tokens")
    assert dict((row[0], row[2]["total"]) for row in rows) == {f"cursor:{A}": 5685, f"cursor:{B}": 7}


def test_kept_stats_say_the_warnings_their_build_said(isolated_home: Path, builds: list[str]) -> None:
    db = _home(isolated_home)
    _write(db, "INSERT INTO cursorDiskKV VALUES (?, ?)", f"bubbleId:{B}:torn", b'{"type": 2, "tokenCount"')
    cold = cli_json("tokens")
    assert [w["message"] for w in cold["warnings"]] == [f"bubbleId:{B}:torn: invalid JSON skipped"]
    _write(db, "INSERT INTO ItemTable VALUES ('workbench.state', 'x')")
    builds.clear()
    warm = cli_json("tokens")
    assert builds == [] and warm["warnings"] == cold["warnings"] and warm["total"] == cold["total"]


def test_a_kept_document_of_another_shape_is_not_taken(isolated_home: Path, builds: list[str]) -> None:
    from agentscan.providers.cursor import keptstats

    db = _home(isolated_home)
    first = _answers()
    keptstats_version = keptstats.VERSION
    try:
        keptstats.VERSION = "other"
        _write(db, "INSERT INTO ItemTable VALUES ('workbench.state', 'x')")
        builds.clear()
        assert _answers() == first
        assert sorted(set(builds)) == [A, B]
    finally:
        keptstats.VERSION = keptstats_version
