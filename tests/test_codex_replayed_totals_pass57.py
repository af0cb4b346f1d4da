"""Only a running total written again exactly is a replay (pass 57 review of ``counters.stale``).

Pass 57 first took any lower Codex total whose counters were all at most the last one's for an
older snapshot written again, and skipped it.  But a real count goes down without being a
replay: a resume restoring an older base, a rollback or compaction rewriting the total lower
(junhoyeo/tokscale#309), two counters interleaved; the calls after it were then skipped too
(steipete/CodexBar#3510 reports such a "containment" rule eating usage): a rollback after five
calls and four more counted 711,800 tokens of 999,200.  Now a total equal to one of the file's
latest (``counters.step``'s ``seen``, kept with the index's states so that a read that goes on
agrees with one from the start) counts no call; any other drop is a restart whose call is its
``last`` (none when that is ``{}``), and whose run before counts less the base it restarts
from, so that a row (``list``), ``tokens`` and ``show`` agree.  The scenarios are the reviewer's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from builders import cli_json
from codex_builders import at, function_output, meta, rollout_path, token_count, turn_context, usage, user_message

S = "019c5757-0000-7000-8000-0000000000e2"
Usage = dict[str, int]
#: a call of each kind the scenarios use
A1, A2, A3 = usage(100000, 80000, 1000), usage(120000, 100000, 1500), usage(140000, 120000, 2000)
C1, C2, C3 = usage(5000, 0, 100), usage(6000, 4000, 150), usage(7000, 5000, 200)


def _add(*calls: Usage) -> Usage:
    return {key: sum(call[key] for call in calls) for key in calls[0]}


def _expected(calls: list[Usage]) -> dict[str, int]:
    spent = _add(*calls)
    return {"input": spent["input_tokens"] - spent["cached_input_tokens"], "cache_read": spent["cached_input_tokens"],
            "cache_write": 0, "output": spent["output_tokens"], "reasoning": 0,
            "total": spent["input_tokens"] + spent["output_tokens"]}


def _write(home: Path, events: list[tuple[Any, Any]], *, padding: int = 0, more: list[tuple[Any, Any]] = ()) -> None:
    """``events`` as (total, last) ``token_count``s, ``padding`` lines of 14 kB after them (80:
    past ``list``'s 1 MiB window), then ``more``."""
    head = [meta(S, at(0)), turn_context(at(1), "gpt-5"), user_message(at(1), "count me")]
    counts = [token_count(at(2 + i), total, last) for i, (total, last) in enumerate(events)]
    tail = [function_output(at(100), f"c{i}", "y" * 14000) for i in range(padding)]
    appended = [token_count(at(200 + i), total, last) for i, (total, last) in enumerate(more)]
    path = rollout_path(home / ".codex", S, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in head + counts + tail + appended))


def _agree(expected: dict[str, int], *runs: tuple[str, ...]) -> None:
    for args in runs or ((), (), ("--no-cache",)):  # cold, warm, without the index
        (row,) = cli_json("list", "--all", *args)["sessions"]
        report = cli_json("tokens", S, *args)
        shown = cli_json("show", S, *args)["session"]
        assert (args, report["total"]) == (args, expected)
        assert row["tokens"] == shown["tokens"] == expected, args
        assert report["warnings"] == []


def _running(calls: list[Usage], base: Usage | None = None) -> list[tuple[Usage, Usage]]:
    """``calls`` as Codex reports them: each with the running total reached from ``base``."""
    events, total = [], base
    for call in calls:
        total = call if total is None else _add(total, call)
        events.append((total, call))
    return events


def _rollback() -> tuple[list[tuple[Any, Any]], list[Usage]]:
    # Five calls; the total rewritten back to that after the second (re-emitted with its call),
    # then four calls counted on from it (tokscale#309).  Before: 711,800 of 999,200.
    calls = [usage(100000 + 10000 * i, 80000 + 10000 * i, 1000 + 100 * i) for i in range(5)]
    events = _running(calls)
    after = [usage(90000 + 5000 * i, 85000 + 5000 * i, 800) for i in range(4)]
    base = events[1][0]
    return [*events, (base, calls[1]), *_running(after, base)], calls + after


def _scenarios() -> dict[str, tuple[list[tuple[Any, Any]], list[Usage]]]:
    run = _running([A1, A2, A3])
    t1, t2, t3 = (total for total, _ in run)
    fill = {**usage(0), "total_tokens": 272000}
    q = _running([usage(10000, 0, 100), usage(20000, 10000, 200), usage(30000, 20000, 300)], fill)
    return {
        "rollback then continue": _rollback(),
        # resumed from the base after the first call (an older one): its calls count on from it
        "resume from an older base": ([*run, *_running([C1, C2], t1)], [A1, A2, A3, C1, C2]),
        # a restart whose first count covers two calls (one token_count lost): its ``last`` counts
        "restart with a lost first count": ([*run, *_running([C2, C3], C1)], [A1, A2, A3, C2, C3]),
        "fill then a replay": ([*_running([usage(200000, 150000, 1000), usage(250000, 200000, 2000)]),
                                (fill, usage(0)), q[0], q[1], q[0], q[2]],
                               [usage(200000, 150000, 1000), usage(250000, 200000, 2000),
                                *(call for _, call in q)]),
        "a replay": ([*run, (t2, A2), (_add(t3, C3), C3)], [A1, A2, A3, C3]),
        # review finding 2: an empty ``last_token_usage`` beside a replayed total (before: 594,200)
        "a replay with an empty last": ([*run, (t2, {}), (_add(t3, C3), C3)], [A1, A2, A3, C3]),
        "a replay of no last (older builds)": ([(t1, None), (t2, None), (t1, None), (t3, None)], [A1, A2, A3]),
        "an empty total after calls": ([run[0], run[1], ({}, A2), run[2]], [A1, A2, A3]),
        # a drop that repeats no total, with ``{}``: no call (the total may be a base restored)
        "a drop with an empty last": ([*run, (_add(t1, C1), {}), (_add(t1, C1, C2), C2)], [A1, A2, A3, C2]),
        # a restart whose lost first call's output passes the whole run before it: the base is
        # above that run in one field, so the row adds less than the run there (review D: the row
        # added the whole run, 2,520 where ``tokens`` counted 1,620)
        "a restart's base above the run in a field": (
            _running_restart(usage(1000, 0, 50), usage(100, 0, 800), usage(200, 100, 40), usage(300, 100, 30)),
            [usage(1000, 0, 50), usage(200, 100, 40), usage(300, 100, 30)]),
    }


def _running_restart(first: Usage, lost: Usage, *calls: Usage) -> list[tuple[Usage, Usage]]:
    """``first``'s count, then a restart whose first count (``lost``'s) was never written: the
    next total holds it and its own call."""
    return [(first, first), *_running(list(calls), lost)]


@pytest.mark.parametrize("name", list(_scenarios()))
def test_list_tokens_and_show_count_the_real_calls(isolated_home: Path, name: str) -> None:
    events, calls = _scenarios()[name]
    _write(isolated_home, events)
    _agree(_expected(calls))


@pytest.mark.parametrize("name", ["rollback then continue", "resume from an older base",
                                  "restart with a lost first count", "a replay with an empty last",
                                  "a restart's base above the run in a field"])
def test_past_the_window_of_list_too(isolated_home: Path, name: str) -> None:
    # The calls before the last 1 MiB: a cold ``list`` adds up the file's counts (``runs``), then
    # from the tally ``tokens`` kept (``fullcounts``).
    events, calls = _scenarios()[name]
    _write(isolated_home, events, padding=80)
    _agree(_expected(calls), (), (), ())


@pytest.mark.parametrize("kept_by", ["runs", "tally"])
def test_a_replay_appended_after_a_kept_read_is_one_still(isolated_home: Path, kept_by: str) -> None:
    # The latest totals are kept with the read (``runs``' state, the tally's position): a read of
    # the appended lines alone takes an older total written again for a replay, as one from the
    # file's start does (lost, it was a restart: its call counted twice).
    run = _running([A1, A2, A3])
    _write(isolated_home, run, padding=80)
    if kept_by == "tally":
        cli_json("tokens", S)
    cli_json("list", "--all")
    t2 = run[1][0]
    # rolled back to the second call's total (written again with its call), then on from it
    _write(isolated_home, run, padding=80, more=[(t2, A2), (_add(t2, C3), C3)])
    expected = _expected([A1, A2, A3, C3])
    (row,) = cli_json("list", "--all")["sessions"]
    assert row["tokens"] == expected == cli_json("tokens", S, "--no-cache")["total"]
    _agree(expected, (), ())
