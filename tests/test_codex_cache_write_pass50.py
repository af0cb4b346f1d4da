"""Codex's cache writes (``cache_write_input_tokens``, newer builds) are part of ``input_tokens``.

OpenAI's prompt-caching guide shows a Responses usage of ``"input_tokens": 15000`` with
``"cached_tokens": 12000, "cache_write_tokens": 3000``: the two cache counts partition the
input ("input tokens use the uncached-input, cached-input, or cache-write rate"), and
``total_tokens`` is input + output. ccusage 20.0.24 reads a Codex call so (its input is
``input_tokens - cached - cache_write``). agentscan once took ``input`` as ``input_tokens -
cached`` alone: each written token was counted twice (in ``input`` and ``cache_write``), the
row's total passed Codex's own ``total_tokens``, and the cost billed the write at the input rate
on top of the cache-write rate.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from codex_builders import at, meta, rollout_path, token_count, turn_context, usage, usage_record, user_message, write_rollout

P = "019c5000-0000-7000-8000-00000000000a"
#: gpt-5.6-luna at genai-prices 0.2.5 on 2026-03-02 (the builders' day), per token: input, cached
#: input, cache write (1.25x input), output
IN, CACHED, WRITE, OUT = Decimal("1e-6"), Decimal("0.1e-6"), Decimal("1.25e-6"), Decimal("6e-6")


def _row(home: Path):
    (row,) = token_report(Scanner(home=home, provider_names=["codex"]), providers=["codex"]).rows
    return row


def _start() -> list[dict]:
    return [meta(P, at(0)), turn_context(at(1), model="gpt-5.6-luna"), user_message(at(1), "cache this")]


def test_a_cache_write_is_left_out_of_input_and_billed_once(isolated_home: Path) -> None:
    first = usage(100_000, 60_000, 1000, 500, cache_write=30_000)
    second = usage(50_000, 40_000, 200, cache_write=5_000)
    both = {key: first[key] + second[key] for key in first}
    write_rollout(rollout_path(isolated_home / ".codex", P, at(0)),
                  [*_start(), token_count(at(10), first, first), token_count(at(20), both, second)])
    row = _row(isolated_home)
    tokens = row.tokens
    assert (tokens.input, tokens.cache_read, tokens.cache_write, tokens.output, tokens.reasoning) == (
        10_000 + 5_000, 60_000 + 40_000, 30_000 + 5_000, 1200, 500)
    assert tokens.total == both["total_tokens"] == 151_200  # Codex's own total, not 35,000 more
    assert row.cost == 15_000 * IN + 100_000 * CACHED + 35_000 * WRITE + 1200 * OUT == Decimal("0.07595")


def test_the_delta_of_running_totals_leaves_the_write_out_too(isolated_home: Path) -> None:
    # No ``last_token_usage``: the call is the growth of ``total_token_usage``.
    write_rollout(rollout_path(isolated_home / ".codex", P, at(0)),
                  [*_start(), token_count(at(10), usage(1000, 0, 100)),
                   token_count(at(20), usage(2500, 500, 300, cache_write=40))])
    tokens = _row(isolated_home).tokens
    assert (tokens.input, tokens.cache_read, tokens.cache_write, tokens.total) == (1000 + 960, 500, 40, 2800)


def test_a_write_larger_than_the_uncached_input_is_capped(isolated_home: Path) -> None:
    # Damaged counters (a write that with the cached tokens passes the input) never make input negative.
    bad = usage(1000, 800, 10, cache_write=500)
    write_rollout(rollout_path(isolated_home / ".codex", P, at(0)), [*_start(), token_count(at(10), bad, bad)])
    tokens = _row(isolated_home).tokens
    assert (tokens.input, tokens.cache_read, tokens.cache_write, tokens.output) == (0, 800, 200, 10)


def test_a_usage_record_alone_reads_its_write_the_same_way(isolated_home: Path) -> None:
    record = usage(20_000, 12_000, 100, cache_write=3_000)
    write_rollout(rollout_path(isolated_home / ".codex", P, at(0)),
                  [*_start(), usage_record(at(10), "resp-1", record, thread_id=P)])
    tokens = _row(isolated_home).tokens
    assert (tokens.input, tokens.cache_read, tokens.cache_write, tokens.total) == (5_000, 12_000, 3_000, 20_100)
