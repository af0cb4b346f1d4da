"""Codex token counting: re-emitted counts, forks, subagents, cross-file copies.

Every expected number is worked out by hand from the counters the test
writes; the fork scenarios were also run through ccusage 20.0.24
(``ccusage codex session --json --offline``), which gave the same per-file
numbers (it lists a subagent's file on its own instead of rolling it up).
"""

from __future__ import annotations

from pathlib import Path

from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from codex_builders import (
    Calls,
    at,
    function_call,
    function_output,
    iso,
    meta,
    rollout_path,
    task_started,
    token_count,
    turn_context,
    usage,
    user_message,
    write_rollout,
)

P = "019c0000-0000-7000-8000-00000000000a"  # a parent thread
F = "019c0000-0000-7000-8000-00000000000f"  # a fork of P
S = "019c0000-0000-7000-8000-00000000005b"  # a subagent of P
S2 = "019c0000-0000-7000-8000-0000000005b2"  # a subagent of S


def _scanner(home: Path) -> Scanner:
    return Scanner(home=home, provider_names=["codex"])


def _tokens(home: Path) -> dict[str, tuple[int, int, int, int, int, int]]:
    report = token_report(_scanner(home), providers=["codex"])
    return {row.key.split(":", 1)[1]: _t(row.tokens) for row in report.rows}


def _t(usage_) -> tuple[int, int, int, int, int, int] | None:
    if usage_ is None:
        return None
    return (usage_.input, usage_.cache_read, usage_.cache_write, usage_.output, usage_.reasoning, usage_.total)


def _rows(home: Path):
    return {row.native_id: row for row in _scanner(home).list_sessions()}


def _parent(codex: Path) -> tuple[list[dict], Calls]:
    """P: two calls, (1000 in, 0 cached, 100 out) and (2000 in, 1000 cached, 200 out)."""
    calls = Calls()
    lines = [
        meta(P, at(0)),
        task_started(at(1)),
        turn_context(at(1)),
        user_message(at(1), "fix the failing test"),
        calls.call(at(10), 1000, 0, 100),
        calls.call(at(20), 2000, 1000, 200),
    ]
    write_rollout(rollout_path(codex, P, at(0)), lines)
    return lines, calls


# P alone: input (1000-0)+(2000-1000)=2000, cache_read 1000, output 300, total 3300.
PARENT = (2000, 1000, 0, 300, 0, 3300)


def test_re_emitted_and_empty_counts_are_not_counted(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    first = usage(1000, 200, 50, 10)
    total_1 = usage(1000, 200, 50, 10)
    total_2 = usage(2500, 1200, 120, 10)
    write_rollout(
        rollout_path(codex, P, at(0)),
        [
            meta(P, at(0)),
            turn_context(at(1)),
            user_message(at(1), "hi"),
            token_count(at(10), total_1, first),
            token_count(at(11), total_1, first),  # the same cumulative count again
            token_count(at(20), total_2, usage(1500, 1000, 70)),
            token_count(at(21), None, None, {"primary": {"used_percent": 3.0}}),  # info: null
            token_count(at(22), total_2, usage(0)),  # a zero delta
        ],
    )
    # input (1000-200)+(1500-1000)=1300, cache_read 200+1000=1200, output 50+70=120,
    # reasoning 10, total 1300+1200+120=2620.
    expected = (1300, 1200, 0, 120, 10, 2620)
    assert _tokens(isolated_home) == {P: expected}
    assert _t(_rows(isolated_home)[P].tokens) == expected


def test_delta_of_the_cumulative_total_when_last_usage_is_missing(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    write_rollout(
        rollout_path(codex, P, at(0)),
        [
            meta(P, at(0)),
            token_count(at(10), usage(1000, 0, 100)),
            token_count(at(20), usage(2500, 500, 300, cache_write=40)),
        ],
    )
    # deltas (1000, 0, 100) and (1500, 500, 200, cache_write 40), the write part of the input:
    # input 1000 + (1500-500-40) = 1960, cache_read 500, cache_write 40, output 300.
    assert _tokens(isolated_home) == {P: (1960, 500, 40, 300, 0, 2800)}


def _fork(codex: Path, parent_lines: list[dict], calls: Calls, *, markers: bool, copy_time) -> None:
    """F forks P at t=100: its file starts with P's history (timestamps per ``copy_time``)."""
    copied = []
    for position, record in enumerate(parent_lines):
        if not markers and record["payload"].get("type") == "task_started":
            continue
        copied.append(dict(record, timestamp=copy_time(position, record)))
    own = [task_started(at(130))] if markers else []
    own += [turn_context(at(130)), user_message(at(130), "try another way"), calls.call(at(140), 3000, 2500, 150)]
    write_rollout(rollout_path(codex, F, at(100)), [meta(F, at(100), forked_from=P)] + copied + own)


# F's own call: input 3000-2500=500, cache_read 2500, output 150: total 3150.
FORK_OWN = (500, 2500, 0, 150, 0, 3150)


def test_fork_does_not_count_its_copied_history(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    # Codex rewrites the copied lines' timestamps to the fork instant.
    _fork(codex, lines, calls, markers=True, copy_time=lambda i, r: iso(at(100 + 0.01 * (i + 1))))
    assert _tokens(isolated_home) == {P: PARENT, F: FORK_OWN}
    rows = _rows(isolated_home)
    assert _t(rows[F].tokens) == FORK_OWN  # list subtracts the count the copy ended with
    assert rows[F].title == "try another way"  # a fork's own first prompt, not the copy's (pass 46)


def test_fork_without_turn_markers_matches_the_parents_calls(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    # No task_started (older builds), copies written seconds apart: only the
    # parent's own sequence of calls can tell them apart.
    _fork(codex, lines, calls, markers=False, copy_time=lambda i, r: iso(at(100 + 3 * (i + 1))))
    assert _tokens(isolated_home) == {P: PARENT, F: FORK_OWN}
    # list's row tells the copy by the parent's calls too (it counted P's 3,300 as F's before)
    assert _t(_rows(isolated_home)[F].tokens) == FORK_OWN


def test_fork_copies_that_kept_their_timestamps(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    _fork(codex, lines, calls, markers=False, copy_time=lambda i, r: r["timestamp"])
    assert _tokens(isolated_home) == {P: PARENT, F: FORK_OWN}
    assert _t(_rows(isolated_home)[F].tokens) == FORK_OWN


def test_fork_whose_parent_is_gone_counts_its_copies(isolated_home: Path) -> None:
    """The copies are the only record of the gone parent's calls: they count in the fork
    (pass 49; they counted nowhere).  The rewritten burst still tells its own part (its title)."""
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    rollout_path(codex, P, at(0)).unlink()
    _fork(codex, lines, calls, markers=False, copy_time=lambda i, r: iso(at(100 + 0.01 * (i + 1))))
    both = tuple(a + b for a, b in zip(PARENT, FORK_OWN))
    assert _tokens(isolated_home) == {F: both}
    row = _rows(isolated_home)[F]
    assert _t(row.tokens) == both and row.title == "try another way"


def _subagent(codex: Path, thread: str, parent: str, started: float, calls: list[tuple[int, int, int]], *, copy: list[dict] = ()) -> None:
    counter = Calls()
    lines = [meta(thread, at(started), spawn_parent=parent, agent_role="reviewer"), *copy, task_started(at(started + 1))]
    lines += [turn_context(at(started + 1)), user_message(at(started + 1), "review the patch")]
    lines += [function_call(at(started + 2), "shell", {"command": ["bash", "-lc", "git diff"]}, f"call-{thread[-3:]}")]
    lines += [function_output(at(started + 3), f"call-{thread[-3:]}", '{"output":"diff","metadata":{"exit_code":0}}')]
    for offset, (input_, cached, output) in enumerate(calls):
        lines.append(counter.call(at(started + 10 + offset), input_, cached, output))
    write_rollout(rollout_path(codex, thread, at(started)), lines)


# S's calls (400, 100, 40) and (600, 300, 60): input 300+300=600, cache_read 400, output 100.
CHILD = (600, 400, 0, 100, 0, 1100)
CHILD_CALLS = [(400, 100, 40), (600, 300, 60)]


def test_subagent_rolls_into_its_parent(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _parent(codex)
    _subagent(codex, S, P, 50, CHILD_CALLS)
    scanner = _scanner(isolated_home)
    rows = {row.native_id: row for row in scanner.list_sessions()}
    assert set(rows) == {P}  # the child is not a session of its own
    assert rows[P].subagents == 1
    assert _t(rows[P].tokens) == (2600, 1400, 0, 400, 0, 4400)  # PARENT + CHILD
    report = token_report(scanner, providers=["codex"])
    (row,) = report.rows
    assert _t(row.own) == PARENT
    assert [(sub_id, _t(tokens)) for sub_id, tokens in row.subagents] == [(S, CHILD)]
    entries = scanner.provider("codex").usage(scanner.refs(["codex"]), scanner.ctx)
    assert {(e.session, e.subagent) for e in entries} == {(P, None), (P, S)}
    detail = scanner.show(P)
    assert [(s.id, s.agent_type, _t(s.tokens)) for s in detail.subagents] == [(S, "reviewer", CHILD)]
    assert [(t.summary, t.status, t.subagent) for t in detail.tools] == [("git diff", "ok", S)]
    assert [p.text for p in detail.prompts] == ["fix the failing test"]  # not the child's prompt
    assert _t(detail.row.tokens) == (2600, 1400, 0, 400, 0, 4400)


def test_subagent_that_copied_its_parents_history(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    lines, _ = _parent(codex)
    copy = [dict(record, timestamp=iso(at(50.001))) for record in lines]  # P's meta, turn and calls
    _subagent(codex, S, P, 50, CHILD_CALLS, copy=copy)
    report = token_report(_scanner(isolated_home), providers=["codex"])
    (row,) = report.rows
    assert _t(row.own) == PARENT and [(s, _t(t)) for s, t in row.subagents] == [(S, CHILD)]
    assert _t(_rows(isolated_home)[P].tokens) == (2600, 1400, 0, 400, 0, 4400)


def test_nested_subagent_joins_the_top_session(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _parent(codex)
    _subagent(codex, S, P, 50, CHILD_CALLS)
    _subagent(codex, S2, S, 60, [(100, 0, 10)])
    (row,) = token_report(_scanner(isolated_home), providers=["codex"]).rows
    assert row.key == f"codex:{P}"
    assert [(s, _t(t)) for s, t in row.subagents] == [(S, CHILD), (S2, (100, 0, 0, 10, 0, 110))]
    assert _rows(isolated_home)[P].subagents == 2


def test_subagent_whose_parent_rollout_is_missing_still_counts(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _subagent(codex, S, P, 50, CHILD_CALLS)
    rows = _rows(isolated_home)
    assert set(rows) == {P}
    assert rows[P].path is None and rows[P].subagents == 1 and _t(rows[P].tokens) == CHILD
    (row,) = token_report(_scanner(isolated_home), providers=["codex"]).rows
    assert row.own is None and [(s, _t(t)) for s, t in row.subagents] == [(S, CHILD)]


def test_the_same_call_in_two_files_counts_once(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    lines, _ = _parent(codex)
    other = "019c0000-0000-7000-8000-0000000000cc"
    # A plain copy under another id (no fork marker): same timestamps, same counters.
    write_rollout(rollout_path(codex, other, at(5)), [meta(other, at(5))] + lines[1:])
    tokens = _tokens(isolated_home)
    assert tokens[P] == PARENT  # the older thread keeps the calls
    # Its calls count once, in the older thread: it spent 0 of its own (null would say it recorded none).
    assert tokens[other] == (0, 0, 0, 0, 0, 0)
    report = token_report(_scanner(isolated_home), providers=["codex"])
    assert _t(report.total) == PARENT


def test_no_token_count_at_all_is_null(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    write_rollout(rollout_path(codex, P, at(0)), [meta(P, at(0)), user_message(at(1), "hello")])
    assert _rows(isolated_home)[P].tokens is None
    assert _tokens(isolated_home) == {P: None}


def test_counters_read_every_value_as_as_count_does() -> None:
    """``counters_of`` reads the common counts inline: whatever a field holds, it reads what
    ``as_count`` reads, and ``cached_input_tokens`` present (even null) hides the older name;
    a counter of no number at all (``null``, ``true``, ``"x"``, a list) makes none, a number in
    either spelling (``"-5"``, 16 digits) is read as ``as_count`` reads it."""
    from itertools import product

    from agentscan.bounds import MAX_TOKEN_COUNT
    from agentscan.providers.codex.counters import counters_of
    from agentscan.providers.codex.records import as_count

    odd = [None, 0, 7, -1, True, False, 3.0, 2.5, float("nan"), "12", "x", "²", "-5", "1" * 16, MAX_TOKEN_COUNT,
           MAX_TOKEN_COUNT + 1, 10**30, [1], {"a": 1}]
    # (by identity: ``0 == False``) the values of no number at all, as listed above
    unread = [odd[0], odd[4], odd[5], odd[10], odd[11], odd[-2], odd[-1]]
    assert unread == [None, True, False, "x", "²", [1], {"a": 1}]

    def no_number(value: object) -> bool:
        return any(value is other for other in unread)

    for value, older in product(odd, (None, 5)):
        for present in (True, False):
            raw = {"input_tokens": value, "output_tokens": value, "reasoning_output_tokens": value,
                   "total_tokens": value, "cache_write_input_tokens": value, "cache_read_input_tokens": older}
            if present:
                raw["cached_input_tokens"] = value
            cached = value if present else older
            if no_number(value) or no_number(cached):  # (no count at all: ``counters._unreadable``)
                assert counters_of(raw) is None, (value, older, present)
                continue
            assert counters_of(raw) == (as_count(value), as_count(cached), as_count(value), as_count(value),
                                        as_count(value), as_count(value)), (value, older, present)
    # An empty object is no count (pass 57: ``last_token_usage: {}`` beside a total that moved)
    assert counters_of({}) is None and counters_of([1]) is None and counters_of(None) is None
