"""In a window, a session's DATE in ``tokens``' table is its last call's in the window.

``tokens --until 2026-11-04`` counted a session's calls up to that day but dated its row by
its last update, the 5th: a date the window leaves out.  The date of its last call counted
(``TokenReport.last_calls``) is what the row's figures are of; the rows are in its order too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import cells, claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, ran

LONG = "a1000000-0000-4000-8000-000000000001"  # calls on the 1st and the 5th
SHORT = "a2000000-0000-4000-8000-000000000002"  # a call on the 3rd


def _session(home: Path, native: str, days: list[int]) -> None:
    records = [claude_user(native, f"2026-11-{days[0]:02d}T09:00:00.000Z", f"task {native[:2]}")]
    records += [claude_assistant(native, f"2026-11-{day:02d}T09:05:00.000Z", msg_id=f"m{native[:2]}{day}",
                                 request_id=f"r{native[:2]}{day}", usage=claude_usage(100, 10)) for day in days]
    claude_session_file(home, native, records)


def _dates(*args: str) -> list[tuple[str, str]]:
    out, _ = ran("tokens", "--tz", "UTC", *args)
    return [(cells(line)[0], cells(line)[1]) for line in out.splitlines() if line.startswith("claude:")]


@pytest.mark.parametrize("until", ["2026-11-04", "2026-11-04T09:02"])  # (whole quarter hours, or one cut: call by call)
def test_a_session_is_dated_by_its_last_call_in_the_window(isolated_home: Path, until: str) -> None:
    _session(isolated_home, LONG, [1, 5])
    _session(isolated_home, SHORT, [3])
    assert _dates() == [(f"claude:{LONG}", "2026-11-05"), (f"claude:{SHORT}", "2026-11-03")]
    assert _dates("--until", until) == [(f"claude:{SHORT}", "2026-11-03"), (f"claude:{LONG}", "2026-11-01")]
    assert _dates("--since", "2026-11-02", "--until", "2026-11-30") == [(f"claude:{LONG}", "2026-11-05"),
                                                                       (f"claude:{SHORT}", "2026-11-03")]
    # ``--json --sort date``: the sessions in the table's order
    keys = [row["key"] for row in cli_json("tokens", "--tz", "UTC", "--until", until, "--sort", "date")["rows"]]
    assert keys == [f"claude:{SHORT}", f"claude:{LONG}"]
