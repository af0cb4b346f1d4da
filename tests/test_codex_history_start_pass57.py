"""A paginated subagent's copied history ends where its meta's
``subagent_history_start_ordinal`` says (pass 57).

openai/codex writes a paginated rollout's lines with an ``ordinal`` (``RolloutLine.ordinal``,
the ``session_meta`` at 0) and a subagent spawned with its parent's context with
``SessionMeta.subagent_history_start_ordinal``: the first ordinal of its own history, the
records below it "inherited model context" that Codex keeps out of the child's turns
(codex-rs ``thread-store`` ``read_rollout_head``; its projection skips ``ordinal < start``).
Before, only the turn markers' times told the copy's end: a parent turn begun under 2 s before
the spawn (``MARKER_SLACK``) looked like the subagent's own, and the parent's calls of that turn
counted twice (in the parent, and again in the subagent, whose copies Codex stamps with the
spawn's time).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from builders import cli_json
from codex_builders import (
    Calls,
    at,
    function_call,
    function_output,
    iso,
    meta,
    rollout_path,
    task_started,
    turn_context,
    user_message,
    write_rollout,
)

P = "019c0000-0000-7000-8000-0000000000a1"  # the parent thread
S = "019c0000-0000-7000-8000-0000000005b1"  # its subagent, spawned with the parent's context

# P's calls (1000, 0, 100) and (2000, 1000, 200): input 1000+1000, cache_read 1000, output 300.
PARENT = (2000, 1000, 0, 300, 0, 3300)
# S's own calls (400, 100, 40) and (600, 300, 60): input 300+300, cache_read 400, output 100.
CHILD = (600, 400, 0, 100, 0, 1100)


def _t(usage: Any) -> tuple[int, ...] | None:
    return None if usage is None else (usage.input, usage.cache_read, usage.cache_write, usage.output,
                                       usage.reasoning, usage.total)


def _numbered(records: list[dict[str, Any]], first: int) -> list[dict[str, Any]]:
    return [{**record, "ordinal": first + index} for index, record in enumerate(records)]


def _paginated_meta(thread_id: str, seconds: float, **extra: Any) -> dict[str, Any]:
    line = meta(thread_id, at(seconds), **extra)
    # ``session_id`` is the root thread's id, the child's too (``id`` is the thread's own)
    return {**line, "payload": {**line["payload"], "history_mode": "paginated", "session_id": P}}


def _home(home: Path, *, with_start: bool = True) -> None:
    """P's second turn began at 48 s and S was spawned at 50 s: the copy's marker of that turn
    is within the 2 s slack of S's start."""
    codex = home / ".codex"
    calls = Calls()
    parent = [
        _paginated_meta(P, 0),
        task_started(at(1)),
        turn_context(at(1)),
        user_message(at(1), "fix the failing test"),
        calls.call(at(10), 1000, 0, 100),
        task_started(at(48)),
        turn_context(at(48)),
        user_message(at(48), "now ask a reviewer"),
        function_call(at(48.5), "shell", {"command": ["bash", "-lc", "git status"]}, "call-p1"),
        function_output(at(48.7), "call-p1", '{"output":"clean","metadata":{"exit_code":0}}'),
        calls.call(at(49), 2000, 1000, 200),
    ]
    write_rollout(rollout_path(codex, P, at(0)), _numbered(parent, 0))
    # The copy: P's records, stamped with the spawn's time (as Codex rewrites them).
    copy = [dict(record, timestamp=iso(at(50.001))) for record in parent]
    own = [
        task_started(at(51)),
        turn_context(at(51)),
        user_message(at(51), "review the patch"),
        function_call(at(52), "shell", {"command": ["bash", "-lc", "git diff"]}, "call-s1"),
        function_output(at(53), "call-s1", '{"output":"diff","metadata":{"exit_code":0}}'),
        calls.call(at(60), 400, 100, 40),
        calls.call(at(61), 600, 300, 60),
    ]
    head = _paginated_meta(S, 50, spawn_parent=P, agent_role="reviewer")
    start = 1 + len(copy)
    if with_start:
        head["payload"]["subagent_history_start_ordinal"] = start
    lines = [{**head, "ordinal": 0}, *_numbered(copy, 1), *_numbered(own, start)]
    write_rollout(rollout_path(codex, S, at(50)), lines)


def _scanner(home: Path) -> Scanner:
    return Scanner(home=home, provider_names=["codex"])


def test_the_copy_ends_at_the_subagents_history_start(isolated_home: Path) -> None:
    _home(isolated_home)
    scanner = _scanner(isolated_home)
    (row,) = token_report(scanner, providers=["codex"]).rows
    assert _t(row.own) == PARENT
    # Before: S counted P's second call again (1000 more input, 1000 cache read, 200 output).
    assert [(sub, _t(tokens)) for sub, tokens in row.subagents] == [(S, CHILD)]
    rows = {one.native_id: one for one in _scanner(isolated_home).list_sessions()}
    assert set(rows) == {P}
    assert _t(rows[P].tokens) == (2600, 1400, 0, 400, 0, 4400)  # the list row agrees
    detail = _scanner(isolated_home).show(P)
    assert [(s.id, _t(s.tokens)) for s in detail.subagents] == [(S, CHILD)]
    assert _t(detail.row.tokens) == (2600, 1400, 0, 400, 0, 4400)
    # P's tool call of its second turn is P's alone: not listed again as S's (it was, copied)
    assert [(t.summary, t.subagent) for t in detail.tools] == [("git status", None), ("git diff", S)]
    # The start is kept with the header's facts: a cached run answers as an uncached one.
    for extra in ((), (), ("--no-cache",)):
        (doc_row,) = cli_json("tokens", *extra)["rows"]
        assert [(part["id"], part["tokens"]["total"]) for part in doc_row["subagents"]] == [(S, 1100)]


def test_without_the_field_the_turn_markers_still_tell_the_copy(isolated_home: Path) -> None:
    """A build that writes no ``subagent_history_start_ordinal`` keeps the rule of the markers'
    times (rule 4): here it takes the copied marker within the slack for the subagent's own,
    as before (the limit the field removes)."""
    _home(isolated_home, with_start=False)
    (row,) = token_report(_scanner(isolated_home), providers=["codex"]).rows
    assert _t(row.own) == PARENT
    assert [(sub, _t(tokens)) for sub, tokens in row.subagents] == [(S, (1600, 1400, 0, 300, 0, 3300))]


def test_a_start_past_every_line_leaves_no_call_of_its_own(isolated_home: Path) -> None:
    """A subagent whose own history has not begun (every line below its start) made no call:
    the copied marker within the slack does not make one of the parent's its own."""
    codex = isolated_home / ".codex"
    _home(isolated_home)
    path = rollout_path(codex, S, at(50))
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:12]))  # its meta and the copy of P's eleven lines
    (row,) = token_report(_scanner(isolated_home), providers=["codex"]).rows
    assert _t(row.own) == PARENT
    assert not row.subagents  # before: P's second call again, as S's (1000, 1000, 0, 200, 0, 2200)
