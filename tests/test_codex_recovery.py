"""Codex: token_usage_record lines, paginated threads over several files,
exact counts of large rollouts, orphan subagents (issue 17).

No public repository holds a real rollout with ``token_usage_record`` lines
or a ``history_mode: paginated`` thread (searched: only readers' synthetic
test lines), so these rollouts are built by hand from the documented shapes
(docs/providers/codex.md); every expected number is a hand count written
beside the test.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.model import TokenUsage
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from codex_builders import (
    Calls,
    agent_message,
    at,
    compacted,
    function_call,
    function_output,
    line,
    meta,
    paginated,
    rollout_path,
    task_started,
    token_count,
    turn_context,
    usage,
    usage_record,
    user_message,
    index_row,
    write_rollout,
    write_state_db,
)

T = "019d1111-0000-7000-8000-000000000001"
R2 = "019d2222-0000-7000-8000-000000000002"
PARENT = "019d3333-0000-7000-8000-000000000003"
CHILD = "019d4444-0000-7000-8000-000000000004"


def _codex(home: Path) -> Path:
    return home / ".codex"


def _dumps(records: list) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


# -- token_usage_record --------------------------------------------------------------


def test_usage_records_count_the_calls_no_token_count_reports(isolated_home: Path) -> None:
    calls = Calls()
    compaction = usage_record(at(12), "resp-c", usage(8000, 0, 400))
    write_rollout(rollout_path(_codex(isolated_home), T, at(0)), [
        meta(T, at(0)), turn_context(at(0)), task_started(at(0)), user_message(at(1), "hi"),
        # Two responses with both a record and a token_count: one call each.
        usage_record(at(5), "resp-1", usage(1000, 200, 50)), calls.call(at(5.1), 1000, 200, 50),
        usage_record(at(9), "resp-2", usage(3000, 2500, 80, 20)), calls.call(at(9.1), 3000, 2500, 80, 20),
        # A remote compaction: a record only, then copied into the compacted line.
        compaction, compacted(at(12.5), compaction),
        # A compacted line copied from another thread's history: not ours.
        compacted(at(13), usage_record(at(13), "resp-other", usage(7000, 0, 300), thread_id="019d9999-0000-7000-8000-000000000009")),
        # A record of this thread that no token_count reports.
        usage_record(at(20), "resp-3", usage(500, 0, 10), thread_id=T),
    ])
    report = token_report(Scanner())
    # Hand count (input = input_tokens - cached):
    #   token_count calls: (800, 200 cached, 50 out) + (500, 2500 cached, 80 out, 20 reasoning)
    #   unmatched records: resp-c (8000, 0, 400) + resp-3 (500, 0, 10)
    #   resp-1/resp-2 match their token_count; the compacted copy of resp-c and
    #   the other thread's record count nothing.
    assert report.total == TokenUsage(input=800 + 500 + 8000 + 500, cache_read=200 + 2500, cache_write=0,
                                      output=50 + 80 + 400 + 10, reasoning=20)


def test_a_rollout_with_records_only_counts_each_response_once(isolated_home: Path) -> None:
    record = usage_record(at(5), "resp-1", usage(1200, 1000, 30))
    write_rollout(rollout_path(_codex(isolated_home), T, at(0)), [
        meta(T, at(0)), turn_context(at(0)), user_message(at(1), "hi"),
        record, record,  # written twice (a checkpoint copy): one response
        usage_record(at(7), "resp-2", usage(100, 0, 5)),
    ])
    (row,) = token_report(Scanner()).rows
    # (1200 - 1000 = 200, 1000 cached, 30) + (100, 0, 5)
    assert row.tokens == TokenUsage(input=300, cache_read=1000, output=35)


# -- paginated threads ----------------------------------------------------------------


def _paginated_home(home: Path) -> None:
    """Thread T: its first file (rollout id T), then a revert: segment R2 continues
    T's history after the first turn; T's second turn was left behind."""
    first_calls = Calls()
    root = [
        paginated(meta(T, at(0)), ordinal=0),
        turn_context(at(0)),
        user_message(at(1), "first prompt"),
        first_calls.call(at(5), 1000, 0, 100),  # cumulative (1000, 0, 100)
        agent_message(at(6), "answer one"),
    ]
    boundary = len(_dumps(root))
    root += [
        user_message(at(10), "reverted prompt"),
        first_calls.call(at(12), 2000, 1000, 200),  # cumulative (3000, 1000, 300)
        agent_message(at(13), "answer two"),
    ]
    write_rollout(rollout_path(_codex(home), T, at(0)), root)
    # Codex restores the count of the history it continues: (1000, 0, 100).
    continued = Calls(total=usage(1000, 0, 100))
    write_rollout(rollout_path(_codex(home), R2, at(20)), [
        paginated(meta(T, at(0)), base=(T, boundary), ordinal=5),
        turn_context(at(20)),
        user_message(at(21), "edited prompt"),
        continued.call(at(22), 1500, 500, 120),  # cumulative (2500, 500, 220)
        agent_message(at(23), "answer three"),
    ])


def test_a_paginated_thread_over_two_files_is_one_session(isolated_home: Path) -> None:
    _paginated_home(isolated_home)
    scanner = Scanner()
    (row,) = scanner.list_sessions()
    assert row.native_id == T and row.subagents == 0
    assert row.title == "first prompt"
    assert not [w for w in scanner.warnings if "session_meta" in w.message]
    # Spend, both ways: T's calls (1000, 0, 100) + (2000, 1000, 200), the second
    # on the reverted branch, and R2's (1500, 500, 120).  input = in - cached.
    spend = TokenUsage(input=1000 + 1000 + 1000, cache_read=1500, output=420)
    assert row.tokens == spend
    (report_row,) = token_report(scanner).rows
    assert report_row.tokens == spend and report_row.key == f"codex:{T}"
    # list counts every file's lines: 3 prompts, 3 replies (the reverted turn too).
    assert (row.counts.prompts, row.counts.responses) == (3, 3)


def test_a_paginated_thread_known_to_the_index_by_its_live_file(isolated_home: Path, tmp_path: Path) -> None:
    # The index names the thread once, pointing at the live segment; the first
    # file may even be gone: the thread is still one session.
    _paginated_home(isolated_home)
    live = rollout_path(_codex(isolated_home), R2, at(20))
    write_state_db(_codex(isolated_home) / "state_5.sqlite",
                   [index_row(T, live, created=at(0), updated=at(23), source="cli", cwd="/work/project", title="first prompt")])
    (row,) = Scanner().list_sessions()
    assert row.native_id == T and row.tokens == TokenUsage(input=3000, cache_read=1500, output=420)
    rollout_path(_codex(isolated_home), T, at(0)).unlink()
    (row,) = Scanner().list_sessions()
    # Only R2's own call is left: (1500 - 500, 500 cached, 120).
    assert row.native_id == T and row.tokens == TokenUsage(input=1000, cache_read=500, output=120)
    (report_row,) = token_report(Scanner()).rows
    assert report_row.tokens == TokenUsage(input=1000, cache_read=500, output=120)


def test_a_paginated_thread_is_one_session_when_its_heads_are_remembered(isolated_home: Path) -> None:
    # A later run (a new process: nothing in memory) whose census changed discovers
    # again from the heads the index remembers: a segment's base must be among them.
    from agentscan.providers.codex import header

    _paginated_home(isolated_home)
    with Scanner(use_cache=True) as scanner:
        assert [row.native_id for row in scanner.list_sessions()] == [T]
    header._CACHE.clear()
    other = "019d3333-0000-7000-8000-000000000003"
    write_rollout(rollout_path(_codex(isolated_home), other, at(50)), [meta(other, at(50)), user_message(at(51), "x")])
    with Scanner(use_cache=True) as scanner:
        rows = scanner.list_sessions()
        assert [row.native_id for row in rows] == [other, T]
        assert rows[1].tokens == TokenUsage(input=3000, cache_read=1500, output=420)


def test_show_of_a_paginated_thread_is_its_live_history(isolated_home: Path) -> None:
    _paginated_home(isolated_home)
    detail = Scanner().show(T)
    assert [p.text for p in detail.prompts] == ["first prompt", "edited prompt"]
    assert [r.text for r in detail.responses] == ["answer one", "answer three"]
    assert (detail.row.counts.prompts, detail.row.counts.responses) == (2, 2)
    assert detail.row.tokens == TokenUsage(input=3000, cache_read=1500, output=420)


# -- counts of large rollouts ---------------------------------------------------------------


def _filler(moment: datetime, count: int) -> list:
    return [line(moment, "response_item", {"type": "reasoning", "summary": [], "encrypted_content": "z" * 1000})] * count


def _large_rollout(home: Path) -> Path:
    """100 tool calls in the first ~2 MiB, 1.3 MiB of reasoning lines, then a last
    turn of 3 calls: the last 1 MiB holds 1 prompt, 1 reply, 3 calls."""
    records = [meta(T, at(0)), turn_context(at(0)), user_message(at(1), "big job")]
    for number in range(100):
        records += [function_call(at(2 + number), "shell", {"command": ["bash", "-lc", f"step {number}"]}, f"c{number}"),
                    *_filler(at(2 + number), 20)]
    records += _filler(at(200), 1200)
    records += [user_message(at(300), "second turn")]
    records += [function_call(at(301 + n), "shell", {"command": ["bash", "-lc", "ls"]}, f"d{n}") for n in range(3)]
    records += [agent_message(at(310), "all done"), token_count(at(311), usage(9000, 0, 90), usage(9000, 0, 90))]
    return write_rollout(rollout_path(_codex(home), T, at(0)), records)


def _counts(row) -> tuple[int, int, int, bool]:
    return row.counts.prompts, row.counts.responses, row.counts.tool_calls, row.counts_partial


def test_large_rollout_counts_are_labelled_partial_then_exact(isolated_home: Path) -> None:
    path = _large_rollout(isolated_home)
    assert path.stat().st_size > 3 * 1024 * 1024
    # No full pass yet: the last 1 MiB only, and the row says so.
    (row,) = Scanner().list_sessions()
    assert _counts(row) == (1, 1, 3, True)
    listed = orjson.loads(CliRunner().invoke(app, ["list", "--json"]).stdout)["sessions"]
    assert listed[0]["counts_partial"] is True
    # `tokens` reads the file whole and keeps its tally: list is exact from then on
    # (2 prompts, 1 reply, 100 + 3 calls), even from a cached row.
    assert CliRunner().invoke(app, ["tokens", "--json"]).exit_code == 0
    listed = orjson.loads(CliRunner().invoke(app, ["list", "--json"]).stdout)["sessions"]
    assert (listed[0]["counts"], listed[0]["counts_partial"]) == ({"prompts": 2, "responses": 1, "tool_calls": 103}, False)
    # The session goes on: only the appended lines are read to stay exact.
    with path.open("ab") as handle:
        handle.write(_dumps([user_message(at(400), "third turn"), function_call(at(401), "shell", {"command": "pwd"}, "e1")]))
    with Scanner(use_cache=True) as scanner:
        (row,) = scanner.list_sessions()
    assert _counts(row) == (3, 1, 104, False)


def test_show_of_a_large_rollout_leaves_the_tally_too(isolated_home: Path) -> None:
    _large_rollout(isolated_home)
    with Scanner(use_cache=True) as scanner:
        assert _counts(scanner.show(T).row) == (2, 1, 103, False)
    with Scanner(use_cache=True) as scanner:
        (row,) = scanner.list_sessions()
    assert _counts(row) == (2, 1, 103, False)


# -- orphan subagents --------------------------------------------------------------------

RATE_LIMITS = {"limit_id": "codex", "primary": {"used_percent": 31.0, "window_minutes": 300, "resets_at": 1795662000},
               "secondary": None, "plan_type": "pro"}


def test_an_orphan_subagent_row_and_show_come_from_its_own_content(isolated_home: Path) -> None:
    calls = Calls()
    last = calls.call(at(30), 4200, 1000, 300, 64)
    last["payload"]["rate_limits"] = RATE_LIMITS
    write_rollout(rollout_path(_codex(isolated_home), CHILD, at(6)), [
        meta(CHILD, at(6), spawn_parent=PARENT, agent_role="reviewer"),
        turn_context(at(6.1), "gpt-5.1-codex-mini"),
        task_started(at(6.1)),
        user_message(at(6.2), "Audit app/refunds.py for race conditions"),
        function_call(at(9), "shell", {"command": ["bash", "-lc", "sed -n 1,80p app/refunds.py"]}, "c1"),
        function_output(at(10), "c1", "Exit code: 0\ndef refund(): ..."),
        agent_message(at(29), "refund() reads then writes the balance without a lock."),
        last,
    ])
    scanner = Scanner()
    (row,) = scanner.list_sessions()
    # Hand count of the child rollout: 1 prompt, 1 reply, 1 tool call.
    assert row.native_id == PARENT and row.path is None and row.subagents == 1
    assert row.title == "Audit app/refunds.py for race conditions"
    assert _counts(row) == (1, 1, 1, False)
    assert row.model == "gpt-5.1-codex-mini"
    assert row.started_at == at(6)
    assert row.tokens == TokenUsage(input=3200, cache_read=1000, output=300, reasoning=64)
    detail = scanner.show(PARENT)
    doc = detail.to_json()
    assert doc["parent_missing"] is True
    assert doc["codex"]["rate_limits"] == RATE_LIMITS
    assert [p.text for p in detail.prompts] == ["Audit app/refunds.py for race conditions"]
    assert [r.text for r in detail.responses] == ["refund() reads then writes the balance without a lock."]
    assert [(t.name, t.subagent, t.status) for t in detail.tools] == [("shell", CHILD, "ok")]
    text = CliRunner().invoke(app, ["show", PARENT]).stdout
    assert "transcript missing" in text
