"""Cursor: the ``agentKv`` rows' per-request counts are kept (``keptkv``) and read on from
where they stopped: after Cursor adds a turn's rows only those are decoded, and a row
rewritten in place has every row decoded again; the counts always equal a fresh pass's."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest

from agentscan.providers.cursor import agentkv
from builders import cli_json
from spies import record_calls
from cursor_builders import agentkv_rows, bubble, composer_data, make_state_db, state_db_path

A = "a3600000-0000-4000-8000-000000000001"
B = "b3600000-0000-4000-8000-000000000002"


#: every test of this file reads Cursor alone (``conftest.only_cursor``)
pytestmark = pytest.mark.usefixtures("only_cursor")


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every ``agentKv`` row the counts' pass decoded."""
    return record_calls(monkeypatch, agentkv, "decode_message", lambda value: value)


def _turn(request: str, prompt: str, reply: str) -> list[dict]:
    return [
        {"role": "user", "content": f"<user_query>\n{prompt}\n</user_query>",
         "providerOptions": {"cursor": {"requestId": request}}},
        {"role": "assistant", "content": [{"type": "tool-call", "toolName": "Write", "args": {"path": "/x"}}]},
        {"role": "assistant", "content": [{"type": "text", "text": reply}]},
    ]


def _home(home: Path) -> Path:
    return make_state_db(
        state_db_path(home), wal=True,
        composers=[composer_data(A, bubbles=["a1", "a2"]), composer_data(B, bubbles=["b1", "b2"])],
        bubbles={A: [bubble("a1", 1, "", requestId="ra"), bubble("a2", 2, "", requestId="ra")],
                 B: [bubble("b1", 1, "", requestId="rb"), bubble("b2", 2, "", requestId="rb")]},
        raw_rows=agentkv_rows([*_turn("ra", "write the cart", "cart done"), *_turn("rb", "write checkout", "ok")]),
    )


def _rows() -> dict[str, tuple]:
    return {row["id"]: (row["title"], row["counts"]["prompts"], row["counts"]["responses"], row["counts"]["tool_calls"])
            for row in cli_json("list")["sessions"]}


def test_rows_cursor_adds_are_the_only_ones_decoded(isolated_home: Path, decoded: list[object]) -> None:
    db = _home(isolated_home)
    with closing(sqlite3.connect(db)) as cursor:  # Cursor running: its connection held open
        cursor.execute("SELECT count(*) FROM ItemTable").fetchone()
        first = _rows()
        assert first[f"cursor:{B}"] == ("write checkout", 1, 1, 1)
        assert len(decoded) == 6
        decoded.clear()
        # B's turn goes on: two more rows of its request, then a bubble of it (a new stat).
        more = agentkv_rows([{"role": "assistant", "content": [{"type": "text", "text": "and tested"}]},
                             {"role": "assistant", "content": [{"type": "tool-call", "toolName": "Shell", "args": {}}]}])
        cursor.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", [(f"{key}-more", value) for key, value in more])
        cursor.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"bubbleId:{B}:b3", orjson.dumps(bubble("b3", 2, "", requestId="rb"))))
        cursor.commit()
        again = _rows()
        assert len(decoded) == 2
        assert again[f"cursor:{B}"] == ("write checkout", 1, 2, 2) and again[f"cursor:{A}"] == first[f"cursor:{A}"]
        assert again == {row["id"]: (row["title"], row["counts"]["prompts"], row["counts"]["responses"],
                                     row["counts"]["tool_calls"]) for row in cli_json("--no-cache", "list")["sessions"]}


def test_a_row_rewritten_in_place_has_every_row_decoded_again(isolated_home: Path, decoded: list[object]) -> None:
    db = _home(isolated_home)
    with closing(sqlite3.connect(db)) as cursor:
        cursor.execute("SELECT count(*) FROM ItemTable").fetchone()
        _rows()
        decoded.clear()
        (key,) = cursor.execute("SELECT key FROM cursorDiskKV WHERE CAST(value AS TEXT) LIKE '%cart done%'").fetchone()
        changed = orjson.dumps({"role": "assistant", "content": [{"type": "text", "text": "cart DONE"}]})
        cursor.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (changed, key))  # the rowid kept
        cursor.commit()
        assert _rows()[f"cursor:{A}"] == ("write the cart", 1, 1, 1)
        assert len(decoded) == 6
