"""A replay in ``list``'s last 1 MiB of a total reached before it counts nothing (pass 58).

``list`` reads a rollout over 1 MiB by its last 1 MiB alone when nothing is kept of it
(``--no-cache``, the library's default, or a file past ``runs``' read budget).  A total there
that went down and equals one reached before the window matched none the window saw: it was
taken for a restart, and the row added the run before it again (the row's tokens above the whole
file's count).  Now a window that took a drop for a restart is read again from the totals before
it, found by a backward search of the bytes for ``token_count`` lines (``totalseed``), so the
row counts what ``tokens`` counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from builders import cli_json
from codex_builders import at, function_output, meta, rollout_path, token_count, turn_context, user_message
from test_codex_replayed_totals_pass57 import A1, A2, A3, C1, C3, S, _add, _expected, _running


def _write(home: Path, before: list[tuple[Any, Any]], window: list[tuple[Any, Any]]) -> None:
    head = [meta(S, at(0)), turn_context(at(1), "gpt-5"), user_message(at(1), "count me")]
    early = [token_count(at(2 + i), total, last) for i, (total, last) in enumerate(before)]
    padding = [function_output(at(50), f"c{i}", "y" * 14000) for i in range(80)]  # past the 1 MiB window
    late = [token_count(at(100 + i), total, last) for i, (total, last) in enumerate(window)]
    path = rollout_path(home / ".codex", S, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in head + early + padding + late))


def test_a_replay_of_a_total_before_the_window(isolated_home: Path) -> None:
    run = _running([A1, A2, A3])
    (t1, _), (t2, _), (t3, _) = run
    # t1 and t2 before the window; in it t3, then t2 written again, then a call on from t3
    _write(isolated_home, run[:2], [run[2], (t2, A2), (_add(t3, C3), C3)])
    expected = _expected([A1, A2, A3, C3])
    assert cli_json("tokens", S, "--no-cache")["total"] == expected
    (row,) = cli_json("list", "--all", "--no-cache")["sessions"]
    assert row["tokens"] == expected and row["counts_partial"] is True
    (row,) = cli_json("list", "--all")["sessions"]  # (with the index: the file's count lines read)
    assert row["tokens"] == expected


def test_a_restart_in_the_window_still_adds_its_run(isolated_home: Path) -> None:
    # A drop to a total no earlier one equals is a restart still: the run before it counts.
    run = _running([A1, A2, A3])
    restart = _running([C1, C3])
    _write(isolated_home, run[:2], [run[2], *restart])
    expected = _expected([A1, A2, A3, C1, C3])
    assert cli_json("tokens", S, "--no-cache")["total"] == expected
    (row,) = cli_json("list", "--all", "--no-cache")["sessions"]
    # the window's first total holds the run before it (A1, A2): the whole count, a guard that the
    # totals read before the window do not turn a restart into a replay
    assert row["tokens"] == expected and row["counts_partial"] is True


def _window_agrees(home: Path, before: list[tuple[Any, Any]], window: list[tuple[Any, Any]], calls: list) -> None:
    _write(home, before, window)
    expected = _expected(calls)
    assert cli_json("tokens", S, "--no-cache")["total"] == expected
    (row,) = cli_json("list", "--all", "--no-cache")["sessions"]
    assert row["tokens"] == expected and row["counts_partial"] is True


def test_the_seed_holds_zero_as_a_whole_read_does(isolated_home: Path) -> None:
    # A zero total in the window (``{}`` or all zeros) after t4 is a replay of the zero every read
    # starts from: the seed had no zero, so it was a restart, and t2 after it then a replay of
    # nothing the window knew (433,700 for 524,200).  The seed is now the whole read's.
    run = _running([A1, A2, A3, A4])
    (t1, _), (t2, _), (t3, _), (t4, _) = run
    zero = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0,
            "total_tokens": 0}
    for total in ({}, zero):
        _window_agrees(isolated_home, run[:3], [run[3], (total, A4), (t2, A2), (_add(t4, C3), C3)],
                       [A1, A2, A3, A4, C3])


def test_the_seed_resumes_at_the_total_reached_not_a_replay(isolated_home: Path) -> None:
    # Before the window: t1, t2, t3, then t1 written again (a replay: the running total stays t3).
    # In it: t3 + C3.  Resumed at the replay's t1, the window took t3 + C3 for a call of t3 + C3
    # less t1; at t3, the call is C3.
    run = _running([A1, A2, A3])
    (t1, _), (t2, _), (t3, _) = run
    _window_agrees(isolated_home, [*run, (t1, A1)], [(_add(t3, C3), C3), (t2, A2)], [A1, A2, A3, C3])


A4 = {"input_tokens": 150000, "cached_input_tokens": 130000, "output_tokens": 2500, "reasoning_output_tokens": 0,
      "total_tokens": 152500}
