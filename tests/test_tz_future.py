"""A session with a record dated far in the future (a broken clock, year 2100) is listed at
its files' modification time with a warning naming the file and the time, not pinned to
the top of every ``list``; its data and tokens stay as recorded."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()
OLD = "aaaaaaaa-0000-4000-8000-00000000000a"  # 2026-11-01, its file written then
BROKEN = "bbbbbbbb-0000-4000-8000-00000000000b"  # 2026-10-01 and 2100-01-01, its file written on 2026-10-01
NEW = "cccccccc-0000-4000-8000-00000000000c"  # 2026-11-05


def _epoch(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _session(home: Path, native_id: str, stamps: list[str], written: str) -> Path:
    records = []
    for index, stamp in enumerate(stamps):
        records.append(claude_user(native_id, stamp, f"prompt {index}"))
        records.append(claude_assistant(native_id, stamp, msg_id=f"m-{native_id}-{index}", request_id=f"r-{native_id}-{index}",
                                        usage=claude_usage(100, 10)))
    return claude_session_file(home, native_id, records, mtime=_epoch(written))


@pytest.fixture
def broken_file(isolated_home: Path) -> Path:
    _session(isolated_home, OLD, ["2026-11-01T10:00:00Z"], "2026-11-01T10:00:01Z")
    _session(isolated_home, NEW, ["2026-11-05T10:00:00Z"], "2026-11-05T10:00:01Z")
    return _session(isolated_home, BROKEN, ["2026-10-01T10:00:00Z", "2100-01-01T00:00:00Z"], "2026-10-01T10:00:01Z")


def _doc(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def test_a_future_session_is_listed_at_its_files_time_with_a_warning(broken_file: Path) -> None:
    doc = _doc("list")
    ids = [row["id"].split(":")[1] for row in doc["sessions"]]
    assert ids == [NEW, OLD, BROKEN]  # by its file's time, 2026-10-01: after the others
    broken = doc["sessions"][2]
    assert broken["updated_at"] == "2100-01-01T00:00:00.000Z"  # as recorded: nothing altered
    (warning,) = [w for w in doc["warnings"] if "in the future" in w["message"]]
    assert warning["path"] == str(broken_file)
    assert "2100-01-01T00:00:00.000Z" in warning["message"] and "2026-10-01T10:00:01.000Z" in warning["message"]


def test_its_tokens_are_unchanged(broken_file: Path) -> None:
    listed = {row["id"].split(":")[1]: row["tokens"]["total"] for row in _doc("list")["sessions"]}
    totals = {row["key"].split(":")[1]: row["tokens"]["total"] for row in _doc("tokens")["rows"]}
    assert listed[BROKEN] == totals[BROKEN] == 220
    assert _doc("tokens")["total"]["total"] == 3 * 110 + 110


def test_the_table_says_it_on_stderr_every_time(broken_file: Path) -> None:
    for _ in range(2):  # made, then remembered: the warning is said again
        result = runner.invoke(app, ["list"])
        assert result.exit_code == 0
        assert [line.split()[0].split(":")[1] for line in result.stdout.splitlines()[1:]] == [NEW, OLD, BROKEN]
        assert f"warning: {broken_file}: a record is dated 2100-01-01T00:00:00.000Z, in the future" in result.stderr
        assert "2100-01-01 00:00" in result.stdout  # its UPDATED as recorded


def test_a_limited_page_keeps_the_sessions_it_would_have_without_it(broken_file: Path) -> None:
    ids = [row["id"].split(":")[1] for row in _doc("list", "-n", "2")["sessions"]]
    assert ids == [NEW, OLD]


def test_plausible_with_now() -> None:
    from agentscan.timeutil import FUTURE_SLACK, plausible

    now = datetime(2026, 12, 5, tzinfo=timezone.utc)
    soon = now + FUTURE_SLACK - timedelta(minutes=1)
    assert plausible(soon, now=now) == soon  # a clock a little ahead is skew, not a broken clock
    assert plausible(now + FUTURE_SLACK + timedelta(minutes=1), now=now) is None
    assert plausible(datetime(2100, 1, 1, tzinfo=timezone.utc), now=now) is None
    assert plausible(datetime(2100, 1, 1, tzinfo=timezone.utc)) is not None  # without a clock: a record's time


def test_a_time_its_files_agree_with_is_not_a_wrong_clock(isolated_home: Path) -> None:
    """A home written while the whole machine's clock was ahead (or generated ahead, as the
    bench's): its files' times agree with its records, so neither is known wrong and the
    session sits where either puts it, without a warning for every session."""
    ahead = (datetime.now(timezone.utc) + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    _session(isolated_home, OLD, ["2026-11-01T10:00:00Z"], "2026-11-01T10:00:01Z")
    _session(isolated_home, NEW, [ahead], ahead)
    doc = _doc("list")
    assert [row["id"].split(":")[1] for row in doc["sessions"]] == [NEW, OLD]
    assert not [w for w in doc["warnings"] if "in the future" in w["message"]]
