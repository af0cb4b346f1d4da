"""Which candidates an ambiguous id lists (pass 54).

The ten shown were the newest of the first 200 by mtime, sorted by the text of the time
shown: a copied home's 200 old sessions (copied, so their mtime is the copy's) hid the
newest ones in "… and N more"; two sessions of one minute came in mtime order; and in the
hour a clock set back repeats, the earlier session was listed first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_session_file, claude_user

runner = CliRunner()


def _session(home: Path, number: int, when: str, mtime: float) -> str:
    native = f"abcdef{number:02x}-0000-4000-8000-{number:012x}"
    claude_session_file(home, native, [claude_user(native, when, "hello", uuid=f"u{number}")], mtime=mtime)
    return f"claude:{native}"


def _shown(stderr: str) -> list[str]:
    return [line.split()[0] for line in stderr.splitlines()[1:] if line.startswith("  claude:")]


@pytest.mark.parametrize("cache", [[], ["--no-cache"]], ids=["index", "no-cache"])
def test_the_newest_are_listed_even_past_two_hundred_newer_files(isolated_home: Path, cache: list) -> None:
    # 205 sessions of 2025 copied today (their mtime the copy's), and 5 of this month whose
    # files are older than the copy: those 5 are the newest sessions, as ``list`` shows.
    copied = 2_000_000_000.0
    for number in range(205):
        _session(isolated_home, number, f"2025-01-{1 + number % 28:02}T08:00:00.000Z", copied + number)
    recent = [_session(isolated_home, 210 + day, f"2026-11-0{day + 1}T09:00:00.000Z", 1_795_000_000.0 + day)
              for day in range(5)]
    result = runner.invoke(app, [*cache, "show", "abcdef"])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == "error: 'abcdef' is ambiguous: it matches 210 sessions"
    assert _shown(result.stderr)[:5] == recent[::-1]
    assert "  … and 200 more" in result.stderr.splitlines()


def test_two_of_one_minute_are_in_the_order_of_their_times(isolated_home: Path) -> None:
    later = _session(isolated_home, 1, "2026-11-02T09:00:50.000Z", 1_800_000_000.0)
    earlier = _session(isolated_home, 2, "2026-11-02T09:00:10.000Z", 1_800_000_100.0)  # newer file
    result = runner.invoke(app, ["show", "abcdef"])
    assert _shown(result.stderr) == [later, earlier]


def test_the_hour_a_clock_set_back_repeats_is_in_time_order(isolated_home: Path,
                                                             local_zone: Callable[[str], None]) -> None:
    # Berlin set its clocks back at 01:00 UTC on 25 Oct 2026: 00:30 UTC is 02:30 CEST and
    # 01:10 UTC 02:10 CET, later though its text is smaller.
    local_zone("Europe/Berlin")
    later = _session(isolated_home, 1, "2026-10-25T01:10:00.000Z", 1_800_000_000.0)
    earlier = _session(isolated_home, 2, "2026-10-25T00:30:00.000Z", 1_800_000_000.0)
    result = runner.invoke(app, ["show", "abcdef"])
    lines = result.stderr.splitlines()
    assert _shown(result.stderr) == [later, earlier]
    # Read in local time they seem out of order: each says its offset.
    assert "2026-10-25 02:10 +0100" in lines[1] and "2026-10-25 02:30 +0200" in lines[2]


def test_past_the_read_budget_candidates_are_dated_by_their_last_record(isolated_home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # A cold index and more transcript than the budget reads: those past it were dated by their
    # files' mtime, which in a copied home is the copy's, so old sessions came first.
    from agentscan.scan import ambiguity

    monkeypatch.setattr(ambiguity, "DESCRIBE_BUDGET", 0)
    copied = 2_000_000_000.0
    old = [_session(isolated_home, number, f"2025-01-0{1 + number}T08:00:00.000Z", copied) for number in range(3)]
    new = _session(isolated_home, 9, "2026-11-05T09:00:00.000Z", copied)
    result = runner.invoke(app, ["--no-cache", "show", "abcdef"])
    assert _shown(result.stderr) == [new, *old[::-1]]
    assert "2026-11-05" in result.stderr.splitlines()[1]
    # Within a bounded tail budget: past it, the mtime again.
    monkeypatch.setattr(ambiguity, "TAIL_BUDGET", 0)
    result = runner.invoke(app, ["--no-cache", "show", "abcdef"])
    assert "2033-05-1" in result.stderr.splitlines()[1]  # (2,000,000,000 s: 2033-05-18 UTC)
