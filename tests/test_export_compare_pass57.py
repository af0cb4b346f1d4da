"""An unchanged export compares each session's row and its ``token_days`` and ``subagents``
rows with what the index holds in C (pass 57: every value, then every type, at once; a field
or a (type, value) pair at a time was 10 % of it at scale 10), by the same rule as before."""

from __future__ import annotations

import random
import sqlite3
from typing import Any

import pytest

from agentscan.export import children
from agentscan.export import sqlite as exporting
from spies import record_calls


def _by_rule(record: dict[str, Any], kept: dict[str, Any] | None) -> bool:
    """The rule, a field at a time: every value but ``last_seen_at`` as stored, of its type (a bool as 1)."""
    if kept is None:
        return False
    for key, value in record.items():
        if key == "last_seen_at":
            continue
        value = int(value) if type(value) is bool else value
        if key not in kept or type(kept[key]) is not type(value) or kept[key] != value:
            return False
    return True


@pytest.mark.parametrize("seed", range(300))
def test_a_row_is_as_stored_by_the_rule(seed: int) -> None:
    chooser = random.Random(seed)
    choices = [None, 0, 1, 1.0, True, False, "a", "", 2.5, float("nan")]
    keys = ["id", "cost_usd", "archived", "title", "last_seen_at"][:chooser.randint(1, 5)]
    record = {key: chooser.choice(choices) for key in keys}
    kept = {key: chooser.choice([value, int(value) if type(value) is bool else value, chooser.choice(choices)])
            for key, value in record.items() if chooser.random() < 0.95}
    kept.update({"extra": 1} if chooser.random() < 0.3 else {})
    kept = {key: value + 0.0 if type(value) is float else value for key, value in kept.items()}  # read back: new objects
    assert exporting._as_stored(record, kept) == _by_rule(record, kept), (record, kept)


def test_one_getter_a_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exporting, "_VALUES_OF", {})  # (absent before: a field at a time)
    for number in range(5):
        record = {"id": f"s{number}", "cost_usd": number, "last_seen_at": "now"}
        assert exporting._as_stored(record, {**record, "last_seen_at": "then"})
    assert list(exporting._VALUES_OF) == [("id", "cost_usd", "last_seen_at")]


def _tables() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    values = ", ".join(children._VALUES)
    db.execute(f"CREATE TABLE token_days (session_id, day, model, subagent_id, {values}, gone_at)")
    db.execute(f"CREATE TABLE subagents (session_id, subagent_id, {values}, gone_at)")
    return db


def test_children_as_stored_tells_a_type_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlite_utils import Database

    made = record_calls(monkeypatch, children, "itemgetter", lambda *names: names)  # (none before)
    db = Database(_tables())
    row = dict(zip(children._VALUES, [1, 2, 3, 4, 0, 10, 0.5]))
    marks = ", ".join("?" * (len(children._VALUES) + 5))
    db.execute(f"INSERT INTO token_days VALUES ({marks})", ["s1", "2026-11-01", "m", "", *row.values(), None])
    db.execute(f"INSERT INTO token_days VALUES ({marks})", ["s2", "2026-11-01", "m", "", *row.values(), None])
    day_rows = {("s1", "2026-11-01", "m", ""): row, ("s2", "2026-11-01", "m", ""): {**row, "cost_usd": 0}}
    assert children._as_stored(db, ["s1", "s2"], day_rows, {}) == {"s1"}  # 0 is not 0.5
    day_rows[("s1", "2026-11-01", "m", "")] = {**row, "tokens_input": 1.0}  # 1.0 is not 1 as stored
    assert children._as_stored(db, ["s1"], day_rows, {}) == set()
    assert len(made) == 2
