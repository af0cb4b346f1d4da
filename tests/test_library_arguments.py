"""The library takes what a caller passes as the CLI takes its options: a home that is no
directory is an error, one ``str`` is one name or id, a naive ``datetime`` is wall-clock
time, a zone may be named; and ``with_costs`` takes any iterable of rows."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from agentscan import ListFilter, Scanner, token_report, with_costs
from agentscan.errors import NoReadableRoot, UnknownProvider, UsageProblem
from pricing_builders import CLAUDE_SESSION, claude_sonnet_session
from zones import in_each_zone

SESSION = f"claude:{CLAUDE_SESSION}"


# --- the home ---------------------------------------------------------------------------


def test_a_home_that_does_not_exist_is_an_error_not_an_empty_answer(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(NoReadableRoot, match=f"home {missing}: no such directory"):
        Scanner(home=missing)
    with pytest.raises(NoReadableRoot, match=f"home {missing}: no such directory"):
        Scanner(home=str(missing))


def test_a_home_that_is_a_file_is_an_error(tmp_path: Path) -> None:
    file = tmp_path / "file"
    file.write_text("x")
    with pytest.raises(NoReadableRoot, match="not a directory"):
        Scanner(home=file)


@pytest.mark.parametrize("blank", ["", "  "])
def test_an_empty_home_is_a_usage_error_never_the_current_directory(blank: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    claude_sonnet_session(tmp_path)  # a session under the current directory, which must not be read
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageProblem, match="home is empty"):
        Scanner(home=blank)


def test_a_home_of_no_such_user_is_an_error() -> None:
    with pytest.raises(NoReadableRoot, match="no such user's home"):
        Scanner(home="~no-such-user-agentscan")


def test_a_home_given_as_a_context_or_left_out_is_not_checked_again(isolated_home: Path) -> None:
    """The CLI checks ``--home`` itself and hands a context over; ``HOME`` is not checked."""
    from agentscan.context import ScanContext

    assert Scanner(context=ScanContext.create(home=isolated_home / "nope")).list_sessions() == []
    assert Scanner().ctx.home == isolated_home


def test_providers_handed_over_may_read_no_home(tmp_path: Path) -> None:
    """An in-memory provider (``Scanner(providers=[…])``) decides what it reads: no home is needed."""
    from agentscan.providers.fake import FakeProvider

    with Scanner(providers=[FakeProvider([])], home=tmp_path / "nope", env={}) as scanner:
        assert scanner.list_sessions() == []


def test_the_cli_still_says_home_in_its_own_words(tmp_path: Path) -> None:
    from builders import invoke

    result = invoke("--home", str(tmp_path / "nope"), "list")
    assert result.exit_code == 1 and result.stderr == f"error: --home {tmp_path / 'nope'}: no such directory\n"
    result = invoke("--home", "", "list")
    assert result.exit_code == 2 and "--home is empty" in result.stderr


# --- one str, not its letters -------------------------------------------------------------


def test_one_provider_name_as_a_str_is_one_provider(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    scanner = Scanner(home=isolated_home, provider_names="claude")
    assert [p.name for p in scanner.providers] == ["claude"]
    assert [p.name for p in Scanner(home=isolated_home).selected("claude")] == ["claude"]
    assert ListFilter(providers="claude").providers == ("claude",)
    assert ListFilter(providers=["claude", "codex"]).providers == ("claude", "codex")
    assert [row.id for row in scanner.list_sessions(filters=ListFilter(providers="claude"))] == [SESSION]
    with pytest.raises(UnknownProvider, match="'nope'"):
        Scanner(home=isolated_home, provider_names="nope")


def test_token_report_takes_one_id_or_one_provider_as_a_str(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    scanner = Scanner(home=isolated_home)
    whole = token_report(scanner).total
    assert whole is not None and whole.total > 0
    assert token_report(scanner, ids=SESSION).total == whole
    assert token_report(scanner, ids=SESSION[:15]).total == whole  # a prefix, not 'c'
    assert token_report(scanner, providers="claude").total == whole
    assert [row.key for row in token_report(scanner, providers="claude").rows] == [SESSION]


# --- datetimes and zones -----------------------------------------------------------------

#: the session's calls: 09:00:05 and 09:01:00 UTC, its subagent's 09:00:20 UTC (2025-10-01)
BETWEEN_CALLS = datetime(2025, 10, 1, 9, 0, 30)


def test_a_naive_since_is_local_time_in_a_list_filter(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    scanner = Scanner(home=isolated_home)
    for _ in in_each_zone(["UTC"]):
        assert ListFilter(since=BETWEEN_CALLS).since == BETWEEN_CALLS.replace(tzinfo=timezone.utc)
        assert [row.id for row in scanner.list_sessions(filters=ListFilter(since=BETWEEN_CALLS))] == [SESSION]
        assert scanner.list_sessions(filters=ListFilter(since=datetime(2025, 10, 1, 9, 2))) == []
    for _ in in_each_zone(["Asia/Tokyo"]):  # 09:00:30 there is 00:00:30 UTC
        assert ListFilter(since=BETWEEN_CALLS).since == BETWEEN_CALLS.replace(tzinfo=ZoneInfo("Asia/Tokyo"))


def test_a_naive_since_is_read_in_the_reports_zone_else_the_local_one(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    scanner = Scanner(home=isolated_home)
    last_call = token_report(scanner, since=BETWEEN_CALLS.replace(tzinfo=timezone.utc)).total
    every_call = token_report(scanner).total
    assert last_call is not None and every_call is not None and last_call.input == 500 < every_call.input
    for _ in in_each_zone(["UTC"]):
        assert token_report(scanner, since=BETWEEN_CALLS).total == last_call
        # ``tz`` names the zone the naive time is wall-clock time in: Tokyo's 09:00:30 is before every call.
        assert token_report(scanner, since=BETWEEN_CALLS, tz=ZoneInfo("Asia/Tokyo")).total == every_call
        assert token_report(scanner, since=BETWEEN_CALLS, tz="UTC").total == last_call


def test_the_first_and_last_datetimes_mean_from_the_start_and_to_the_end(isolated_home: Path) -> None:
    """``datetime.min`` has no local form east of UTC: taken as the nearest year a record holds."""
    claude_sonnet_session(isolated_home)
    scanner = Scanner(home=isolated_home)
    every_call = token_report(scanner).total
    for _ in in_each_zone(["Asia/Tokyo", "America/Los_Angeles"]):
        assert token_report(scanner, since=datetime.min, until=datetime.max).total == every_call
        assert len(scanner.list_sessions(filters=ListFilter(since=datetime.min))) == 1


def test_a_naive_and_an_aware_bound_together_are_no_type_error(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    scanner = Scanner(home=isolated_home)
    for _ in in_each_zone(["UTC"]):
        report = token_report(scanner, since=datetime(2025, 10, 1), until=datetime(2025, 10, 2, tzinfo=timezone.utc))
        assert report.total == token_report(scanner).total
        with pytest.raises(UsageProblem, match="^since must be before until"):
            token_report(scanner, since=datetime(2025, 10, 2), until=datetime(2025, 10, 1, tzinfo=timezone.utc))


@pytest.mark.parametrize("value", [1767225600, datetime(2026, 1, 1).date()])
def test_a_since_that_is_no_datetime_is_a_usage_error_naming_it(value: object, isolated_home: Path) -> None:
    scanner = Scanner(home=isolated_home)
    with pytest.raises(UsageProblem, match="since must be a datetime"):
        ListFilter(since=value)  # type: ignore[arg-type]
    with pytest.raises(UsageProblem, match="until must be a datetime"):
        token_report(scanner, until=value)  # type: ignore[arg-type]


def test_a_zone_may_be_named_as_tz_takes_it(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    scanner = Scanner(home=isolated_home)
    named = token_report(scanner, by="day", tz="Pacific/Honolulu")  # UTC-10: the calls fall on 30 September
    assert named == token_report(scanner, by="day", tz=ZoneInfo("Pacific/Honolulu"))
    assert [row.key for row in named.rows] == ["2025-09-30"]
    with pytest.raises(UsageProblem, match="unknown time zone 'Nowhere/Zone'"):
        token_report(scanner, tz="Nowhere/Zone")
    with pytest.raises(UsageProblem, match="tz must be a tzinfo or an IANA zone name, not int"):
        token_report(scanner, tz=5)  # type: ignore[arg-type]


# --- with_costs -----------------------------------------------------------------------------


def test_with_costs_takes_a_generator_of_rows(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    with Scanner(home=isolated_home) as scanner:
        rows = scanner.list_sessions()
        from_list = with_costs(scanner, rows)
        from_generator = with_costs(scanner, (row for row in rows))
    assert from_generator == from_list and len(from_list) == 1 and from_list[0].cost is not None
