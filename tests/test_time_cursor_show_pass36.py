"""A Cursor ``<timestamp>`` at the edge of time is an unknown time, as Claude's is; and
``show --full`` keeps its time column when an item has no time.

``Monday, Jan 1, 0001, 12:30 AM (UTC+14)`` has no UTC form (OverflowError): the session
was skipped as "please report it" by ``list`` and failed ``show`` (exit 1).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.providers.cursor.prompt_text import parse_clock
from agentscan.timeutil import parse_iso
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from cursor_builders import assistant, user, write_transcript

UTC = timezone.utc
EDGE = "c0c0c0c0-0000-4000-8000-000000000001"


@pytest.mark.parametrize("stamp", [
    "Monday, Jan 1, 0001, 12:30 AM (UTC+14)",     # before the year 1 in UTC: OverflowError
    "Friday, Dec 31, 9999, 11:30 PM (UTC-12)",    # after the year 9999 in UTC: OverflowError
    "Thursday, Jan 1, 1970, 12:30 AM (UTC+0)",    # before 1970-01-02, which parse_iso calls unknown
    "Friday, Jan 1, 9999, 12:30 AM (UTC+0)",      # 9998 and later: unknown to parse_iso too
])
def test_a_clock_outside_the_years_a_record_holds_is_unknown(stamp: str) -> None:
    assert parse_clock(stamp) is None


def test_the_clock_and_parse_iso_draw_the_same_line() -> None:
    assert parse_clock("Friday, Jan 2, 1970, 12:00 AM (UTC+0)") == parse_iso("1970-01-02T00:00:00Z") is not None
    assert parse_clock("Friday, Jan 1, 2100, 12:30 AM (UTC+9)") == datetime(2099, 12, 31, 15, 30, tzinfo=UTC)


def test_a_session_stamped_in_the_year_1_is_listed_and_shown(isolated_home: Path) -> None:
    write_transcript(isolated_home, "home-dev-project", EDGE,
                     [user("edge of time", stamp="Monday, Jan 1, 0001, 12:30 AM (UTC+14)"), assistant("ok")], mtime=1780000000)
    listed = CliRunner().invoke(app, ["list", "-p", "cursor", "--json"])
    assert listed.exit_code == 0 and "please report" not in listed.stderr and "OverflowError" not in listed.stderr
    assert EDGE in listed.stdout
    shown = CliRunner().invoke(app, ["show", EDGE])
    assert shown.exit_code == 0 and "edge of time" in shown.stdout


def test_show_full_pads_an_item_with_no_time_to_the_time_column(isolated_home: Path) -> None:
    sid = "e0000000-0000-4000-8000-00000000000e"
    timeless = claude_assistant(sid, "x", msg_id="m1", request_id="r1", usage=claude_usage(input=10, output=2), uuid="a1")
    del timeless["timestamp"]
    claude_session_file(isolated_home, sid, [
        claude_user(sid, "2026-07-01T00:00:00.000Z", "a prompt", uuid="u0"),
        timeless,
        claude_assistant(sid, "2026-07-01T00:05:00.000Z", msg_id="m2", request_id="r2", usage=claude_usage(input=10, output=3), uuid="a2"),
    ])
    result = CliRunner().invoke(app, ["show", sid, "--full", "--no-pager"])
    assert result.exit_code == 0, result.output
    heads = [line for line in result.stdout.splitlines() if line.endswith(("prompt", "response", ")")) and not line.startswith(" ")]
    assert any(line.startswith("-" + " " * 15 + "  response") for line in heads), heads
    assert {line.index("prompt" if line.endswith("prompt") else "response") for line in heads} == {18}
