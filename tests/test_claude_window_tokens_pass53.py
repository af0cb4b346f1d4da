"""A windowed ``tokens`` (``--since``/``--until``, ``--by day``) of a session of more calls than a
row's window (``windowed.WINDOW``, 20,000) is exact: ``tokens`` deduplicates every call itself
(``dedupe.CallDeduper``), and reads a row pass's sums only when no call left that window
(``rowsums.keep_usage``: ``counted_calls``).  A later, larger copy of a call far back moves the
call to the later copy's day in ``tokens`` (as ccusage counts it), while ``list`` keeps the
first (docs/providers/claude.md: the window's known gaps)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage
from claude_events import SESSION, cli_json_at, lines_of, lower_row_limits


def _call(n: int, day: int, output: int, uuid: str) -> dict:
    return claude_assistant(SESSION, f"2026-05-0{day}T10:{n:02d}:00.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                            usage=claude_usage(10, output), uuid=uuid)


@pytest.mark.parametrize("listed_first", [False, True])
def test_a_windowed_tokens_of_a_session_past_the_window_is_exact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 listed_first: bool) -> None:
    lower_row_limits(monkeypatch)  # a window of 3 calls
    records = [_call(n, 1 + n // 4, 5, f"a{n}") for n in range(12)]  # 4 calls a day, days 1 to 3
    records.append(_call(0, 3, 500, "late"))  # the first call again, grown: written on day 3
    claude_session_file(tmp_path / "home", SESSION, []).write_bytes(lines_of(records))
    if listed_first:
        (row,) = cli_json_at(tmp_path, monkeypatch, "list")["sessions"]
        assert row["tokens"]["total"] == 12 * 15  # (the row keeps the copy it settled: the known gap)
    days = {row["key"]: row["tokens"]["total"] for row in cli_json_at(tmp_path, monkeypatch, "tokens", "--by", "day",
                                                                       "--tz", "utc")["rows"]}
    assert days == {"2026-05-01": 3 * 15, "2026-05-02": 4 * 15, "2026-05-03": 4 * 15 + 510}
    since = cli_json_at(tmp_path, monkeypatch, "tokens", "--since", "2026-05-03", "--tz", "utc")["total"]["total"]
    assert since == 4 * 15 + 510
    until = cli_json_at(tmp_path, monkeypatch, "tokens", "--until", "2026-05-02", "--tz", "utc")["total"]["total"]
    assert until == 7 * 15
