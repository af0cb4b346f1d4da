"""``tokens --json``'s session rows say which sessions are archived, as ``list --json``'s do.

The table marked an archived Codex thread's TITLE ``(archived)``; its JSON row had no field a
script could leave archived threads out by.  Now it has ``"archived": true`` (additive: absent
for any other row), whether the row is made now, taken back from the index, or patched in.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from builders import cli_json
from codex_builders import Calls, at, meta, rollout_path, turn_context, user_message, write_rollout
from test_codex_archived_pass52 import A, B, C, D, _home


def _marks() -> dict[str, bool]:
    return {row["key"].split(":", 1)[1]: row.get("archived", False) for row in cli_json("tokens")["rows"]}


def test_tokens_json_marks_archived_sessions(isolated_home: Path) -> None:
    _home(isolated_home)
    first = cli_json("tokens")["rows"]
    assert {row["key"].split(":", 1)[1]: row.get("archived", False) for row in first} == {A: True, B: False, C: True, D: False}
    assert all("archived" not in row for row in first if not row.get("archived"))  # absent, not false
    assert _marks() == {A: True, B: False, C: True, D: False}  # remembered
    # A new session: the answer is patched, the kept rows' marks kept.
    calls = Calls()
    new = "019c1111-0000-7000-8000-00000000000e"
    write_rollout(rollout_path(isolated_home / ".codex", new, at(400)), [
        meta(new, at(400)), turn_context(at(401)), user_message(at(401), "new"), calls.call(at(410), 100, 0, 10)])
    assert _marks() == {A: True, B: False, C: True, D: False, new: False}


def test_unarchived_in_the_index_the_mark_goes(isolated_home: Path) -> None:
    _home(isolated_home)
    assert _marks()[C] is True
    with closing(sqlite3.connect(isolated_home / ".codex" / "state_5.sqlite")) as conn:
        conn.execute("UPDATE threads SET archived = 0 WHERE id = ?", (C,))
        conn.commit()
    assert _marks()[C] is False


def test_the_library_report_marks_them_too(isolated_home: Path) -> None:
    from agentscan import Scanner, token_report

    _home(isolated_home)
    for _ in range(2):  # made, then from the index
        rows = {row.key.split(":", 1)[1]: row for row in token_report(Scanner(home=isolated_home)).rows}
        assert rows[A].archived and rows[C].archived and not rows[B].archived
        assert rows[A].to_json()["archived"] is True and "archived" not in rows[B].to_json()


def test_a_kept_row_keeps_its_mark() -> None:
    """A row kept in the index (``rowmemo``) is taken back marked: its JSON is printed whole
    from the index, and a library report makes it again from what was kept."""
    from decimal import Decimal

    import orjson

    from agentscan.model import TokenUsage
    from agentscan.pricing.spend import Priced
    from agentscan.scan.rowmemo import _data_of, _row_from
    from agentscan.scan.tokenreport import TokenRow

    usage = TokenUsage(100, 0, 0, 10)
    for archived in (True, False):
        row = TokenRow("codex:x", usage, usage, cost=Decimal(1), own_cost=Decimal(1), cost_priced=Decimal(1),
                       archived=archived)
        data = orjson.loads(orjson.dumps(_data_of(row, Priced(Decimal(1), Decimal(1), (), True), [])))
        again = _row_from(TokenRow, "codex:x", data, b"").row
        assert again.archived is archived and again.tokens == usage and again.cost == Decimal(1)


def test_a_windowed_report_marks_them_warm_too(isolated_home: Path) -> None:
    """A window's rows are made each run, of sessions the index remembered (no discovery): the
    mark comes from the main file's place and its thread index row, as discovery tells it."""
    _home(isolated_home)
    cli_json("list", "--all")  # the sessions remembered
    for _ in range(2):
        rows = cli_json("tokens", "--since", "2026-01-01")["rows"]
        assert {row["key"].split(":", 1)[1]: row.get("archived", False) for row in rows} == {A: True, B: False, C: True, D: False}
