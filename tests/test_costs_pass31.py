"""A session some of whose calls have no price: ``list`` and ``show`` say what ``tokens``
says of it, ``≥$…`` (what the priced calls cost, a lower bound), not ``-``."""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

S = "c0570000-0000-4000-8000-000000000001"
TS = "2026-11-20T10:00:00.000Z"


def _mixed_session(home: Path) -> None:
    claude_session_file(home, S, [
        claude_user(S, TS, "Port the parser"),
        claude_assistant(S, TS, msg_id="m1", request_id="r1", usage=claude_usage(input=1_000_000, output=10_000)),
        claude_assistant(S, TS, msg_id="m2", request_id="r2", usage=claude_usage(input=500, output=5),
                         model="claude-mystery-9-20260101"),
    ])


def _cost_cell(table: str) -> str:
    header, row = table.splitlines()[:2]
    return row[header.index("COST") - 3:].split()[0]


def test_list_and_show_give_the_lower_bound_tokens_gives(isolated_home: Path) -> None:
    _mixed_session(isolated_home)
    tokens_cost = _cost_cell(invoke("tokens").stdout)
    assert tokens_cost.startswith("≥$")
    listed = invoke("list").stdout
    assert f" {tokens_cost} " in listed.splitlines()[1], listed
    shown = invoke("show", S).stdout
    assert any(line.split() == ["cost", tokens_cost] for line in shown.splitlines()), shown
    # JSON keeps the unknown cost unknown, and says the lower bound as tokens --json does.
    (row,) = orjson.loads(invoke("list", "--json").stdout)["sessions"]
    (tokens_row,) = orjson.loads(invoke("tokens", "--json").stdout)["rows"]
    assert row["cost_usd"] is None and row["cost_usd_priced"] == tokens_row["cost_usd_priced"] > 0
    assert orjson.loads(invoke("show", S, "--json").stdout)["session"]["cost_usd_priced"] == row["cost_usd_priced"]


def test_with_no_priced_call_the_cost_stays_a_dash(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        claude_user(S, TS, "Port the parser"),
        claude_assistant(S, TS, msg_id="m2", request_id="r2", usage=claude_usage(input=500, output=5),
                         model="claude-mystery-9-20260101"),
    ])
    header, row = invoke("list").stdout.splitlines()[:2]
    assert row.split()[4] == "-", row  # ID, date, time, tokens, COST
