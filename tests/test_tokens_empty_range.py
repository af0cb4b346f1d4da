"""``tokens`` over a range no call falls in spent 0: its total is zeros and $0, not ``null``
(which says the sessions recorded no usage at all)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import cli_json

ZERO = {"input": 0, "cache_read": 0, "cache_write": 0, "output": 0, "reasoning": 0, "total": 0}


@pytest.mark.parametrize("by", ("session", "day", "model"))
def test_a_range_with_no_call_totals_zero(isolated_home: Path, by: str) -> None:
    document = cli_json("--demo", "tokens", "--since", "2031-01-01", "--by", by)
    assert document["rows"] == []
    assert document["total"] == ZERO and document["cost_usd"] == 0
    result = CliRunner().invoke(app, ["--demo", "tokens", "--since", "2031-01-01", "--by", by])
    # No row: the explanation alone (as ccusage's "No usage data found"), no header over a TOTAL of 0.
    assert "TOTAL" not in result.stdout and "not recorded" not in result.stdout
    assert "none of the 11 sessions made a call in that range" in result.stderr


def test_no_session_at_all_totals_zero(isolated_home: Path) -> None:
    assert cli_json("tokens")["total"] == ZERO


@pytest.mark.parametrize("options", [(), ("--by", "day"), ("--by", "model"), ("--since", "2020-01-01"),
                                     ("--until", "2031-01-01", "--by", "provider")])
def test_sessions_that_recorded_no_usage_still_total_null(isolated_home: Path, options: tuple[str, ...]) -> None:
    # The demo's Cursor session with no usage recorded: null however it is grouped, as the
    # contract says (there are no rows to add up outside --by session: not a 0 spent).
    document = cli_json("--demo", "tokens", "cursor:a4b8c2d6", *options)
    assert all(row["tokens"] is None for row in document["rows"])
    assert document["total"] is None and document["cost_usd"] is None
    result = CliRunner().invoke(app, ["--demo", "tokens", "cursor:a4b8c2d6", *options])
    # In no row (by session too, pass 40): named, never a TOTAL of $0.00; in a pipe on stderr
    # (pass 42: stdout is the table's rows alone, and here there is none).
    # (pass 60: said once, by the line that says it recorded none, its ``show`` named whole)
    assert result.stderr.startswith("no usage: the session asked for recorded none") and result.stdout == ""
    assert "show cursor:a4b8c2d6-1e3f-4a5b-8c7d-9e0f1a2b3c4d` says" in result.stderr
    assert "$0.00" not in result.stderr
