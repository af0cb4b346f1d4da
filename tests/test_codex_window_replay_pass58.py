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
