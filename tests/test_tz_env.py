"""The local zone's settings: a mistyped ``TZ`` (which the C library silently takes as UTC)
said once, ``doctor`` naming the zone and what set it, ``--tz local`` for ``export``, and
no ``zoneinfo`` imported by a command that needs no zone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from zones import in_each_zone

runner = CliRunner()
SESSION = "44444444-0000-4000-8000-000000000004"
NOTE = "note: TZ=Europe/Berln names no time zone this system knows (did you mean Europe/Berlin?), so local times are UTC"


def _home(home: Path) -> None:
    claude_session_file(home, SESSION, [
        claude_user(SESSION, "2026-11-07T23:30:00Z", "late"),
        claude_assistant(SESSION, "2026-11-07T23:30:00Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10)),
    ])


# --- the check itself ----------------------------------------------------------------------

@pytest.mark.parametrize("value", ["Europe/Berlin", ":Europe/Berlin", "UTC", "utc", "", ":", "EST5EDT", "JST-9",
                                   "<-04>4<-03>,M9.1.6/24,M4.1.6/24", "GMT+3"])
def test_a_tz_the_c_library_reads_is_no_problem(value: str) -> None:
    from agentscan import localzone

    assert localzone.problem({"TZ": value}) is None
    assert localzone.problem({}) is None  # unset: the system's zone


@pytest.mark.parametrize(("value", "guess"), [("Europe/Berln", "Europe/Berlin"), ("asia/tokyo", "Asia/Tokyo"),
                                               ("Europe", None), ("zone.tab", None), ("Mars/Base", None)])
def test_a_tz_that_names_no_zone_is_said(value: str, guess: str | None) -> None:
    from agentscan import localzone

    said = localzone.problem({"TZ": value})
    assert said is not None and said.startswith(f"TZ={value} names no time zone this system knows")
    assert "so local times are UTC" in said
    assert (f"did you mean {guess}?" in said) if guess else "did you mean" not in said


def test_tzdir_and_a_zone_file_by_path(tmp_path: Path) -> None:
    from agentscan import localzone

    zone_file = tmp_path / "zones" / "Mine" / "Zone"
    zone_file.parent.mkdir(parents=True)
    zone_file.write_bytes(b"TZif2" + bytes(40))
    assert localzone.problem({"TZ": "Mine/Zone", "TZDIR": str(tmp_path / "zones")}) is None
    assert localzone.problem({"TZ": "Mine/Zone"}) is not None  # not in the system's directory
    assert localzone.problem({"TZ": str(zone_file)}) is None
    (tmp_path / "text").write_text("not a zone")
    assert localzone.problem({"TZ": str(tmp_path / "text")}) is not None


# --- said once, where local times are printed or read ---------------------------------------

def _stderr(*argv: str) -> str:
    result = runner.invoke(app, list(argv))
    assert result.exit_code == 0, result.output + result.stderr
    return result.stderr


def test_a_mistyped_tz_is_said_once_by_list_show_and_tokens(isolated_home: Path) -> None:
    _home(isolated_home)
    for _ in in_each_zone(["Europe/Berln"]):
        for argv in (["list"], ["list"], ["show", SESSION[:8]], ["tokens"], ["tokens", "--by", "day", "--json"],
                     ["list", "--json", "--since", "2026-11-01"], ["list", "--tz", "local"]):
            assert _stderr(*argv).count(NOTE) == 1, argv
        # Not where no local time is printed or read, nor with a zone given, nor under --quiet.
        for argv in (["list", "--json"], ["show", SESSION[:8], "--json"], ["tokens", "--json"],
                     ["tokens", "--by", "Session", "--json"], ["list", "--tz", "Asia/Tokyo"], ["show", SESSION[:8], "--tz", "utc"], ["-q", "list"]):
            assert "TZ=" not in _stderr(*argv), argv


def test_a_good_tz_is_not_noted(isolated_home: Path) -> None:
    _home(isolated_home)
    for _ in in_each_zone(["Europe/Berlin", "EST5EDT", "UTC"]):
        assert "note:" not in _stderr("list")


# --- doctor ------------------------------------------------------------------------------

def _doctor_zone_lines() -> list[str]:
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("time zone: "))
    return lines[start:start + 2]


def test_doctor_names_the_zone_and_what_set_it() -> None:
    for _ in in_each_zone(["Asia/Tokyo"]):
        assert _doctor_zone_lines()[0] == "time zone: Asia/Tokyo (from TZ; JST, UTC+09:00 now)"
    for _ in in_each_zone(["Europe/Berln"]):
        first, second = _doctor_zone_lines()
        assert first == "time zone: UTC (from TZ)"
        assert second.startswith("  " + NOTE)


def test_doctor_without_tz_names_the_system_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan import doctor

    monkeypatch.delenv("TZ", raising=False)
    monkeypatch.setattr(doctor.os, "readlink", lambda path: "/usr/share/zoneinfo/America/Denver")
    zone = doctor.local_zone()
    assert (zone.name, zone.source, zone.problem) == ("America/Denver", "/etc/localtime", None)


def test_doctor_json_is_unchanged() -> None:
    result = runner.invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0
    assert "time_zone" not in orjson.loads(result.stdout) and "time zone" not in result.stdout


# --- export --tz local ----------------------------------------------------------------------

def test_export_days_in_the_local_zone(isolated_home: Path) -> None:
    _home(isolated_home)

    def days(*tz: str) -> list[str]:
        result = runner.invoke(app, ["export", "-f", "jsonl", "--days", *tz, "-o", "-"])
        assert result.exit_code == 0, result.stderr
        return [orjson.loads(line)["day"] for line in result.stdout.splitlines()]

    for _ in in_each_zone(["Asia/Tokyo"]):
        assert days("--tz", "local") == days("--tz", "Asia/Tokyo") == ["2026-11-08"]
        assert days() == days("--tz", "UTC") == ["2026-11-07"]  # the default: UTC days
        refused = runner.invoke(app, ["export", "-f", "csv", "--tz", "local", "-o", "-"])
        assert refused.exit_code == 2 and "--tz is for --days" in refused.stderr


# --- no zoneinfo where no zone is needed ----------------------------------------------------

_RUN = (
    "import sys; sys.argv[0] = 'agentscan'\n"
    "import agentscan.scan.memo\n"
    "agentscan.scan.memo.SETTLE_NS = 0\n"
    "from agentscan.entry import main\n"
    "try:\n    main()\n"
    "finally:\n    print('zoneinfo' in sys.modules, file=sys.stderr)\n"
)


@pytest.mark.parametrize(("argv", "tz", "imported"), [
    (["list"], None, False), (["list"], "Europe/Paris", False), (["list", "--tz", "utc"], None, False),
    (["list", "--tz", "local"], None, False), (["show", SESSION[:8]], None, False),
    (["tokens", "--tz", "UTC", "--by", "day"], None, False), (["--help"], None, False),
    (["list", "--tz", "Asia/Tokyo"], None, True),
])
def test_zoneinfo_only_for_a_named_zone(argv: list[str], tz: str | None, imported: bool, isolated_home: Path) -> None:
    _home(isolated_home)
    env = dict(os.environ, COLUMNS="120")
    if tz is not None:
        env["TZ"] = tz
    done = subprocess.run([sys.executable, "-c", _RUN, *argv], capture_output=True, text=True, timeout=60, env=env)
    assert done.stdout, done.stderr
    assert done.stderr.strip().splitlines()[-1] == str(imported), done.stderr
