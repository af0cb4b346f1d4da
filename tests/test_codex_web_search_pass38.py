"""Codex's hosted web searches: a model request that searched writes a ``response_item`` of
type ``web_search_call`` per search before its ``token_count``; the usage records no count.
OpenAI bills each search beside the tokens (genai-prices 0.2.5: ``web_searches_kcount`` $10
for ``gpt-5``, which prices ``gpt-5-codex`` too).  The completed items before a call are that
call's searches: they travel with it (a copied call, skipped or deduplicated, takes its
searches along), move no token count, and every cost counts them: cold, cached, without the
cache, and after lines were appended."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from agentscan.providers.codex.callscan import FileUsageScanner
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from builders import cli_json
from codex_builders import (
    Calls,
    append_records,
    at,
    iso,
    line,
    meta,
    rollout_path,
    task_started,
    turn_context,
    user_message,
    write_rollout,
)

P = "019c3800-0000-7000-8000-00000000000a"  # searched
Q = "019c3800-0000-7000-8000-00000000000b"  # the same calls, searching nothing
F = "019c3800-0000-7000-8000-00000000000f"  # a fork of P
#: gpt-5 at genai-prices 0.2.5: $1.25 input, $0.125 cached input, $10 output per million; $10 per 1,000 searches
IN, CACHED, OUT, SEARCH = Decimal("1.25e-6"), Decimal("0.125e-6"), Decimal("10e-6"), Decimal("0.01")


def _search(second: float, status: str = "completed") -> dict[str, Any]:
    return line(at(second), "response_item", {"type": "web_search_call", "id": f"ws-{second}", "status": status,
                                              "action": {"type": "search", "query": "codex pricing"}})


def _cost(input_: int, cached: int, output: int, searches: int = 0) -> Decimal:
    return (input_ - cached) * IN + cached * CACHED + output * OUT + searches * SEARCH


def _session(thread: str, searches: bool, start: int = 0) -> tuple[list[dict], Calls]:
    """Two calls on gpt-5 from ``start``: the first ran three searches (and one that failed), the second none."""
    calls = Calls()
    lines = [meta(thread, at(start)), task_started(at(start + 1)), turn_context(at(start + 1), model="gpt-5"),
             user_message(at(start + 1), "what does codex cost")]
    if searches:
        lines += [_search(start + 2), _search(start + 3), _search(start + 4), _search(start + 5, "failed")]
    lines += [calls.call(at(start + 10), 1000, 0, 100), calls.call(at(start + 20), 2000, 1000, 200)]
    return lines, calls


def _costs(home: Path, *, use_cache: bool = False) -> dict[str, tuple[Decimal | None, Any]]:
    report = token_report(Scanner(home=home, provider_names=["codex"], use_cache=use_cache), providers=["codex"])
    return {row.key.split(":", 1)[1]: (row.cost, row.tokens) for row in report.rows}


def test_three_searches_are_priced_and_move_no_token(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    write_rollout(rollout_path(codex, P, at(0)), _session(P, True)[0])
    write_rollout(rollout_path(codex, Q, at(1000)), _session(Q, False, 1000)[0])
    costs = _costs(isolated_home)
    plain = _cost(1000, 0, 100) + _cost(2000, 1000, 200)
    assert costs[Q][0] == plain
    assert costs[P][0] == plain + 3 * SEARCH == Decimal("0.03") + plain
    assert costs[P][1] == costs[Q][1]  # the tokens did not move


def test_searches_go_to_the_next_call_not_a_re_emission() -> None:
    lines, _ = _session(P, True)
    scanner = FileUsageScanner()
    repeat = dict(lines[-2], timestamp=iso(at(11)))  # the first call's count emitted again
    for record in [*lines[:-1], _search(12), repeat, lines[-1]]:
        scanner.feed(record)
    assert [event.web_searches for event in scanner.events] == [3, 1]


def test_a_forks_copied_searches_are_priced_once(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    lines, calls = _session(P, True)
    write_rollout(rollout_path(codex, P, at(0)), lines)
    copied = [dict(record, timestamp=iso(at(100 + 0.01 * (n + 1)))) for n, record in enumerate(lines[1:])]
    own = [task_started(at(130)), turn_context(at(130), model="gpt-5"), user_message(at(130), "again"),
           _search(131), calls.call(at(140), 3000, 2500, 150)]
    write_rollout(rollout_path(codex, F, at(100)), [meta(F, at(100), forked_from=P)] + copied + own)
    costs = _costs(isolated_home)
    assert costs[P][0] == _cost(1000, 0, 100) + _cost(2000, 1000, 200) + 3 * SEARCH
    assert costs[F][0] == _cost(3000, 2500, 150) + SEARCH


def test_a_plain_copy_of_a_call_keeps_its_searches_once(isolated_home: Path) -> None:
    # Q holds a copy of P's lines under its own id (same times, same counters): dedupe keeps one.
    codex = isolated_home / ".codex"
    lines, _ = _session(P, True)
    write_rollout(rollout_path(codex, P, at(0)), lines)
    write_rollout(rollout_path(codex, Q, at(0.5)), [meta(Q, at(0.5))] + lines[1:])
    report = token_report(Scanner(home=isolated_home, provider_names=["codex"]), providers=["codex"])
    assert report.cost == _cost(1000, 0, 100) + _cost(2000, 1000, 200) + 3 * SEARCH


def test_cold_cached_no_cache_and_appended_agree(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    lines, calls = _session(P, True)
    path = write_rollout(rollout_path(codex, P, at(0)), lines)
    expected = _cost(1000, 0, 100) + _cost(2000, 1000, 200) + 3 * SEARCH
    assert _costs(isolated_home, use_cache=True)[P][0] == expected  # cold
    assert _costs(isolated_home, use_cache=True)[P][0] == expected  # cached
    assert _costs(isolated_home)[P][0] == expected  # no cache
    assert cli_json("tokens")["rows"][0]["cost_usd"] == float(expected)
    assert cli_json("--no-cache", "tokens")["rows"][0]["cost_usd"] == float(expected)
    # Codex at work appends a turn with two more searches: the next run reads them.
    append_records(path, [task_started(at(30)), user_message(at(30), "more"), _search(31), _search(32),
                          calls.call(at(40), 3000, 2000, 300)])
    grown = expected + _cost(3000, 2000, 300) + 2 * SEARCH
    assert _costs(isolated_home, use_cache=True)[P][0] == grown
    assert cli_json("tokens")["rows"][0]["cost_usd"] == float(grown)
    assert cli_json("--no-cache", "tokens")["rows"][0]["cost_usd"] == float(grown)
