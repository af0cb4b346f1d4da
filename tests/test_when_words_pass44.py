"""``--since``/``--until`` take ``today`` and ``yesterday`` (any case): that date in the ``--tz``
zone (default: the local one), read exactly as the date is.

``--since today`` was refused (``cannot read the time 'today'``), and ``--since 1d`` is the
last 24 hours, so ``tokens --by day --since 1d`` began part-way through yesterday with no
marker.  ``--until yesterday`` includes yesterday, as ``--until 2026-11-30`` includes the 30th.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable
from zoneinfo import ZoneInfo

import pytest

from agentscan.errors import UsageProblem
from agentscan.localzone import LocalDays
from agentscan.whentext import parse_when
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke

UTC = timezone.utc
NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)  # in Tokyo (UTC+9) already 1 December


# -- 1. the words, read as their dates ----------------------------------------------------

@pytest.mark.parametrize(("word", "day"), [("today", "2026-11-30"), ("yesterday", "2026-11-29")])
def test_a_day_word_is_its_date_in_the_zone(word: str, day: str) -> None:
    for end_of_day in (False, True):
        assert (parse_when(word, now=NOW, tz=UTC, end_of_day=end_of_day)
                == parse_when(day, tz=UTC, end_of_day=end_of_day))
    assert parse_when(word, now=NOW, tz=UTC) == datetime.fromisoformat(day).replace(tzinfo=UTC)


def test_until_yesterday_includes_yesterday_and_ends_at_todays_midnight() -> None:
    assert parse_when("yesterday", now=NOW, tz=UTC, end_of_day=True) == datetime(2026, 11, 30, tzinfo=UTC)
    assert parse_when("today", now=NOW, tz=UTC, end_of_day=True) == datetime(2026, 12, 1, tzinfo=UTC)


def test_the_day_is_the_zones_not_utcs() -> None:
    tokyo = ZoneInfo("Asia/Tokyo")
    # 20:00 UTC on the 30th is 05:00 on 1 December in Tokyo: its today starts at 15:00 UTC on the 30th.
    assert parse_when("today", now=NOW, tz=tokyo) == datetime(2026, 11, 30, 15, 0, tzinfo=UTC)
    assert parse_when("yesterday", now=NOW, tz=tokyo) == datetime(2026, 11, 29, 15, 0, tzinfo=UTC)
    los_angeles = ZoneInfo("America/Los_Angeles")  # 12:00 on the 30th there
    assert parse_when("yesterday", now=NOW, tz=los_angeles) == parse_when("2026-11-29", tz=los_angeles)


def test_without_a_zone_the_day_is_the_local_ones(local_zone: Callable[[str], None]) -> None:
    local_zone("Asia/Tokyo")
    assert parse_when("today", now=NOW) == parse_when("2026-12-01") == datetime(2026, 11, 30, 15, 0, tzinfo=UTC)
    # ``export --days --tz local``'s zone, the local one as a tzinfo, reads it alike.
    assert parse_when("Yesterday", now=NOW, tz=LocalDays()) == parse_when("2026-11-30")


@pytest.mark.parametrize("spelt", ["TODAY", "Today", " today ", "tOdAy"])
def test_any_case_and_the_spaces_around(spelt: str) -> None:
    assert parse_when(spelt, now=NOW, tz=UTC) == datetime(2026, 11, 30, tzinfo=UTC)


@pytest.mark.parametrize("text", ["tomorrow", "todays", "yesterdayish", "to day", "ſtoday"])
def test_other_words_are_still_refused_and_the_hint_names_the_words(text: str) -> None:
    with pytest.raises(UsageProblem, match="cannot read the time") as refused:
        parse_when(text, now=NOW)
    assert "today, yesterday" in str(refused.value)


# -- 2. every command that takes a window --------------------------------------------------

def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _three_days(home: Path, today: datetime) -> dict[str, str]:
    """A session a day: two days ago, yesterday (one call just after its midnight, one at noon)
    and today at its first second; each output says which day it is (UTC days)."""
    ids = {}
    days = {"before": (today - timedelta(days=2), [12], 1), "yesterday": (today - timedelta(days=1), [0, 12], 10),
            "today": (today, [0], 1000)}
    for number, (name, (day, hours, output)) in enumerate(days.items()):
        sid = f"da000000-0000-4000-8000-00000000000{number}"
        stamps = [day + timedelta(hours=hour, seconds=1) for hour in hours]
        records = [claude_user(sid, _stamp(stamps[0]), name)]
        records += [claude_assistant(sid, _stamp(stamp), msg_id=f"m{number}{i}", request_id=f"r{number}{i}",
                                     usage=claude_usage(input=5, output=output), uuid=f"a{number}{i}")
                    for i, stamp in enumerate(stamps)]
        claude_session_file(home, sid, records, mtime=stamps[-1].timestamp())
        ids[name] = f"claude:{sid}"
    return ids


def _today() -> datetime:
    return datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def _on_one_day(check: Callable[[datetime], None]) -> None:
    """``check(today's UTC midnight)``, made again should the day turn while it ran."""
    for _ in range(2):
        today = _today()
        try:
            check(today)
            return
        except AssertionError:
            if _today() == today:
                raise


def test_tokens_since_and_until_yesterday_is_yesterday_whole(isolated_home: Path) -> None:
    def check(today: datetime) -> None:
        _three_days(isolated_home, today)
        answer = cli_json("tokens", "--since", "yesterday", "--until", "yesterday", "--tz", "utc")
        assert answer["total"]["output"] == 20  # both of yesterday's calls, the one after midnight too
        days = cli_json("tokens", "--by", "day", "--since", "YESTERDAY", "--tz", "utc")
        yesterday = (today - timedelta(days=1)).date().isoformat()
        assert [(row["key"], row["tokens"]["output"]) for row in days["rows"]] == [
            (yesterday, 20), (today.date().isoformat(), 1000)]

    _on_one_day(check)


def test_list_and_export_since_today(isolated_home: Path, local_zone: Callable[[str], None]) -> None:
    local_zone("UTC")

    def check(today: datetime) -> None:
        ids = _three_days(isolated_home, today)
        listed = cli_json("list", "--since", "today", "--tz", "utc")
        assert [session["id"] for session in listed["sessions"]] == [ids["today"]]
        listed = cli_json("list", "--since", "yesterday", "--until", "Yesterday", "--tz", "utc")
        assert [session["id"] for session in listed["sessions"]] == [ids["yesterday"]]
        exported = invoke("export", "--format", "jsonl", "--since", "today")
        assert exported.exit_code == 0, exported.output
        assert [json.loads(line)["id"] for line in exported.stdout.splitlines()] == [ids["today"]]

    _on_one_day(check)
