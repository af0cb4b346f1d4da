"""Each Claude counting rule, on a builder-made case that a naive rule gets wrong."""

from __future__ import annotations

from pathlib import Path

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from builders import (
    claude_assistant,
    claude_base,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
)

S = "11111111-2222-4333-8444-555555555555"


def totals(home: Path) -> dict[str, tuple[int, int, int, int]]:
    report = token_report(Scanner(home=home))
    return {
        row.key: (row.tokens.input, row.tokens.cache_read, row.tokens.cache_write, row.tokens.output)
        for row in report.rows
        if row.tokens
    }


def test_streamed_copies_keep_the_largest_not_the_first(isolated_home: Path) -> None:
    # One API call written as three records whose output grows 8 -> 60 -> 108.
    # Keep-first would report output 8; summing every copy would report 176.
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "hi"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="msg_1", request_id="req_1", usage=claude_usage(3, 8, 100, 1000)),
        claude_assistant(S, "2026-11-01T10:00:02Z", msg_id="msg_1", request_id="req_1", usage=claude_usage(3, 60, 100, 1000)),
        claude_assistant(S, "2026-11-01T10:00:03Z", msg_id="msg_1", request_id="req_1", usage=claude_usage(3, 108, 100, 1000)),
    ])
    assert totals(isolated_home) == {f"claude:{S}": (3, 1000, 100, 108)}


def test_distinct_calls_are_all_counted(isolated_home: Path) -> None:
    # Deduplicating by message id alone would merge these two calls (same id, two requests
    # is what a retry looks like); the key is (message.id, requestId).
    claude_session_file(isolated_home, S, [
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="msg_1", request_id="req_1", usage=claude_usage(1, 10)),
        claude_assistant(S, "2026-11-01T10:00:02Z", msg_id="msg_1", request_id="req_2", usage=claude_usage(2, 20)),
        claude_assistant(S, "2026-11-01T10:00:03Z", msg_id="msg_2", request_id="req_3", usage=claude_usage(4, 40)),
    ])
    assert totals(isolated_home) == {f"claude:{S}": (7, 0, 0, 70)}


def test_progress_and_tool_results_are_never_counted(isolated_home: Path) -> None:
    # The parent embeds the subagent's assistant message in a progress record and
    # summarises it in toolUseResult.usage; the subagent file holds the real call.
    sub_call = claude_assistant(S, "2026-11-01T10:00:05Z", msg_id="msg_sub", request_id="req_sub",
                                usage=claude_usage(5, 50, 0, 500), sidechain=True, agentId="abc1234")
    progress = {**claude_base(S, "2026-11-01T10:00:06Z"), "type": "progress",
                "data": {"type": "agent_progress", "agentId": "abc1234", "message": sub_call}}
    task_result = {**claude_user(S, "2026-11-01T10:00:07Z", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "done"}]),
                   "toolUseResult": {"agentId": "abc1234", "usage": claude_usage(5, 50, 0, 500), "totalTokens": 555}}
    claude_session_file(isolated_home, S, [
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="msg_1", request_id="req_1", usage=claude_usage(1, 10),
                         blocks=[{"type": "tool_use", "id": "toolu_1", "name": "Task", "input": {"subagent_type": "Explore"}}]),
        progress,
        task_result,
    ])
    claude_subagent_file(isolated_home, S, "abc1234", [sub_call])
    report = token_report(Scanner(home=isolated_home))
    (row,) = report.rows
    assert (row.own.input, row.own.output) == (1, 10)
    assert [(sub_id, t.input, t.cache_read, t.output) for sub_id, t in row.subagents] == [("abc1234", 5, 500, 50)]
    assert row.tokens.total == 11 + 555


def test_record_without_request_id_dedupes_by_message_id(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="msg_1", request_id=None, usage=claude_usage(2, 5)),
        claude_assistant(S, "2026-11-01T10:00:02Z", msg_id="msg_1", request_id=None, usage=claude_usage(2, 9)),
    ])
    assert totals(isolated_home) == {f"claude:{S}": (2, 0, 0, 9)}


def test_record_without_message_id_counts_as_is(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id=None, request_id=None, usage=claude_usage(1, 1)),
        claude_assistant(S, "2026-11-01T10:00:02Z", msg_id=None, request_id=None, usage=claude_usage(1, 1)),
    ])
    assert totals(isolated_home) == {f"claude:{S}": (2, 0, 0, 2)}


def test_sidechain_replay_of_a_parent_message_loses(isolated_home: Path) -> None:
    parent = claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="msg_1", request_id="req_1", usage=claude_usage(10, 100))
    replay = claude_assistant(S, "2026-11-01T10:00:09Z", msg_id="msg_1", request_id="req_side",
                              usage=claude_usage(10, 100), sidechain=True)
    claude_session_file(isolated_home, S, [parent])
    claude_subagent_file(isolated_home, S, "aside_question", [replay])
    assert totals(isolated_home) == {f"claude:{S}": (10, 0, 0, 100)}


def test_duplicates_across_sessions_count_once(isolated_home: Path) -> None:
    other = "99999999-2222-4333-8444-555555555555"
    call = claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="msg_1", request_id="req_1", usage=claude_usage(1, 10))
    claude_session_file(isolated_home, S, [call])
    claude_session_file(isolated_home, other, [{**call, "sessionId": other},
                                               claude_assistant(other, "2026-11-01T11:00:00Z", msg_id="msg_2",
                                                                request_id="req_2", usage=claude_usage(2, 20))])
    report = token_report(Scanner(home=isolated_home))
    assert report.total.input == 3 and report.total.output == 30


def test_synthetic_model_is_not_the_session_model(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 1), model="<synthetic>"),
        claude_assistant(S, "2026-11-01T10:00:02Z", msg_id="m2", request_id="r2", usage=claude_usage(1, 1), model="<synthetic>"),
        claude_assistant(S, "2026-11-01T10:00:03Z", msg_id="m3", request_id="r3", usage=claude_usage(1, 1), model="claude-opus-4-5"),
    ])
    scanner = Scanner(home=isolated_home)
    assert scanner.row(scanner.resolve(S)).model == "claude-opus-4-5"


def test_windowed_totals_never_count_a_far_copy_twice() -> None:
    from agentscan.providers.claude.dedupe import CallDeduper
    from agentscan.providers.claude.usage import call_of, C_INPUT, C_CACHE_READ, C_CACHE_WRITE, C_OUTPUT
    from agentscan.providers.claude.windowed import WindowedTotals

    records = [claude_assistant(S, f"2026-11-01T10:00:{i % 60:02d}Z", msg_id=f"m{i}", request_id=f"r{i}", usage=claude_usage(1, i))
               for i in range(50)]
    # A late copy of call 0 (beyond a window of 10) and a streamed pair inside the window.
    records.append(claude_assistant(S, "2026-11-01T11:00:00Z", msg_id="m0", request_id="r0", usage=claude_usage(1, 0)))
    records.append(claude_assistant(S, "2026-11-01T11:00:01Z", msg_id="m49", request_id="r49", usage=claude_usage(1, 500)))
    calls = [call_of(r, None, i) for i, r in enumerate(records)]
    windowed, exact = WindowedTotals(window=10), CallDeduper()
    for call in calls:
        windowed.add(call)
    exact.add_all(calls)
    exact_total = sum(c[C_INPUT] + c[C_CACHE_READ] + c[C_CACHE_WRITE] + c[C_OUTPUT] for c in exact.winners())
    assert windowed.total().total == exact_total == 50 + sum(range(49)) + 500


_CALL_RECORDS = st.builds(
    lambda mid, rid, side, tokens, agent, minute, progress, model: (
        {"type": "progress", "timestamp": "2026-11-01T10:00:00Z", "data": {"agentId": agent or "a1", "message": {
            "type": "assistant", "requestId": rid, "message": {"id": mid, "model": model, "usage": claude_usage(*tokens)}}}}
        if progress else
        {"type": "assistant", "isSidechain": side, "timestamp": f"2026-11-01T{10 + minute // 60:02d}:{minute % 60:02d}:00Z",
         "requestId": rid, "message": {"id": mid, "model": model, "usage": claude_usage(*tokens)}}, None if progress else agent),
    st.sampled_from(["m1", "m2", "m3", None]), st.sampled_from(["r1", "r2", None]), st.booleans(),
    st.tuples(*[st.integers(0, 40_000)] * 4), st.sampled_from([None, "a1", "a2"]), st.integers(0, 200), st.booleans(),
    st.sampled_from(["claude-opus-4-5", "claude-sonnet-4-5"]))


@settings(max_examples=200, deadline=None)
@given(records=st.lists(_CALL_RECORDS, max_size=40), transcripts=st.sets(st.sampled_from(["a1", "a2"])))
def test_windowed_sums_are_the_exact_sums_when_copies_are_close(records, transcripts) -> None:
    """Within its window, a row's sums are what ``tokens`` keeps for the session: the
    same deduplication, the same groups (so the same cost)."""
    from agentscan.model import TokenUsage
    from agentscan.providers.claude.dedupe import CallDeduper, packed_entries
    from agentscan.providers.claude.usage import call_of
    from agentscan.providers.claude.windowed import WindowedTotals
    from agentscan.scan.sessionsums import sums_of

    calls = [call for call in (call_of(record, agent, i) for i, (record, agent) in enumerate(records)) if call is not None]
    windowed, exact = WindowedTotals(window=len(calls) + 1), CallDeduper()
    for call in calls:
        windowed.add(call)
    exact.add_all(calls)
    entries = list(packed_entries(exact.winners(), S, transcripts))
    assert sorted(windowed.groups(transcripts), key=repr) == sorted(sums_of(entries), key=repr)
    per_agent: dict = {}
    for entry in entries:
        per_agent[entry[1]] = per_agent.get(entry[1], TokenUsage()) + TokenUsage(*entry[4:8])
    assert windowed.by_subagent() == {agent: usage for agent, usage in per_agent.items() if agent is not None}
    assert windowed.own() == per_agent.get(None)


_TIMES = st.one_of(
    st.builds(lambda d, h, m, ms: f"2026-03-{d:02d}T{h:02d}:{m:02d}:00.{ms:03d}Z", st.integers(1, 28), st.integers(0, 23),
              st.integers(0, 59), st.integers(0, 999)),
    st.builds(lambda d, h: f"2026-03-{d:02d}T{h:02d}:00:00+05:30", st.integers(1, 28), st.integers(0, 23)),
    st.builds(lambda d: f"2026-03-{d:02d} 12:00:00.000Z", st.integers(1, 28)),
    st.sampled_from(["2026-13-01T00:00:00.000Z", "2026-02-30T00:00:00.000Z", "2026-03-01T24:00:00.000Z",
                     "1970-01-01T23:59:59.999Z", "1970-01-02T00:00:00.000Z", "9997-12-31T23:59:59.999Z",
                     "2026-03-01T10:00:00,000Z", "2026-03-01T00:10:00+0130", "2026-03-28T23:59:00-0130",
                     "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.000Z",
                     "２０２６-03-01T00:00:00.000Z", "2026-03-01T00:00:00.000z", "garbage-not-a-time-stamp!", "", None, 17]),
)


@settings(max_examples=200, deadline=None)
@given(times=st.lists(_TIMES, max_size=30))
def test_the_first_and_last_times_are_the_earliest_and_latest_parsed(tmp_path_factory, times) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers.claude.row import summarize
    from agentscan.timeutil import parse_iso

    path = tmp_path_factory.mktemp("t") / "s.jsonl"
    path.write_bytes(b"".join(orjson.dumps({"type": "system", "timestamp": t}) + b"\n" for t in times) or b"\n")
    summary = summarize(path, ScanContext.create(home=path.parent, env={}))
    parsed = [p for p in map(parse_iso, times) if p is not None]
    assert (summary.first_ts, summary.last_ts) == ((min(parsed), max(parsed)) if parsed else (None, None))
