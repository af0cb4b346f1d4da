"""``--since``/``--until``: one rule for the local zone and ``--tz``, every date-only form a
whole period, and the durations that are refused.

A wall time a clock change skips moves forward by the gap, so a day whose midnight does
not exist (America/Santiago, 2026-09-06) starts at 01:00, whether the zone is ``TZ=``
(read by ``zoneinfo``, or by the C library for a POSIX rule) or ``--tz``.  ``--until``
takes ccusage's 20261231, an ISO week day and the labels ``--by week|month`` print as
whole periods.  ``1M`` (a month, to a person) and ``0d`` (now) are usage errors.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Callable
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.errors import UsageProblem
from agentscan.timeutil import LATEST
from agentscan.whentext import parse_when
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json

UTC = timezone.utc
SANTIAGO_RULE = "<-04>4<-03>,M9.1.6/24,M4.1.6/24"  # the same clocks, as a POSIX rule zoneinfo cannot read
BERLIN_RULE = "CET-1CEST,M3.5.0,M10.5.0/3"


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# -- 1. a skipped wall time, the same for TZ= and --tz ------------------------------

@pytest.mark.parametrize("local", ["America/Santiago", SANTIAGO_RULE])
def test_a_day_whose_midnight_is_skipped_starts_at_the_gaps_end(local_zone: Callable[[str], None], local: str) -> None:
    local_zone(local)
    flag = ZoneInfo("America/Santiago")
    # 00:00 -04 does not exist: the day starts at 01:00 -03, 04:00Z (not 23:00 on the 5th, 03:00Z).
    assert parse_when("2026-09-06") == parse_when("2026-09-06", tz=flag) == at("2026-09-06T04:00")
    assert parse_when("2026-09-05", end_of_day=True) == parse_when("2026-09-05", tz=flag, end_of_day=True) == at("2026-09-06T04:00")
    assert parse_when("2026-09-06T00:30") == parse_when("2026-09-06T00:30", tz=flag) == at("2026-09-06T04:30")


@pytest.mark.parametrize("local", ["Europe/Berlin", ":Europe/Berlin", BERLIN_RULE])
def test_a_skipped_wall_time_moves_forward_and_a_repeated_one_is_the_first(local_zone: Callable[[str], None], local: str) -> None:
    local_zone(local)
    flag = ZoneInfo("Europe/Berlin")
    # 02:30 on the spring-forward night is 03:30 CEST (01:30Z), not 01:30 CET (00:30Z).
    assert parse_when("2026-03-29T02:30") == parse_when("2026-03-29T02:30", tz=flag) == at("2026-03-29T01:30")
    # 02:30 on the fall-back night happens twice: the first, CEST.
    assert parse_when("2026-10-25T02:30") == parse_when("2026-10-25T02:30", tz=flag) == at("2026-10-25T00:30")


def _santiago_home(home: Path) -> None:
    late = "9a900000-0000-4000-8000-000000000001"  # 2026-09-05 23:30 -04 and 2026-09-06 01:30 -03
    records = [claude_user(late, "2026-09-06T03:30:00.000Z", "gap")]
    for i, ts in enumerate(["2026-09-06T03:30:00.000Z", "2026-09-06T04:30:00.000Z"]):
        records.append(claude_assistant(late, ts, msg_id=f"m{i}", request_id=f"r{i}", usage=claude_usage(input=100, output=i + 1), uuid=f"a{i}"))
    claude_session_file(home, late, records)
    fifth = "9a900000-0000-4000-8000-000000000002"  # last updated 2026-09-05 23:30 -04
    claude_session_file(home, fifth, [claude_user(fifth, "2026-09-06T03:30:00.000Z", "late on the 5th"),
                                      claude_assistant(fifth, "2026-09-06T03:30:00.000Z", msg_id="n0", request_id="q0",
                                                       usage=claude_usage(input=100, output=7), uuid="b0")])


@pytest.mark.parametrize("zone_flag", [(), ("--tz", "America/Santiago")])
def test_tokens_and_list_by_santiago_days_agree_with_and_without_tz(isolated_home: Path, local_zone: Callable[[str], None],
                                                                   zone_flag: tuple[str, ...]) -> None:
    _santiago_home(isolated_home)
    local_zone("UTC" if zone_flag else "America/Santiago")
    sixth = cli_json("tokens", "--by", "day", "--since", "2026-09-06", "--until", "2026-09-06", *zone_flag)
    assert [(row["key"], row["tokens"]["output"]) for row in sixth["rows"]] == [("2026-09-06", 2)]
    fifth = cli_json("tokens", "--by", "day", "--until", "2026-09-05", *zone_flag)
    assert [(row["key"], row["tokens"]["output"]) for row in fifth["rows"]] == [("2026-09-05", 8)]


def test_list_since_a_day_whose_midnight_is_skipped_leaves_the_day_before_out(isolated_home: Path,
                                                                             local_zone: Callable[[str], None]) -> None:
    _santiago_home(isolated_home)
    local_zone("America/Santiago")
    listed = cli_json("list", "--since", "2026-09-06")
    assert [row["title"] for row in listed["sessions"]] == ["gap"]


@pytest.mark.parametrize(("local", "zone_flag"), [("Europe/Berlin", ()), ("UTC", ("--tz", "Europe/Berlin"))])
def test_an_hour_that_starts_in_the_gap_is_empty_whichever_way_the_zone_is_given(
        isolated_home: Path, local_zone: Callable[[str], None], local: str, zone_flag: tuple[str, ...]) -> None:
    local_zone(local)
    # 02:30 does not exist: it is 03:30, and [03:30, 03:30) is empty (TZ= used to count 01:30 to 03:30).
    result = CliRunner().invoke(app, ["tokens", "--since", "2026-03-29T02:30", "--until", "2026-03-29T03:30", *zone_flag])
    assert result.exit_code == 2 and "the range is empty" in result.stderr


# -- 2. every date-only form is a whole period ------------------------------------

@pytest.mark.parametrize(("text", "since", "until"), [
    ("2026-12-31", "2026-12-31", "2027-01-01"),
    ("20261231", "2026-12-31", "2027-01-01"),          # ccusage's spelling
    ("2026-W53-4", "2026-12-31", "2027-01-01"),        # an ISO week day (Thursday)
    ("2026W534", "2026-12-31", "2027-01-01"),
    ("2026-W44", "2026-10-26", "2026-11-02"),          # the label --by week prints: Monday to Sunday
    ("2026W44", "2026-10-26", "2026-11-02"),
    ("2026-11", "2026-11-01", "2026-12-01"),           # the label --by month prints
    ("2026-12", "2026-12-01", "2027-01-01"),
])
def test_a_date_week_or_month_is_a_whole_period(text: str, since: str, until: str) -> None:
    assert parse_when(text, tz=UTC) == at(since)
    assert parse_when(text, tz=UTC, end_of_day=True) == at(until)


def test_a_period_is_read_in_the_zone() -> None:
    tokyo = ZoneInfo("Asia/Tokyo")
    assert parse_when("2026-11", tz=tokyo) == at("2026-10-31T15:00")
    assert parse_when("2026-W44", tz=tokyo, end_of_day=True) == at("2026-11-01T15:00")


def test_the_last_period_of_the_calendar_reaches_the_end_of_time() -> None:
    # --until 9999-12-31 raised OverflowError (exit 1, a traceback).
    for text in ("9999-12-31", "99991231", "9999-12"):
        assert parse_when(text, tz=UTC, end_of_day=True) == LATEST


@pytest.mark.parametrize("text", ["2026-02-30", "2026-13", "2025-W53", "2026-W01-8", "20260230"])
def test_a_period_that_does_not_exist_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageProblem, match="no such day, week or month"):
        parse_when(text, end_of_day=True)


def _december_home(home: Path) -> None:
    sid = "de000000-0000-4000-8000-000000000001"
    stamps = ["2026-10-29T12:00:00.000Z", "2026-11-15T12:00:00.000Z", "2026-12-31T12:00:00.000Z"]  # W44 Thursday, W46, W53
    records = [claude_user(sid, stamps[0], "december")]
    for i, ts in enumerate(stamps):
        records.append(claude_assistant(sid, ts, msg_id=f"m{i}", request_id=f"r{i}", usage=claude_usage(input=100, output=10 ** i), uuid=f"a{i}"))
    claude_session_file(home, sid, records)


@pytest.mark.parametrize("until", ["2026-12-31", "20261231", "2026-W53-4", "2026-W53", "2026-12"])
def test_until_any_spelling_of_the_last_day_includes_it(isolated_home: Path, local_zone: Callable[[str], None], until: str) -> None:
    _december_home(isolated_home)
    local_zone("UTC")
    assert cli_json("tokens", "--since", "2026-12-01", "--until", until)["total"]["output"] == 100


def test_the_labels_by_week_and_month_print_select_those_periods(isolated_home: Path, local_zone: Callable[[str], None]) -> None:
    _december_home(isolated_home)
    local_zone("America/Los_Angeles")
    weeks = cli_json("tokens", "--by", "week", "--until", "2026-W44")
    assert [row["key"] for row in weeks["rows"]] == ["2026-W44"]
    assert cli_json("tokens", "--since", "2026-11", "--until", "2026-11")["total"]["output"] == 10
    assert cli_json("tokens", "--since", "20261231", "--until", "20261231")["total"]["output"] == 100


# -- 4. durations -------------------------------------------------------------------

@pytest.mark.parametrize("text", ["1M", "3M", "1mo", "2months", "1y", "1Y", "2years"])
def test_months_and_years_are_not_durations(text: str) -> None:
    with pytest.raises(UsageProblem, match="months and years have no fixed length"):
        parse_when(text)


@pytest.mark.parametrize("text", ["0d", "0h", "00w", "0s", "0m"])
def test_a_zero_duration_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageProblem, match="is zero"):
        parse_when(text)


def test_minutes_are_lowercase_m_and_the_other_units_take_either_case() -> None:
    now = datetime(2026, 11, 30, tzinfo=UTC)
    assert (now - parse_when("30m", now=now)).total_seconds() == 1800
    assert parse_when("3D", now=now) == parse_when("3d", now=now)
    assert parse_when("12H", now=now) == parse_when("12h", now=now)


@pytest.mark.parametrize(("command", "value"), [("tokens", "1M"), ("tokens", "0d"), ("list", "0h"), ("list", "1M")])
def test_refused_durations_exit_2(isolated_home: Path, command: str, value: str) -> None:
    result = CliRunner().invoke(app, [command, "--since", value])
    assert result.exit_code == 2 and value in result.stderr
