"""The end of a ``tokens`` window, said whatever the grouping, and one name for UTC (pass 54).

``tokens --until 2026-11-05`` counts all of the 5th (as ccusage's does), but only a table by
day, week or month said anything of the window (a period it cut): by session, model or
provider nothing told that the 5th was in.  And ``--json``'s ``window.tz`` was ``Etc/UTC`` on
a machine whose zone is UTC (a container's ``/etc/localtime``), ``UTC`` for ``--tz utc``: one
zone under two names, which a script testing ``tz == "UTC"`` took for two.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Callable
from zoneinfo import ZoneInfo

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

UTC = timezone.utc
SESSION = "5cc50000-0000-4000-8000-000000000054"


def _home(home: Path) -> None:
    claude_session_file(home, SESSION, [
        claude_user(SESSION, "2026-11-01T12:00:00.000Z", "window"),
        claude_assistant(SESSION, "2026-11-05T12:00:00.000Z", msg_id="m1", request_id="r1", uuid="a1",
                         usage=claude_usage(input=100, output=10))])


@pytest.mark.parametrize("by", ["session", "model", "provider", "cwd", "agent", "day", "week", "month"])
def test_every_grouping_says_the_window_s_last_day(isolated_home: Path, by: str) -> None:
    _home(isolated_home)
    result = invoke("tokens", "--by", by, "--since", "2026-11-01", "--until", "2026-11-05", "--tz", "utc")
    assert result.exit_code == 0, result.output
    assert "window: from 2026-11-01 00:00 through the whole of 2026-11-05 (UTC)" in result.stderr.splitlines()
    assert "window:" not in result.stdout  # (a script reading the table gets the table)
    quiet = invoke("tokens", "--by", by, "--until", "2026-11-05", "--tz", "utc", "-q")
    assert "window:" not in quiet.stderr
    document = orjson.loads(invoke("tokens", "--by", by, "--until", "2026-11-05", "--tz", "utc", "--json").stdout)
    assert document["window"] == {"since": None, "until": "2026-11-06T00:00:00.000Z", "tz": "UTC"}


def test_a_start_alone_adds_no_line(isolated_home: Path) -> None:
    _home(isolated_home)
    result = invoke("tokens", "--since", "2026-11-01", "--tz", "utc")
    assert result.exit_code == 0 and "window:" not in result.stderr
    # Nor an end past the years a record holds: no end to say (it read "up to 9999-12-31 15:00").
    result = invoke("tokens", "--since", "2026-11-01", "--until", "9999-12-31", "--tz", "Asia/Tokyo")
    assert result.exit_code == 0 and "window:" not in result.stderr and "" not in result.stderr.splitlines()


def test_an_end_that_is_no_midnight_is_said_excluded() -> None:
    from agentscan.cli.tokens_cut import window_line

    tokyo = ZoneInfo("Asia/Tokyo")
    assert window_line(None, datetime(2026, 11, 5, 3, tzinfo=UTC), tokyo) == (
        "window: up to 2026-11-05 12:00, not included (JST)")
    # A week's end in the zone: its Sunday is the last day counted.
    since, until = datetime(2026, 10, 31, 15, tzinfo=UTC), datetime(2026, 11, 29, 15, tzinfo=UTC)
    assert window_line(since, until, tokyo) == "window: from 2026-11-01 00:00 through the whole of 2026-11-29 (JST)"
    assert window_line(since, None, tokyo) is None


@pytest.mark.parametrize("spelt", ["utc", "Etc/UTC", "Zulu", "GMT", "Etc/GMT+0", "local"])
def test_utc_has_one_name_however_spelt(isolated_home: Path, local_zone: Callable[[str], None], spelt: str) -> None:
    _home(isolated_home)
    local_zone("Etc/UTC")  # a container's zone
    for words in (["tokens", "--by", "day", "--tz", spelt, "--json"],
                  ["export", "-f", "csv", "--days", "--tz", spelt, "-o", str(isolated_home / "d.csv"), "--json"]):
        result = invoke(*words)
        assert result.exit_code == 0, result.output
        document = orjson.loads(result.stdout)
        assert (document["window"]["tz"] if words[0] == "tokens" else document["days_tz"]) == "UTC"


def test_a_zone_that_only_looks_like_utc_keeps_its_name(isolated_home: Path) -> None:
    _home(isolated_home)
    for zone in ("Europe/London", "Etc/GMT+5"):  # (summer time; five hours behind)
        document = orjson.loads(invoke("tokens", "--by", "day", "--tz", zone, "--json").stdout)
        assert document["window"]["tz"] == zone
