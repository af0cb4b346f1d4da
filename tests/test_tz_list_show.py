"""``list`` and ``show`` take ``--tz`` as ``tokens`` does, and name the zone of the times they
print once (a heading, the card's two times), never on each row; ``utc`` and ``local`` are
zones for every ``--tz``; JSON stays UTC."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from test_fastpath import through_fast_path, through_typer
from zones import in_each_zone

runner = CliRunner()
SUMMER = "11111111-0000-4000-8000-000000000001"  # 2026-07-01 10:00 to 12:02 UTC
WINTER = "22222222-0000-4000-8000-000000000002"  # 2026-11-07 13:02 UTC
LATE = "33333333-0000-4000-8000-000000000003"  # 2026-11-06 16:00 UTC: the 7th in Tokyo


def run(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output + result.stderr
    return result.stdout, result.stderr


def session(home: Path, native_id: str, stamps: list[str], title: str) -> None:
    records = []
    for index, stamp in enumerate(stamps):
        records.append(claude_user(native_id, stamp, f"{title} {index}"))
        records.append(claude_assistant(native_id, stamp, msg_id=f"m-{native_id}-{index}", request_id=f"r-{native_id}-{index}",
                                        usage=claude_usage(100, 10)))
    claude_session_file(home, native_id, records)


@pytest.fixture
def home(isolated_home: Path) -> Path:
    session(isolated_home, SUMMER, ["2026-07-01T10:00:00Z", "2026-07-01T12:02:00Z"], "summer")
    session(isolated_home, WINTER, ["2026-11-07T13:02:00Z"], "winter")
    return isolated_home


def local(zone: str) -> Iterator[None]:
    for _ in in_each_zone([zone]):
        yield


@pytest.fixture
def utc() -> Iterator[None]:
    yield from local("UTC")


@pytest.fixture
def paris() -> Iterator[None]:
    yield from local("Europe/Paris")


def row_of(out: str, native_id: str) -> str:
    return next(line for line in out.splitlines() if native_id in line)


# --- list --------------------------------------------------------------------------------

def test_list_in_utc_names_no_zone(home: Path, utc: None) -> None:
    out, _ = run("list")
    assert out.splitlines()[0].split()[:3] == ["ID", "UPDATED", "TOKENS"]
    assert "2026-11-07 13:02" in row_of(out, WINTER)


def test_list_tz_prints_updated_in_that_zone_and_names_it_in_the_heading(home: Path, utc: None) -> None:
    out, _ = run("list", "--tz", "Asia/Kolkata")
    heading = out.splitlines()[0]
    assert "UPDATED (IST)" in heading
    assert "2026-11-07 18:32" in row_of(out, WINTER) and "2026-07-01 17:32" in row_of(out, SUMMER)
    assert "IST" not in row_of(out, WINTER)  # named once, not on each row
    assert len(out.splitlines()) == 3  # each row one line


def test_the_local_zone_is_named_too_across_a_clock_change(home: Path, paris: None) -> None:
    out, _ = run("list")
    assert "UPDATED (CET/CEST)" in out.splitlines()[0]
    assert "2026-11-07 14:02" in row_of(out, WINTER) and "2026-07-01 14:02" in row_of(out, SUMMER)
    # --tz utc: UTC's times, no zone named, as on a UTC machine.
    utc_out, _ = run("list", "--tz", "utc")
    assert utc_out.splitlines()[0].split()[:2] == ["ID", "UPDATED"]
    assert "2026-11-07 13:02" in row_of(utc_out, WINTER)


@pytest.mark.parametrize("name", ["utc", "UTC", "Utc"])
def test_utc_in_any_case_is_utc(home: Path, paris: None, name: str) -> None:
    assert run("list", "--tz", name)[0] == run("list", "--tz", "Etc/UTC")[0]


def test_tz_local_is_the_machine_zone(home: Path) -> None:
    for _ in in_each_zone(["Asia/Tokyo"]):
        assert run("list", "--tz", "local")[0] == run("list")[0] == run("list", "--tz", "Asia/Tokyo")[0]
        assert run("show", WINTER[:8], "--tz", "local")[0] == run("show", WINTER[:8])[0]
        assert run("tokens", "--by", "day", "--tz", "local")[0] == run("tokens", "--by", "day")[0]


def test_a_bare_since_date_is_read_in_the_tz_zone(home: Path, utc: None) -> None:
    session(home, LATE, ["2026-11-06T16:00:00Z"], "late")
    tokyo, _ = run("list", "--since", "2026-11-07", "--tz", "Asia/Tokyo")
    here, _ = run("list", "--since", "2026-11-07")
    assert LATE in tokyo and WINTER in tokyo
    assert LATE not in here and WINTER in here


def test_json_stays_utc_whatever_the_zone(home: Path, paris: None) -> None:
    plain = orjson.loads(run("list", "--json")[0])
    zoned = orjson.loads(run("list", "--json", "--tz", "Asia/Tokyo")[0])
    assert [s["updated_at"] for s in zoned["sessions"]] == [s["updated_at"] for s in plain["sessions"]]
    assert zoned["sessions"][0]["updated_at"] == "2026-11-07T13:02:00.000Z"
    shown = orjson.loads(run("show", WINTER[:8], "--json", "--tz", "Asia/Tokyo")[0])
    assert shown["session"]["updated_at"] == "2026-11-07T13:02:00.000Z"


def test_a_remembered_page_is_not_printed_for_another_zone(home: Path, utc: None) -> None:
    first, _ = run("list")
    assert run("list")[0] == first  # remembered
    tokyo, _ = run("list", "--tz", "Asia/Tokyo")
    assert "2026-11-07 22:02" in row_of(tokyo, WINTER) and "UPDATED (JST)" in tokyo


@pytest.mark.parametrize(("argv", "said"), [
    (["list", "--tz", "Europe/Berln"], "unknown time zone 'Europe/Berln': did you mean Europe/Berlin?"),
    (["show", WINTER[:8], "--tz", "Mars/Base"], "unknown time zone 'Mars/Base' (use an IANA name"),
    (["list", "--tz", ""], "--tz is empty"),
    (["show", WINTER[:8], "--tz="], "--tz is empty"),
    (["tokens", "--tz", "asia/tokyo"], "did you mean Asia/Tokyo?"),
])
def test_a_bad_zone_is_a_usage_error(home: Path, argv: list[str], said: str) -> None:
    result = runner.invoke(app, argv)
    assert result.exit_code == 2 and said in result.stderr, result.stderr


def test_an_empty_since_note_names_the_zone_of_its_times(home: Path, paris: None) -> None:
    result = runner.invoke(app, ["list", "--since", "2027-01-01", "--tz", "Asia/Tokyo"])
    assert result.exit_code == 0
    assert "no sessions updated since 2027-01-01 00:00 JST" in result.stderr
    assert "the newest was updated 2026-11-07 22:02 JST" in result.stderr


# --- show --------------------------------------------------------------------------------

def test_show_names_the_zone_of_the_card_times_once(home: Path, utc: None) -> None:
    out, _ = run("show", SUMMER[:8], "--tz", "Europe/Paris")
    assert "  started  2026-07-01 12:00 CEST" in out
    assert "  updated  2026-07-01 14:02 CEST" in out
    prompts = [line for line in out.splitlines() if "summer 1" in line]
    assert prompts == ["  2026-07-01 14:02  summer 1"]  # the card named the zone: not again


def test_show_in_utc_names_no_zone(home: Path, utc: None) -> None:
    out, _ = run("show", SUMMER[:8])
    assert "  started  2026-07-01 10:00\n" in out and "  updated  2026-07-01 12:02\n" in out


def test_show_full_prints_every_item_in_the_tz_zone(home: Path, utc: None) -> None:
    out, _ = run("show", WINTER[:8], "--full", "--no-pager", "--tz", "America/Sao_Paulo")
    assert "  updated  2026-11-07 10:02 -03" in out
    assert any(line.startswith("2026-11-07 10:02  prompt") for line in out.splitlines()), out


# --- both ways of reading a command line --------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["list", "--tz", "Asia/Tokyo"], ["list", "--tz=utc"], ["list", "--tz", "local", "--json"],
    ["list", "--tz", "Nowhere/City"], ["show", WINTER[:8], "--tz", "Europe/Paris"],
    ["show", WINTER, "--full", "--no-pager", "--tz", "Asia/Tokyo"], ["tokens", "--tz", "UTC", "--by", "day"],
])
def test_the_fast_path_reads_tz_as_typer_does(argv: list[str], home: Path, utc: None,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from agentscan.cli import fastpath

    assert fastpath.parse(argv) is not None
    assert through_fast_path(argv, capsys) == through_typer(argv)
