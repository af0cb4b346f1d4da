"""A Codex running total emitted again out of order is no restart (pass 57).

Codex rollouts hold ``token_count`` events whose ``total_token_usage`` (and
``last_token_usage``) repeat an OLDER snapshot after a newer one
(junhoyeo/tokscale#308 found them in real logs; steipete/CodexBar#3120 detects
them field by field).  agentscan took such a total, lower than the last, for a
restart: the call it repeats counted twice in ``tokens`` and ``show``, the row
added the whole run before it again, and the next (correct) total said the
running count "moved by other than last_token_usage".  A stale snapshot now
moves nothing (``counters.step``: a total equal to one of the file's latest; the first
rule, any lower total at most the last, skipped real calls: tests/test_codex_replayed_totals_pass57.py).  Two things must stay as they were: a real
restart (an older build counting again from zero: its first total is its own
call) still adds the run before it, and Codex's context-overflow fill
(``TokenUsageInfo::fill_to_context_window``: a total of ``{total_tokens:
window}`` alone, then calls added to it) is no stale snapshot even when the
thread's running total is past the window.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson

import test_codex_recovery as recovery
from agentscan.model import TokenUsage
from agentscan.scan.scanner import Scanner
from builders import cli_json
from codex_builders import Calls, at, function_output, iso, meta, rollout_path, token_count, turn_context, usage, user_message

S = "019c5757-0000-7000-8000-0000000000e1"


def _write(codex: Path, records: list[dict[str, Any]], *, padding: int = 0) -> None:
    head = [meta(S, at(0)), turn_context(at(1), "gpt-5"), user_message(at(1), "count me")]
    tail = [function_output(at(100), f"c{i}", "y" * 14000) for i in range(padding)]  # 80: past 1 MiB
    path = rollout_path(codex, S, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in head + records + tail))


def _agree(expected: dict[str, int], *, runs: tuple[tuple[str, ...], ...] = ((), (), ("--no-cache",))) -> None:
    for args in runs:  # cold, warm, without the index
        (row,) = cli_json("list", "--all", *args)["sessions"]
        report = cli_json("tokens", S, *args)
        shown = cli_json("show", S, *args)["session"]
        assert report["total"] == row["tokens"] == shown["tokens"] == expected, args
        assert report["warnings"] == []


def _stale_records() -> list[dict[str, Any]]:
    calls = Calls()
    second = [calls.call(at(2), 1000, 800, 100, 50), calls.call(at(3), 2000, 1800, 200)]
    later = calls.call(at(4), 4000, 3000, 400)
    again = copy.deepcopy(second[1])  # the second call's snapshot, written again after the third's
    again["timestamp"] = iso(at(4.5))
    return [*second, later, again, calls.call(at(5), 3000, 0, 300)]


STALE_TOTAL = {"input": 4400, "cache_read": 5600, "cache_write": 0, "output": 1000, "reasoning": 50, "total": 11000}


def test_an_older_total_written_again_counts_its_call_once(isolated_home: Path) -> None:
    _write(isolated_home / ".codex", _stale_records())
    _agree(STALE_TOTAL)  # before: 13,200 (the second call twice), and a warning of a jump


def test_past_the_window_of_list_too(isolated_home: Path) -> None:
    # The calls lie before the last 1 MiB: ``list`` adds up the file's running counts (``runs``),
    # with the index (without it, the row has only its window's: docs/providers/codex.md).
    _write(isolated_home / ".codex", _stale_records(), padding=80)
    _agree(STALE_TOTAL, runs=((), ()))


def test_a_restart_from_zero_still_adds_the_run_before_it(isolated_home: Path) -> None:
    first = usage(5000, 1000, 500)
    records = [token_count(at(2), first, first),
               token_count(at(3), usage(1000, 0, 100), usage(1000, 0, 100)),  # counting again from zero
               token_count(at(4), usage(3000, 0, 300), usage(2000, 0, 200))]
    _write(isolated_home / ".codex", records)
    _agree({"input": 7000, "cache_read": 1000, "cache_write": 0, "output": 800, "reasoning": 0, "total": 8800})


def test_a_context_overflow_fill_past_the_window_counts_the_calls_after_it(isolated_home: Path) -> None:
    calls = Calls()
    records = [calls.call(at(2), 200_000, 150_000, 1000), calls.call(at(3), 250_000, 200_000, 2000)]
    window = 272_000  # below the thread's running total (453,000): every counter of the fill is lower
    records.append(token_count(at(4), {**usage(0), "total_tokens": window}, usage(0)))
    calls.total = {**usage(0), "total_tokens": window}
    records += [calls.call(at(5), 10_000, 0, 100), calls.call(at(6), 20_000, 10_000, 200)]
    _write(isolated_home / ".codex", records)
    _agree({"input": 120_000, "cache_read": 360_000, "cache_write": 0, "output": 3300, "reasoning": 0,
            "total": 483_300})


def test_an_empty_last_token_usage_is_no_count_the_totals_growth_is_the_call(isolated_home: Path) -> None:
    # ``"last_token_usage": {}`` beside a running total that moved (farion1231/cc-switch#5854 met
    # them in real rollouts): read as a call of zeros, the call was lost everywhere, and the file
    # was said to have a running total that "moved by other than last_token_usage".
    calls = Calls()
    records = [calls.call(at(2), 1000, 800, 100, 50), calls.call(at(3), 2000, 1800, 200), calls.call(at(5), 3000, 0, 300)]
    records[1]["payload"]["info"]["last_token_usage"] = {}
    _write(isolated_home / ".codex", records)
    _agree({"input": 3400, "cache_read": 2600, "cache_write": 0, "output": 600, "reasoning": 50, "total": 6600})


def test_a_resumed_threads_segment_named_by_both_ids_is_one_session(isolated_home: Path) -> None:
    # Newer builds name a resumed thread's new segment ``rollout-<ts>-<thread id>_<segment id>.jsonl``
    # (farion1231/cc-switch#6905: its meta keeps the thread's id, ``history_base`` says what it
    # continues).  A guard: the segment joins its thread as one named by its own id alone does
    # (tests/test_codex_recovery.py), and neither file's calls count twice.
    recovery._paginated_home(isolated_home)
    segment = rollout_path(isolated_home / ".codex", recovery.R2, at(20))
    segment.rename(segment.with_name(segment.name.replace(recovery.R2, f"{recovery.T}_{recovery.R2}")))
    (row,) = Scanner().list_sessions()
    assert row.native_id == recovery.T and row.subagents == 0
    assert row.tokens == TokenUsage(input=3000, cache_read=1500, output=420)
