"""Codex: a session's ``model`` is the most used one, as ``tokens --by model`` counts calls.

A real-shaped rollout (0.146 schema catalog) names seven models in its
``turn_context`` lines but made its one call on the first: ``list`` and
``show`` gave the last turn's model while ``tokens --by model`` put every
token on the first.  The rule (docs/providers/codex.md): the model of most
calls (ties: the first called); with no call, the model most
``turn_context`` lines name (ties: the latest); the thread index's model
(the latest turn's) only fills a gap.  Every expected model is a hand count
written beside the test.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from codex_builders import (
    Calls,
    agent_message,
    at,
    index_row,
    iso,
    lay_out_real_codex,
    line,
    meta,
    rollout_path,
    task_started,
    turn_context,
    user_message,
    write_rollout,
    write_state_db,
)

S = "019d5555-0000-7000-8000-000000000005"
P = "019d6666-0000-7000-8000-000000000006"
F = "019d7777-0000-7000-8000-000000000007"
CHILD = "019d8888-0000-7000-8000-000000000008"
REAL_046 = "019fc8be-3658-7ca3-9e29-000000000000"


def _codex(home: Path) -> Path:
    return home / ".codex"


def _session(home: Path, body: list[dict], thread: str = S, *, started: datetime | None = None, **meta_args) -> Path:
    started = started or at(0)
    return write_rollout(rollout_path(_codex(home), thread, started),
                         [meta(thread, started, **meta_args), user_message(started, "port the parser"), *body],
                         mtime=at(1000).timestamp())


def _listed(scanner: Scanner) -> dict[str, str | None]:
    return {row.native_id: row.model for row in scanner.list_sessions()}


def _by_model(scanner: Scanner, native_id: str) -> dict[str, int]:
    """``tokens --by model`` for one session: model -> total tokens."""
    report = token_report(scanner, ids=[f"codex:{native_id}"], by="model")
    return {row.key.rsplit("/", 1)[-1].split(":")[-1]: row.tokens.total for row in report.rows}


def test_the_real_sample_names_the_model_its_call_ran_on(isolated_home: Path) -> None:
    # fixtures/real/codex/derived-agent-sessions-schema-catalog-0.146.jsonl: turn_context
    # models on lines 2 and 27 gpt-5.6-luna, then gpt-5.5, codex-auto-review, gpt-5.4,
    # gpt-5.2, gpt-5.2-codex, gpt-5.1 and (line 100) gpt-5.6-sol; its one call (line 22,
    # 16,422 tokens) ran on gpt-5.6-luna.
    lay_out_real_codex(isolated_home)
    assert _listed(Scanner())[REAL_046] == "gpt-5.6-luna"
    assert Scanner().show(REAL_046).row.model == "gpt-5.6-luna"
    assert list(_by_model(Scanner(), REAL_046).values()) == [16422]


def test_the_model_of_most_calls_wins_over_the_latest_turn(isolated_home: Path) -> None:
    calls = Calls()
    _session(isolated_home, [
        turn_context(at(1), "gpt-5-codex"),
        calls.call(at(2), 1000, 0, 10), calls.call(at(3), 1200, 1000, 10), calls.call(at(4), 1300, 1200, 10),
        turn_context(at(5), "gpt-5.1-codex-mini"),
        calls.call(at(6), 100, 0, 5),
        turn_context(at(7), "gpt-5.1-codex-mini"),  # two turns, one call: turns do not outvote calls
        agent_message(at(8), "done"),
    ])
    # Calls: gpt-5-codex 3, gpt-5.1-codex-mini 1.
    assert _listed(Scanner()) == {S: "gpt-5-codex"}
    assert Scanner().show(S).row.model == "gpt-5-codex"
    assert _by_model(Scanner(), S) == {"gpt-5-codex": 3500 + 30, "gpt-5.1-codex-mini": 105}
    listed = orjson.loads(CliRunner().invoke(app, ["list", "--json"]).stdout)["sessions"]
    assert listed[0]["model"] == "gpt-5-codex"


def test_a_tie_of_calls_goes_to_the_first_called(isolated_home: Path) -> None:
    calls = Calls()
    _session(isolated_home, [
        turn_context(at(1), "gpt-5-codex"), calls.call(at(2), 1000, 0, 10),
        turn_context(at(3), "gpt-5.1"), calls.call(at(4), 1000, 0, 10),
    ])
    # One call each: the first called, as Claude and Gemini break ties.
    assert _listed(Scanner()) == {S: "gpt-5-codex"}
    assert Scanner().show(S).row.model == "gpt-5-codex"


def test_without_calls_the_most_named_turn_model_wins_ties_to_the_latest(isolated_home: Path) -> None:
    _session(isolated_home, [turn_context(at(1), "gpt-5-codex"), turn_context(at(2), "gpt-5-codex"),
                             turn_context(at(3), "gpt-5.1")])
    # No call: gpt-5-codex names 2 turns, gpt-5.1 one.
    assert _listed(Scanner()) == {S: "gpt-5-codex"}
    assert Scanner().show(S).row.model == "gpt-5-codex"
    _session(isolated_home, [turn_context(at(1), "gpt-5.1"), turn_context(at(2), "gpt-5-codex"),
                             turn_context(at(3), "gpt-5-codex"), turn_context(at(4), "gpt-5.1")])
    # Two each: the latest named (gpt-5.1, line 4).
    assert _listed(Scanner()) == {S: "gpt-5.1"}
    assert Scanner().show(S).row.model == "gpt-5.1"


def test_the_thread_index_model_only_fills_a_gap(isolated_home: Path) -> None:
    calls = Calls()
    path = _session(isolated_home, [
        turn_context(at(1), "gpt-5-codex"), calls.call(at(2), 1000, 0, 10), calls.call(at(3), 1100, 1000, 10),
        turn_context(at(4), "gpt-5.1"),
    ])
    bare = "019d9999-0000-7000-8000-000000000009"
    bare_path = write_rollout(rollout_path(_codex(isolated_home), bare, at(50)),
                              [meta(bare, at(50)), user_message(at(51), "hello")], mtime=at(1000).timestamp())
    # The index row is newer than both rollouts, and (as Codex writes it) names the latest turn's model.
    write_state_db(_codex(isolated_home) / "state_5.sqlite", [
        index_row(S, path, created=at(0), updated=at(10_000), model="gpt-5.1", title="Renamed"),
        index_row(bare, bare_path, created=at(50), updated=at(10_000), model="gpt-5.1-codex"),
    ])
    rows = {row.native_id: row for row in Scanner().list_sessions()}
    assert rows[S].title == "Renamed"  # the newer index still wins what it knows better
    assert rows[S].model == "gpt-5-codex"  # 2 calls, the index's latest turn notwithstanding
    assert Scanner().show(S).row.model == "gpt-5-codex"
    assert rows[bare].model == "gpt-5.1-codex"  # the rollout names none: the index fills in


def test_a_fork_is_named_by_its_own_calls_not_its_copied_ones(isolated_home: Path) -> None:
    calls = Calls()
    parent = [task_started(at(1)), turn_context(at(1), "gpt-5-codex"),
              *(calls.call(at(2 + n), 1000 * (n + 1), 0, 10) for n in range(3))]
    _session(isolated_home, parent, P)
    # F copies P's history (3 calls on gpt-5-codex), then makes 2 calls of its own on
    # gpt-5.1, and its latest turn names gpt-5.1-codex-mini without a call.
    copied = [meta(P, at(0)), user_message(at(0), "port the parser"), *parent]
    copied = [dict(record, timestamp=iso(at(100 + 0.01 * (n + 1)))) for n, record in enumerate(copied)]
    own = [task_started(at(130)), turn_context(at(130), "gpt-5.1"), calls.call(at(140), 500, 0, 5),
           calls.call(at(141), 600, 0, 5), turn_context(at(150), "gpt-5.1-codex-mini")]
    write_rollout(rollout_path(_codex(isolated_home), F, at(100)), [meta(F, at(100), forked_from=P), *copied, *own])
    assert _listed(Scanner()) == {P: "gpt-5-codex", F: "gpt-5.1"}
    assert Scanner().show(F).row.model == "gpt-5.1"
    assert list(_by_model(Scanner(), F)) == ["gpt-5.1"]


def test_an_orphan_subagent_names_the_session_by_its_calls(isolated_home: Path) -> None:
    calls = Calls()
    _session(isolated_home, [
        task_started(at(7)), turn_context(at(7), "gpt-5.1-codex-mini"), calls.call(at(8), 900, 0, 9),
        calls.call(at(20), 950, 900, 9), turn_context(at(30), "gpt-5-codex"),
    ], CHILD, started=at(6), spawn_parent=P, agent_role="reviewer")
    # The parent rollout is gone: the child's 2 calls name the session.
    assert _listed(Scanner()) == {P: "gpt-5.1-codex-mini"}
    assert Scanner().show(P).row.model == "gpt-5.1-codex-mini"


# -- rollouts over 1 MiB: the window, then the tally -------------------------------------------


def _filler(moment: datetime, count: int) -> list:
    return [line(moment, "response_item", {"type": "reasoning", "summary": [], "encrypted_content": "z" * 1000})] * count


def _large(home: Path) -> tuple[Path, Calls]:
    """4 calls on gpt-5-codex in the first MiB, 1.3 MiB of reasoning lines, then a turn
    on gpt-5.1 with 1 call: the last 1 MiB holds that turn only."""
    calls = Calls()
    body = [turn_context(at(1), "gpt-5-codex")]
    for n in range(4):
        body += [calls.call(at(2 + n), 1000, 0, 10), *_filler(at(2 + n), 250)]
    body += _filler(at(100), 1300)
    body += [turn_context(at(200), "gpt-5.1"), calls.call(at(201), 100, 0, 1)]
    return _session(home, body), calls


def test_a_large_rollout_is_named_by_its_window_then_by_the_tally(isolated_home: Path) -> None:
    path, calls = _large(isolated_home)
    assert path.stat().st_size > 2 * 1024 * 1024
    with Scanner(use_cache=True) as scanner:
        (row,) = scanner.list_sessions()
    # No whole pass yet: the last 1 MiB (1 call, on gpt-5.1), and the row says it is partial.
    assert (row.model, row.counts_partial) == ("gpt-5.1", True)
    # `tokens` reads it whole and keeps the tally: the cached row is mended, model included.
    assert CliRunner().invoke(app, ["tokens", "--json"]).exit_code == 0
    with Scanner(use_cache=True) as scanner:
        (row,) = scanner.list_sessions()
    assert (row.model, row.counts_partial) == ("gpt-5-codex", False)  # 4 calls to 1
    assert Scanner().show(S).row.model == "gpt-5-codex"
    # The session goes on, 4 more calls on gpt-5.1: only the appended lines are read.
    with path.open("ab") as handle:
        appended = [calls.call(at(300 + n), 100, 0, 1) for n in range(4)]
        handle.write(b"".join(orjson.dumps(record) + b"\n" for record in appended))
    with Scanner(use_cache=True) as scanner:
        (row,) = scanner.list_sessions()
    assert (row.model, row.counts_partial) == ("gpt-5.1", False)  # 5 calls to 4
    assert Scanner().show(S).row.model == "gpt-5.1"


def test_show_of_a_large_rollout_leaves_the_model_in_the_tally(isolated_home: Path) -> None:
    _large(isolated_home)
    with Scanner(use_cache=True) as scanner:
        assert scanner.show(S).row.model == "gpt-5-codex"
    with Scanner(use_cache=True) as scanner:
        (row,) = scanner.list_sessions()
    assert (row.model, row.counts_partial) == ("gpt-5-codex", False)
