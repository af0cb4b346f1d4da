"""A period a window cuts is said to be cut, under the table.

``tokens --by week --since 2026-11-01`` counted only the Sunday of ``2026-W44`` on a row
that reads as the whole week's; ``--since 1d --by day`` a part of its first day.  The
oldest and the newest period are the only ones a window can cut: each is named, with the
instant the window starts or ends there.  A window on the periods' edges cuts nothing.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from agentscan.cli.tokens_cut import cut_periods
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

UTC = timezone.utc
SESSION = "5cc50000-0000-4000-8000-000000000001"
STAMPS = ["2026-10-30T12:00:00.000Z", "2026-11-01T12:00:00.000Z", "2026-11-05T12:00:00.000Z",
          "2026-11-06T07:00:00.000Z"]


def _home(home: Path) -> None:
    records: list[Any] = [claude_user(SESSION, STAMPS[0], "periods")]
    records += [claude_assistant(SESSION, stamp, msg_id=f"m{i}", request_id=f"r{i}", uuid=f"a{i}",
                                 usage=claude_usage(input=100 * (i + 1), output=10))
                for i, stamp in enumerate(STAMPS)]
    claude_session_file(home, SESSION, records)


def test_a_week_the_window_starts_inside_is_named() -> None:
    since = datetime(2026, 11, 1, tzinfo=UTC)  # a Sunday: 2026-W44 began on Monday Oct 26
    said = cut_periods("week", ["2026-W44", "2026-W45"], since, None, UTC)
    assert said == "the first week, 2026-W44, counts from 2026-11-01 00:00: the window cuts it"


def test_both_ends_of_a_day_table() -> None:
    since, until = datetime(2026, 11, 5, 12, tzinfo=UTC), datetime(2026, 11, 6, 8, tzinfo=UTC)
    said = cut_periods("day", ["2026-11-05", "2026-11-06"], since, until, UTC)
    assert said == ("the first day, 2026-11-05, counts from 2026-11-05 12:00; the last, 2026-11-06, "
                    "up to 2026-11-06 08:00: the window cuts them")
    only_until = cut_periods("day", ["2026-11-06"], None, until, UTC)
    assert only_until == "the last day, 2026-11-06, up to 2026-11-06 08:00: the window cuts it"


def test_a_window_on_the_edges_cuts_nothing() -> None:
    # ``--since 2026-11-01 --until 2026-11-30`` of months: the first instant, and the end of the 30th.
    since, until = datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 12, 1, tzinfo=UTC)
    assert cut_periods("month", ["2026-11"], since, until, UTC) is None
    assert cut_periods("week", ["2026-W45"], datetime(2026, 11, 2, tzinfo=UTC), None, UTC) is None
    # A period with no row is no row read wrongly; a grouping that is no period, nothing.
    assert cut_periods("week", ["2026-W45"], datetime(2026, 11, 1, tzinfo=UTC), None, UTC) is None
    assert cut_periods("model", ["opus"], datetime(2026, 11, 1, 5, tzinfo=UTC), None, UTC) is None


def test_the_periods_are_the_zones() -> None:
    # 2026-11-01 00:00 in Paris is 2026-10-31 23:00 UTC: the edge of Paris's November, not UTC's.
    paris = ZoneInfo("Europe/Paris")
    since = datetime(2026, 10, 31, 23, tzinfo=UTC)
    assert cut_periods("month", ["2026-11"], since, None, paris) is None
    assert cut_periods("month", ["2026-10"], since, None, UTC) == (
        "the first month, 2026-10, counts from 2026-10-31 23:00: the window cuts it")


def test_the_table_says_it_and_json_and_quiet_do_not(isolated_home: Path) -> None:
    _home(isolated_home)
    result = invoke("tokens", "--by", "week", "--since", "2026-11-01", "--tz", "utc")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1].startswith("2026-W44")
    assert "the first week, 2026-W44, counts from 2026-11-01 00:00: the window cuts it" in result.stderr
    for extra in (["--json"], ["-q"]):
        quiet = invoke("tokens", "--by", "week", "--since", "2026-11-01", "--tz", "utc", *extra)
        assert quiet.exit_code == 0 and "the window cuts" not in quiet.stderr, quiet.stderr
    whole = invoke("tokens", "--by", "week", "--since", "2026-10-26", "--tz", "utc")
    assert whole.exit_code == 0 and "the window cuts" not in whole.stderr, whole.stderr
