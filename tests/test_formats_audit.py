"""Audit of reference/formats.md: one test per documented trap that had no test of its own.

Each test builds a small fake home with the shared builders and asserts the exact
numbers or fields the rule implies, worked out by hand in a comment.  A test marked
``xfail(strict=True)`` records a rule agentscan breaks today (see its reason).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest

from agentscan.model import TokenUsage
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from builders import (
    claude_assistant,
    claude_base,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    cli_json,
    write_jsonl,
)
import codex_builders as cx
import gemini_builders as gm

UTC = timezone.utc
S = "aaaaaaaa-1111-4222-8333-444444444444"
S2 = "bbbbbbbb-1111-4222-8333-444444444444"


def _claude_totals(home: Path) -> dict[str, tuple[int, int, int, int]]:
    report = token_report(Scanner(home=home, provider_names=["claude"]), providers=["claude"])
    return {row.key: (row.tokens.input, row.tokens.cache_read, row.tokens.cache_write, row.tokens.output)
            for row in report.rows if row.tokens}


def _codex(home: Path) -> Scanner:
    return Scanner(home=home, provider_names=["codex"])


def _codex_rows(home: Path) -> dict:
    return {row.native_id: row for row in _codex(home).list_sessions()}


# --- Claude Code ---------------------------------------------------------------


def test_claude_sidechain_replay_loses_even_with_a_larger_total(isolated_home: Path) -> None:
    # formats 1.6 rule 5: a /btw (aside_question) log replays a PARENT message with the same
    # message.id under another requestId; the sidechain copy is dropped.  Here the replay's
    # snapshot is larger (output 500 vs 100), so "keep the largest copy" alone would take it
    # or count both.  Expected: only the parent's call, (in 10, cr 0, cw 0, out 100).
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "hi"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="msg_1", request_id="req_1", usage=claude_usage(10, 100)),
    ])
    claude_subagent_file(isolated_home, S, "aside_question", [
        claude_assistant(S, "2026-11-01T10:05:00Z", msg_id="msg_1", request_id="req_side",
                         usage=claude_usage(10, 500), sidechain=True),
    ])
    assert _claude_totals(isolated_home) == {f"claude:{S}": (10, 0, 0, 100)}


def test_claude_task_result_usage_alone_is_never_counted(isolated_home: Path) -> None:
    # formats 1.5/1.7: toolUseResult.usage / totalTokens of a Task result is the subagent's own
    # aggregate and is never added, even when there is no subagent file and no progress copy.
    # Only the parent's call counts: in 1 + out 10 = 11 (not 11 + 555).
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "delegate"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="msg_1", request_id="req_1", usage=claude_usage(1, 10),
                         blocks=[{"type": "tool_use", "id": "toolu_1", "name": "Task",
                                  "input": {"subagent_type": "Explore", "prompt": "look"}}]),
        {**claude_user(S, "2026-11-01T10:00:09Z", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "done"}]),
         "toolUseResult": {"status": "completed", "agentId": "abc1234", "totalTokens": 555,
                           "usage": claude_usage(5, 50, 0, 500)}},
    ])
    report = token_report(Scanner(home=isolated_home, provider_names=["claude"]), providers=["claude"])
    (row,) = report.rows
    assert (row.tokens.input, row.tokens.cache_read, row.tokens.output, row.tokens.total) == (1, 0, 10, 11)
    assert row.subagents == [] or all(t.total == 0 for _, t in row.subagents)


def test_claude_sessions_index_json_is_only_a_cache(isolated_home: Path) -> None:
    # formats 1.1: sessions-index.json is optional, a cache only.  An entry whose transcript is
    # gone is not a session, and the file itself is not a transcript: one session is listed.
    project = isolated_home / ".claude" / "projects" / "-home-dev-project"
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "real prompt"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(2, 3)),
    ])
    gone = "cccccccc-1111-4222-8333-444444444444"
    (project / "sessions-index.json").write_bytes(orjson.dumps({"version": 1, "originalPath": "/home/dev/project", "entries": [
        {"sessionId": gone, "fullPath": str(project / f"{gone}.jsonl"), "fileMtime": 1_790_000_000_000,
         "firstPrompt": "phantom", "summary": "Phantom", "messageCount": 4, "created": "2026-11-02T10:00:00Z",
         "modified": "2026-11-02T11:00:00Z", "gitBranch": "main", "projectPath": "/home/dev/project", "isSidechain": False},
    ]}))
    doc = cli_json("list", "--provider", "claude")
    assert [(r["native_id"], r["title"]) for r in doc["sessions"]] == [(S, "real prompt")]


def test_claude_cwd_comes_from_records_when_encoded_dirs_collide(isolated_home: Path) -> None:
    # formats 1.1: '/a/my_app' and '/a/my-app' both encode to '-a-my-app'.  Never decode the
    # dir name: each session's cwd is its records' cwd, and --cwd tells them apart.
    claude_session_file(isolated_home, S, [claude_user(S, "2026-11-01T10:00:00Z", "underscore", cwd="/a/my_app")],
                        project="-a-my-app")
    claude_session_file(isolated_home, S2, [claude_user(S2, "2026-11-01T11:00:00Z", "dash", cwd="/a/my-app")],
                        project="-a-my-app")
    rows = {r["native_id"]: r["cwd"] for r in cli_json("list", "--provider", "claude")["sessions"]}
    assert rows == {S: "/a/my_app", S2: "/a/my-app"}
    only = cli_json("list", "--provider", "claude", "--cwd", "/a/my_app")["sessions"]
    assert [r["native_id"] for r in only] == [S]


def test_claude_lines_without_session_id_or_timestamp_do_not_change_identity(isolated_home: Path) -> None:
    # formats 1.3/1.8: summary and file-history-snapshot lines carry no sessionId/timestamp;
    # queue-operation / last-prompt carry no uuid.  They lead the file here; the session is still
    # the file stem, started_at is the first record time, tokens are the one call (3 + 4 = 7).
    claude_session_file(isolated_home, S, [
        {"type": "summary", "summary": "Fix the parser", "leafUuid": "a1"},
        {"type": "file-history-snapshot", "messageId": "x", "snapshot": {"messageId": "x", "trackedFileBackups": {},
                                                                           "timestamp": "2026-11-01T09:00:00Z"},
         "isSnapshotUpdate": False},
        {"type": "queue-operation", "operation": "enqueue", "content": "fix it", "sessionId": S,
         "timestamp": "2026-11-01T10:00:00.000Z"},
        claude_user(S, "2026-11-01T10:00:00.500Z", "fix it", uuid="u1"),
        claude_assistant(S, "2026-11-01T10:00:02.000Z", msg_id="m1", request_id="r1", usage=claude_usage(3, 4),
                         uuid="a1", parentUuid="u1"),
        {"type": "last-prompt", "lastPrompt": "fix it", "leafUuid": "a1", "sessionId": S},
    ])
    (row,) = cli_json("list", "--provider", "claude")["sessions"]
    assert row["native_id"] == S
    assert row["title"] == "Fix the parser"  # the summary whose leaf (a1) is in this file
    assert row["started_at"] == "2026-11-01T10:00:00.000Z"
    assert row["updated_at"] == "2026-11-01T10:00:02.000Z"
    assert row["tokens"]["total"] == 7


def test_claude_huge_line_between_calls(isolated_home: Path) -> None:
    # formats 1.8: single lines can be huge (162 KB real; here a 3 MiB tool result).
    # Both calls around it count: in 1+2 = 3, out 10+20 = 30, total 33; one tool result, one prompt.
    big = "x" * (3 * 1024 * 1024)
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "read it"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 10),
                         blocks=[{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/big"}}]),
        claude_user(S, "2026-11-01T10:00:02Z", [{"type": "tool_result", "tool_use_id": "t1", "content": big}]),
        claude_assistant(S, "2026-11-01T10:00:03Z", msg_id="m2", request_id="r2", usage=claude_usage(2, 20)),
    ])
    (row,) = cli_json("list", "--provider", "claude")["sessions"]
    assert row["tokens"]["total"] == 33
    assert (row["counts"]["prompts"], row["counts"]["tool_calls"]) == (1, 1)


def _edited_prompt_session(home: Path) -> None:
    """u1 -> a1 -> u2 -> a2, then the user edits u2: u3 branches from a1 -> a3 (the live leaf)."""
    claude_session_file(home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "first question", uuid="u1"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(10, 1),
                         blocks=[{"type": "text", "text": "answer one"}], uuid="a1", parentUuid="u1"),
        claude_user(S, "2026-11-01T10:01:00Z", "second question", uuid="u2", parentUuid="a1"),
        claude_assistant(S, "2026-11-01T10:01:01Z", msg_id="m2", request_id="r2", usage=claude_usage(20, 2),
                         blocks=[{"type": "text", "text": "answer two"}], uuid="a2", parentUuid="u2"),
        claude_user(S, "2026-11-01T10:02:00Z", "second question, edited", uuid="u3", parentUuid="a1"),
        claude_assistant(S, "2026-11-01T10:02:01Z", msg_id="m3", request_id="r3", usage=claude_usage(30, 3),
                         blocks=[{"type": "text", "text": "answer three"}], uuid="a3", parentUuid="u3"),
        {"type": "last-prompt", "lastPrompt": "second question, edited", "leafUuid": "a3", "sessionId": S},
    ])


def test_claude_edited_prompt_branch_still_counts_in_tokens(isolated_home: Path) -> None:
    # contract "tokens means spend": the abandoned branch's call (m2) still counts.
    # in 10+20+30 = 60, out 1+2+3 = 6, total 66.
    _edited_prompt_session(isolated_home)
    assert _claude_totals(isolated_home) == {f"claude:{S}": (60, 0, 0, 6)}


def test_claude_show_displays_only_the_live_branch(isolated_home: Path) -> None:
    # formats 1.8: a rewind ("edit previous prompt") creates branches; last-prompt.leafUuid (a3)
    # picks the live one: a3 -> u3 -> a1 -> u1.  contract: show displays the live conversation.
    # u2 and a2 are the abandoned branch: 2 messages rewound (their call m2 still counts, above).
    _edited_prompt_session(isolated_home)
    detail = Scanner(home=isolated_home, provider_names=["claude"]).show(S)
    assert [p.text for p in detail.prompts] == ["first question", "second question, edited"]
    assert [r.text for r in detail.responses] == ["answer one", "answer three"]
    assert detail.extra["rewound_messages"] == 2


def test_claude_compact_boundary_keeps_both_sides_and_the_summary_is_no_prompt(isolated_home: Path) -> None:
    # formats 1.3/1.8: compact_boundary restarts at parentUuid null (logicalParentUuid links it);
    # the isCompactSummary user record that follows is injected text, not a prompt.  Calls on both
    # sides count: in 5+7 = 12, out 50+70 = 120.  Prompts: the two typed ones.
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "before compaction", uuid="u1"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(5, 50),
                         uuid="a1", parentUuid="u1"),
        {**claude_base(S, "2026-11-01T10:10:00Z", uuid="b1"), "type": "system", "subtype": "compact_boundary",
         "content": "Conversation compacted", "level": "info", "logicalParentUuid": "a1",
         "compactMetadata": {"trigger": "auto", "preTokens": 155}},
        claude_user(S, "2026-11-01T10:10:01Z", "This session is being continued from a previous conversation. Summary: …",
                    uuid="c1", parentUuid="b1", isCompactSummary=True, isVisibleInTranscriptOnly=True),
        claude_user(S, "2026-11-01T10:11:00Z", "after compaction", uuid="u2", parentUuid="c1"),
        claude_assistant(S, "2026-11-01T10:11:01Z", msg_id="m2", request_id="r2", usage=claude_usage(7, 70),
                         uuid="a2", parentUuid="u2"),
    ])
    assert _claude_totals(isolated_home) == {f"claude:{S}": (12, 0, 0, 120)}
    (row,) = cli_json("list", "--provider", "claude")["sessions"]
    assert row["title"] == "before compaction"
    assert row["counts"]["prompts"] == 2


@pytest.mark.parametrize(("cwd", "project"), [("C:\\git\\cc-plus", "C--git-cc-plus"), ("/home/d\u00e9v/app", "-home-d-v-app")])
def test_claude_windows_and_non_ascii_cwds_are_kept_verbatim(isolated_home: Path, cwd: str, project: str) -> None:
    # formats 1.1/1.8: C:\git\cc-plus encodes to 'C--git-cc-plus', and a non-ASCII character
    # becomes '-'; the dir name is never decoded: the cwd is the record's, byte for byte.
    claude_session_file(isolated_home, S, [claude_user(S, "2026-11-01T10:00:00Z", "hi", cwd=cwd)], project=project)
    (row,) = cli_json("list", "--provider", "claude")["sessions"]
    assert row["cwd"] == cwd


def test_claude_equal_copies_prefer_the_one_with_speed(isolated_home: Path) -> None:
    # formats 1.6 rule 2: on a tie of totals, keep the copy that has usage.speed.  The two copies
    # of (m1, r1) have equal totals (3+13+100+1000 = 1116) and straddle midnight UTC; the one
    # with 'speed' is the later one, so the call belongs to 2026-11-02, not 2026-11-01.
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T23:59:58Z", "late"),
        claude_assistant(S, "2026-11-01T23:59:59Z", msg_id="m1", request_id="r1", usage=claude_usage(3, 13, 100, 1000)),
        claude_assistant(S, "2026-11-02T00:00:01Z", msg_id="m1", request_id="r1",
                         usage=claude_usage(3, 13, 100, 1000, speed="standard")),
    ])
    report = token_report(Scanner(home=isolated_home, provider_names=["claude"]), providers=["claude"], by="day", tz=UTC)
    assert [(row.key, row.tokens.total) for row in report.rows] == [("2026-11-02", 1116)]


def test_claude_subagent_type_is_correlated_from_the_parent_task(isolated_home: Path) -> None:
    # formats 1.7: subagent files do not reliably say their subagent_type: correlate the parent's
    # Task tool_use (id toolu_1, subagent_type Explore) with the result's toolUseResult.agentId.
    # No .meta.json here.  Subagent tokens: 4 + 6 = 10; own 1 + 2 = 3; total 13.
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "look around"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 2),
                         blocks=[{"type": "tool_use", "id": "toolu_1", "name": "Task",
                                  "input": {"subagent_type": "Explore", "description": "scan", "prompt": "scan the repo"}}]),
        {**claude_user(S, "2026-11-01T10:00:09Z", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "done"}]),
         "toolUseResult": {"status": "completed", "agentId": "a881341"}},
    ])
    claude_subagent_file(isolated_home, S, "a881341", [
        claude_user(S, "2026-11-01T10:00:02Z", "scan the repo", sidechain=True, agentId="a881341"),
        claude_assistant(S, "2026-11-01T10:00:03Z", msg_id="s1", request_id="rs1", usage=claude_usage(4, 6),
                         sidechain=True, agentId="a881341"),
    ])
    detail = Scanner(home=isolated_home, provider_names=["claude"]).show(S)
    assert [(sub.id, sub.agent_type, sub.tokens.total) for sub in detail.subagents] == [("a881341", "Explore", 10)]
    assert detail.row.tokens.total == 13


def test_claude_workflow_journal_is_not_a_subagent(isolated_home: Path) -> None:
    # formats 1.1: subagents/workflows/<wf_id>/ holds agent-<id>.jsonl files plus journal.jsonl;
    # only the agent file is a subagent transcript.  Tokens: 1 + 1 = 2, one subagent.
    claude_session_file(isolated_home, S, [claude_user(S, "2026-11-01T10:00:00Z", "parent")])
    wf = isolated_home / ".claude" / "projects" / "-home-dev-project" / S / "subagents" / "workflows" / "wf_1"
    write_jsonl(wf / "agent-x1.jsonl", [claude_assistant(S, "2026-11-01T10:00:05Z", msg_id="m", request_id="r",
                                                          usage=claude_usage(1, 1), sidechain=True, agentId="x1")])
    write_jsonl(wf / "journal.jsonl", [{"type": "workflow_step", "workflowId": "wf_1", "agentId": "x1",
                                        "status": "completed", "timestamp": "2026-11-01T10:00:06Z"}])
    (row,) = Scanner(home=isolated_home, provider_names=["claude"]).list_sessions()
    assert (row.subagents, row.tokens.total) == (1, 2)


# --- Codex CLI -----------------------------------------------------------------

T = "019c3333-0000-7000-8000-00000000000a"


def test_codex_two_identical_calls_both_count(isolated_home: Path) -> None:
    # formats 2.6: skip an event whose CUMULATIVE total did not change, not one whose delta repeats.
    # Two real calls with the same last_token_usage (1000 in, 0 cached, 100 out): totals 1100 and
    # 2200, so both count: input 2000, output 200, total 2200.  The re-emit of 2200 is skipped.
    calls = cx.Calls()
    first, second = calls.call(cx.at(5), 1000, 0, 100), calls.call(cx.at(9), 1000, 0, 100)
    cx.write_rollout(cx.rollout_path(isolated_home / ".codex", T, cx.at(0)), [
        cx.meta(T, cx.at(0)), cx.turn_context(cx.at(1)), cx.user_message(cx.at(1), "twice"),
        first, second, {**second, "timestamp": cx.iso(cx.at(10))},
    ])
    row = _codex_rows(isolated_home)[T]
    assert (row.tokens.input, row.tokens.output, row.tokens.total) == (2000, 200, 2200)


def test_codex_pre_envelope_rollout_is_a_session(isolated_home: Path) -> None:
    # formats 2.2: mid-2025 rollouts: line 1 is a bare header {id, timestamp, instructions, git?},
    # then {"record_type":"state"} markers and bare response items (no payload, no timestamp).
    # Identity is the header's id and started_at its timestamp.
    path = cx.rollout_path(isolated_home / ".codex", T, cx.at(0))
    cx.write_rollout(path, [
        {"id": T, "timestamp": "2026-03-02T09:00:00.000Z", "instructions": None,
         "git": {"commit_hash": "0" * 40, "branch": "old-main", "repository_url": "https://example.invalid/r.git"}},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list the files"}]},
        {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": "{\"output\":\"a\\nb\\n\"}"},
        {"record_type": "state"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "two files"}]},
    ])
    rows = _codex_rows(isolated_home)
    assert set(rows) == {T}
    row = rows[T]
    assert row.started_at == cx.at(0)
    assert row.git_branch == "old-main"
    assert row.tokens is None  # no token_count in this format: null, not zeros


def test_codex_session_id_alias_in_session_meta(isolated_home: Path) -> None:
    # formats 2.3: newer builds may name the id 'session_id' ("the reader accepts either").
    line = cx.meta(T, cx.at(0), cwd="/work/alias")
    payload = dict(line["payload"])
    payload["session_id"] = payload.pop("id")
    calls = cx.Calls()
    cx.write_rollout(cx.rollout_path(isolated_home / ".codex", T, cx.at(0)), [
        {**line, "payload": payload}, cx.turn_context(cx.at(1)), cx.user_message(cx.at(1), "hello"),
        calls.call(cx.at(5), 100, 40, 10),
    ])
    row = _codex_rows(isolated_home)[T]
    # input 100-40 = 60, cache_read 40, output 10: total 110
    assert (row.cwd, row.title, row.tokens.total) == ("/work/alias", "hello", 110)


def test_codex_file_name_local_time_is_not_the_start_time(isolated_home: Path) -> None:
    # formats 2.1: the dir date and file-name time are LOCAL (here a UTC+10 clock: 19:00 on
    # 2026-03-02 local = 09:00Z); JSON timestamps are UTC.  started_at comes from the meta.
    local = datetime(2026, 3, 2, 19, 0, 0)
    name = f"rollout-{local.strftime('%Y-%m-%dT%H-%M-%S')}-{T}.jsonl"
    path = isolated_home / ".codex" / "sessions" / "2026" / "03" / "02" / name
    cx.write_rollout(path, [cx.meta(T, cx.at(0)), cx.user_message(cx.at(1), "hi")])
    (row,) = cli_json("list", "--provider", "codex")["sessions"]
    assert row["started_at"] == "2026-03-02T09:00:00.000Z"


def test_codex_model_per_call_is_the_last_turn_context(isolated_home: Path) -> None:
    # formats 2.4/2.6: the model of a token_count event is the last turn_context.model seen.
    # call 1 under gpt-5-codex: (1000 in, 200 cached, 100 out) -> 800 + 200 + 100 = 1100;
    # call 2 under gpt-5-mini:  (500 in, 0 cached, 50 out)     -> 500 + 0 + 50 = 550.
    calls = cx.Calls()
    cx.write_rollout(cx.rollout_path(isolated_home / ".codex", T, cx.at(0)), [
        cx.meta(T, cx.at(0)),
        cx.turn_context(cx.at(1), "gpt-5-codex"), cx.user_message(cx.at(1), "one"),
        calls.call(cx.at(5), 1000, 200, 100),
        cx.turn_context(cx.at(10), "gpt-5-mini"), cx.turn_context(cx.at(10), "gpt-5-mini"),  # repeated in a turn
        cx.user_message(cx.at(10), "two"),
        calls.call(cx.at(15), 500, 0, 50),
    ])
    report = token_report(_codex(isolated_home), providers=["codex"], by="model")
    assert {row.key: row.tokens.total for row in report.rows} == {"gpt-5-codex": 1100, "gpt-5-mini": 550}
    assert report.total.total == 1650


def test_codex_compaction_keeps_earlier_lines_and_counts_each_call_once(isolated_home: Path) -> None:
    # formats 2.7: a 'compacted' line (with replacement_history) does not remove the lines written
    # before it; cumulative token_count keeps growing.  Calls: (1000,0,100) and (300,200,30):
    # input 1000 + 100 = 1100, cache_read 200, output 130, total 1430.  Prompts: the two typed.
    calls = cx.Calls()
    cx.write_rollout(cx.rollout_path(isolated_home / ".codex", T, cx.at(0)), [
        cx.meta(T, cx.at(0)), cx.turn_context(cx.at(1)),
        cx.user_item(cx.at(1), "first ask"), cx.user_message(cx.at(1), "first ask"),
        calls.call(cx.at(5), 1000, 0, 100),
        cx.line(cx.at(20), "compacted", {"message": "summary", "replacement_history": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "first ask"}]},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "summary"}]},
        ]}),
        cx.line(cx.at(20), "event_msg", {"type": "context_compacted"}),
        cx.user_item(cx.at(30), "second ask"), cx.user_message(cx.at(30), "second ask"),
        calls.call(cx.at(35), 300, 200, 30),
    ])
    row = _codex_rows(isolated_home)[T]
    assert (row.tokens.input, row.tokens.cache_read, row.tokens.output, row.tokens.total) == (1100, 200, 130, 1430)
    assert row.counts.prompts == 2
    assert row.title == "first ask"


def test_codex_index_times_in_milliseconds_are_read_as_milliseconds(isolated_home: Path) -> None:
    # formats 2.8: created_at/updated_at are epoch seconds, but some builds stored ms (values
    # >= 1577836800000); a table without the *_ms columns must still give the right instant.
    # updated = T0 + 1000 s = 2026-03-02T09:16:40Z (newer than the rollout, so the index's wins).
    codex = isolated_home / ".codex"
    calls = cx.Calls()
    path = cx.write_rollout(cx.rollout_path(codex, T, cx.at(0)), [
        cx.meta(T, cx.at(0)), cx.turn_context(cx.at(1)), cx.user_message(cx.at(1), "ms times"),
        calls.call(cx.at(5), 100, 0, 10)], mtime=cx.at(5).timestamp())
    columns = ("id TEXT PRIMARY KEY", "rollout_path TEXT NOT NULL", "created_at INTEGER NOT NULL",
               "updated_at INTEGER NOT NULL", "source TEXT NOT NULL", "model_provider TEXT NOT NULL",
               "cwd TEXT NOT NULL", "title TEXT NOT NULL", "sandbox_policy TEXT NOT NULL",
               "approval_mode TEXT NOT NULL", "tokens_used INTEGER NOT NULL DEFAULT 0")
    cx.write_state_db(codex / "state_5.sqlite", [{
        "id": T, "rollout_path": str(path), "created_at": int(cx.at(0).timestamp() * 1000),
        "updated_at": int(cx.at(1000).timestamp() * 1000), "source": "cli", "model_provider": "openai",
        "cwd": "/work/project", "title": "", "sandbox_policy": "", "approval_mode": "", "tokens_used": 110}],
        columns=columns)
    (row,) = cli_json("list", "--provider", "codex")["sessions"]
    assert row["started_at"] == "2026-03-02T09:00:00.000Z"
    assert row["updated_at"] == "2026-03-02T09:16:40.000Z"
    assert row["tokens"]["total"] == 110


def test_codex_index_subagent_source_as_json_string(isolated_home: Path) -> None:
    # formats 2.8: threads.source can be a JSON string {"subagent":{"thread_spawn":{parent_thread_id…}}}.
    # The child rolls into the parent: parent 1000+100 = 1100, child 200+20 = 220, one row, 1320.
    codex = isolated_home / ".codex"
    parent, child = T, "019c3333-0000-7000-8000-00000000000b"
    pc, cc = cx.Calls(), cx.Calls()
    ppath = cx.write_rollout(cx.rollout_path(codex, parent, cx.at(0)), [
        cx.meta(parent, cx.at(0)), cx.turn_context(cx.at(1)), cx.user_message(cx.at(1), "parent ask"),
        pc.call(cx.at(5), 1000, 0, 100)], mtime=cx.at(5).timestamp())
    # the child's own meta does not say it is a subagent: only the index does
    cpath = cx.write_rollout(cx.rollout_path(codex, child, cx.at(2)), [
        cx.meta(child, cx.at(2)), cx.turn_context(cx.at(3)), cx.user_message(cx.at(3), "child ask"),
        cc.call(cx.at(4), 200, 0, 20)], mtime=cx.at(4).timestamp())
    source = orjson.dumps({"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}}).decode()
    cx.write_state_db(codex / "state_5.sqlite", [
        cx.index_row(parent, ppath, created=cx.at(0), updated=cx.at(5)),
        cx.index_row(child, cpath, created=cx.at(2), updated=cx.at(4), source=source),
    ])
    doc = cli_json("tokens", "--provider", "codex")
    assert [(r["key"], r["tokens"]["total"]) for r in doc["rows"]] == [(f"codex:{parent}", 1320)]
    assert [s["tokens"]["total"] for s in doc["rows"][0]["subagents"]] == [220]


def test_codex_function_output_array_form_is_read_like_the_string_form(isolated_home: Path) -> None:
    # formats 2.5: function_call_output.output is a string in old builds and an object/array in new
    # ones.  The same result "Exit code: 1 ..." as a string (c1), as an array of input_text content
    # items (c2) must give the same status; an object with metadata.exit_code 0 (c3) is ok.
    text = "Exit code: 1\nWall time: 0.1 seconds\nOutput:\n"
    cx.write_rollout(cx.rollout_path(isolated_home / ".codex", T, cx.at(0)), [
        cx.meta(T, cx.at(0)), cx.turn_context(cx.at(1)), cx.user_message(cx.at(1), "run"),
        cx.function_call(cx.at(2), "shell", {"command": ["false"]}, "c1"),
        cx.function_output(cx.at(3), "c1", text),
        cx.function_call(cx.at(4), "shell", {"command": ["false"]}, "c2"),
        cx.function_output(cx.at(5), "c2", [{"type": "input_text", "text": text}]),
        cx.function_call(cx.at(6), "shell", {"command": ["true"]}, "c3"),
        cx.function_output(cx.at(7), "c3", {"output": "", "metadata": {"exit_code": 0}}),
    ])
    detail = _codex(isolated_home).show(T)
    assert [(t.summary, t.status) for t in detail.tools] == [("false", "error"), ("false", "error"), ("true", "ok")]


# --- Gemini CLI ----------------------------------------------------------------

G = "dddddddd-aaaa-4bbb-8ccc-000000000001"


def test_gemini_last_copy_wins_even_when_its_tokens_differ_and_order_is_first_seen(isolated_home: Path) -> None:
    # formats 3.3: the same id is appended again whenever the message changes; keep the LAST
    # line per id, in FIRST-seen order.  g1's first copy (100 in, 10 out) is a partial
    # snapshot; its last copy has (1000 in, 200 cached, 100 out, 50 thoughts, 10 tool).
    # Tokens: input 1000-200+10 = 810, cached 200, output 100+50 = 150, reasoning 50,
    # total 1160 (= Gemini's total 1000+100+50+10); g2 (20 in, 5 out) adds 25 -> 1185.
    gm.write_chat(isolated_home, "proj", "session-2026-05-01T10-00-dddddddd.jsonl", [
        gm.meta(G),
        gm.user("u1", "2026-05-01T10:00:01.000Z", "first"),
        gm.gemini("g1", "2026-05-01T10:00:02.000Z", "draft", usage=gm.tokens(100, 10)),
        gm.user("u2", "2026-05-01T10:00:05.000Z", "second"),
        gm.gemini("g2", "2026-05-01T10:00:06.000Z", "reply two", usage=gm.tokens(20, 5)),
        gm.gemini("g1", "2026-05-01T10:00:02.000Z", "reply one",
                  usage=gm.tokens(1000, 100, cached=200, thoughts=50, tool=10)),
    ])
    scanner = Scanner(home=isolated_home, provider_names=["gemini"])
    (row,) = scanner.list_sessions()
    assert row.tokens == TokenUsage(input=830, cache_read=200, cache_write=0, output=155, reasoning=50)
    assert row.tokens.total == 1185
    detail = scanner.show(G)
    assert [r.text for r in detail.responses] == ["reply one", "reply two"]


def test_gemini_info_error_warning_messages_are_not_prompts_or_responses(isolated_home: Path) -> None:
    # formats 3.4: MessageRecord type is user|gemini|info|error|warning; info messages are UI
    # notices.  Only u1 is a prompt and g1 a response; tokens only from g1: 10 + 5 = 15.
    gm.write_chat(isolated_home, "proj", "session-2026-05-01T10-00-dddddddd.jsonl", [
        gm.meta(G),
        {"id": "i1", "timestamp": "2026-05-01T10:00:00.500Z", "type": "info", "content": "Switched to fallback model"},
        gm.user("u1", "2026-05-01T10:00:01.000Z", "hello"),
        {"id": "w1", "timestamp": "2026-05-01T10:00:01.500Z", "type": "warning", "content": "Quota at 90%"},
        gm.gemini("g1", "2026-05-01T10:00:02.000Z", "hi", usage=gm.tokens(10, 5)),
        {"id": "e1", "timestamp": "2026-05-01T10:00:03.000Z", "type": "error", "content": "[API Error: 500]"},
    ])
    scanner = Scanner(home=isolated_home, provider_names=["gemini"])
    (row,) = scanner.list_sessions()
    assert (row.title, row.counts.prompts, row.counts.responses) == ("hello", 1, 1)
    assert row.tokens is not None and row.tokens.total == 15
    detail = scanner.show(G)
    assert [p.text for p in detail.prompts] == ["hello"]
    assert [r.text for r in detail.responses] == ["hi"]


def test_gemini_start_time_comes_from_the_record_not_the_file_name(isolated_home: Path) -> None:
    # formats 3.1: the file name holds the UTC start MINUTE (session-2026-05-01T10-00-…); the
    # record's startTime is exact: 2026-05-01T10:00:42.250Z.  A name written in another minute
    # (here 09-59) never moves started_at.
    gm.write_chat(isolated_home, "proj", "session-2026-05-01T09-59-dddddddd.jsonl", [
        gm.meta(G, start="2026-05-01T10:00:42.250Z"),
        gm.user("u1", "2026-05-01T10:00:43.000Z", "hello"),
    ])
    (row,) = cli_json("list", "--provider", "gemini")["sessions"]
    assert row["started_at"] == "2026-05-01T10:00:42.250Z"


def test_gemini_set_summary_and_last_updated(isolated_home: Path) -> None:
    # formats 3.3: {"$set": {...}} lines update metadata (lastUpdated, summary, ...); they are not
    # messages and carry no tokens.  One prompt, one response, tokens 10+5 = 15.
    gm.write_chat(isolated_home, "proj", "session-2026-05-01T10-00-dddddddd.jsonl", [
        gm.meta(G),
        gm.user("u1", "2026-05-01T10:00:01.000Z", "hello"),
        gm.gemini("g1", "2026-05-01T10:00:02.000Z", "hi", usage=gm.tokens(10, 5)),
        gm.set_(lastUpdated="2026-05-01T10:30:00.000Z", summary="Greeting"),
    ])
    (row,) = Scanner(home=isolated_home, provider_names=["gemini"]).list_sessions()
    assert (row.counts.prompts, row.counts.responses) == (1, 1)
    assert row.tokens is not None and row.tokens.total == 15
    assert row.updated_at == datetime(2026, 5, 1, 10, 30, tzinfo=UTC)


# --- Cursor --------------------------------------------------------------------

C = "c0c0c0c0-0000-4000-8000-000000000001"


def test_cursor_other_key_families_are_not_sessions_and_bubbles_sum(isolated_home: Path) -> None:
    # formats 4.3: cursorDiskKV also holds checkpointId:<composer>:<id>, agentKv:blob:<hash>,
    # codeBlockDiff:*, inlineDiffs-* rows; none is a session and none carries tokens.  One
    # composer, bubbles (100 in, 40 out) + (7, 3): input 107, output 43, total 150.
    import cursor_builders as cu

    cu.make_state_db(
        cu.state_db_path(isolated_home),
        composers=[cu.composer_data(C, name="Only one", created=1_785_000_000_000, updated=1_785_000_060_000,
                                    bubbles=["u", "a1", "a2"])],
        bubbles={C: [cu.bubble("u", 1, "do it", created="2026-07-25T17:20:01Z"),
                     cu.bubble("a1", 2, "done", tokens=(100, 40), created="2026-07-25T17:20:05Z"),
                     cu.bubble("a2", 2, "more", tokens=(7, 3), created="2026-07-25T17:20:09Z")]},
        raw_rows=[
            (f"checkpointId:{C}:ck1", orjson.dumps({"files": [], "tokenCount": {"inputTokens": 999, "outputTokens": 999}})),
            ("agentKv:blob:" + "ab" * 32, orjson.dumps({"role": "user", "content": "hi",
                                                        "providerOptions": {"cursor": {"requestId": "r"}}})),
            ("codeBlockDiff:" + C + ":x", orjson.dumps({"newModelDiffWrtV0": []})),
            ("inlineDiffs-workspace", orjson.dumps([])),
        ],
    )
    rows = Scanner(home=isolated_home, provider_names=["cursor"]).list_sessions()
    assert [(r.native_id, r.title, r.tokens.input, r.tokens.output, r.tokens.total) for r in rows] == \
        [(C, "Only one", 107, 43, 150)]
    assert rows[0].started_at == datetime(2026, 7, 25, 17, 20, tzinfo=UTC)  # createdAt is epoch ms
