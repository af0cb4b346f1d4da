"""The totals read before ``list``'s last 1 MiB are as many distinct ones as a whole read keeps.

A whole read keeps the file's 64 latest totals; a replay (a total written again) moves its total
up among them and takes no place of its own.  ``totalseed.totals_before`` stopped at 64 lines,
so replays among them left fewer totals than that read kept, and a later replay of an older total
in the window was taken for a restart (a review, pass 58: a row of 1,927 for ``tokens``' 74,024).
Now it searches on until it holds 64 distinct totals (within the same byte limit).
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import cli_json
from codex_builders import at, function_output, meta, rollout_path, token_count, turn_context, usage, user_message

S = "019c5757-0000-7000-8000-0000000000e8"


def _add(a: dict, b: dict) -> dict:
    return {key: a[key] + b[key] for key in a}


def _write(home: Path, replayed: int) -> None:
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"), user_message(at(1), "hi")]
    totals, lasts, total = [], [], None
    for i in range(70):
        call = usage(1000 + i, 100, 10)
        total = call if total is None else _add(total, call)
        totals.append(total)
        lasts.append(call)
        records.append(token_count(at(2), total, call))
    # replays among the latest 64 lines before the window
    records += [token_count(at(3), totals[k], lasts[k]) for k in (65, 69, 66, 69, 67, 69, 68, 64, 69, 63)]
    records += [function_output(at(4), f"w{j}", "y" * 14000) for j in range(80)]  # past the 1 MiB window
    first = usage(400, 0, 4)
    reached = _add(totals[69], first)
    records.append(token_count(at(5), reached, first))
    records.append(token_count(at(5), totals[replayed], lasts[replayed]))  # an older total, written again
    then = usage(500, 0, 5)
    records.append(token_count(at(6), _add(reached, then), then))
    path = rollout_path(home / ".codex", S, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))


@pytest.mark.parametrize("replayed", [8, 20])
def test_a_replay_in_the_window_of_a_total_among_a_whole_reads_latest(isolated_home: Path, replayed: int) -> None:
    _write(isolated_home, replayed)
    expected = cli_json("tokens", "--no-cache")["total"]
    (row,) = cli_json("list", "--all", "--no-cache")["sessions"]
    assert row["tokens"] == expected
    assert expected["total"] == 74024  # (every call once: 70 + the two after the window)
