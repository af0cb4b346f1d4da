"""Claude Code: subagent calls recovered from progress copies, orphan subagents,
titles and branches (issue 17).

Expected numbers are hand counts of the files, written beside each test.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from agentscan.model import TokenUsage
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from builders import (
    REAL,
    claude_assistant,
    claude_base,
    claude_progress,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    lay_out_real_claude,
)

SPOTTER = "491e126e-1e71-469c-ade2-fcc8af567c74"  # spotter-agent-progress: subagent afb92ff has no transcript
GQC = "258c7280-ae70-4798-800f-63464d01a85d"  # subagent a881341's transcript is present
S = "aaaaaaaa-1111-4222-8333-444444444444"


def _lay_out_spotter(home: Path) -> None:
    target = home / ".claude" / "projects" / "-home-marco-projects-spotter" / f"{SPOTTER}.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copyfile(REAL / "claude" / "spotter-agent-progress-v2.1.38.trimmed.jsonl", target)


def test_missing_subagent_is_recovered_from_progress_copies(isolated_home: Path) -> None:
    _lay_out_spotter(isolated_home)
    report = token_report(Scanner(), by="session")
    (row,) = report.rows
    # Own part = ccusage 20.0.24 `session` (input, cache_read, cache_write, output).
    assert row.own == TokenUsage(1568, 179771, 18313, 1112)
    # Hand count of the 5 distinct progress copies (lines 38, 44, 48, 52, 54;
    # tests/test_claude_real.py lists them): 24 input, 95343 cache read,
    # 14285 cache write, 7 output.
    assert row.subagents == (("afb92ff", TokenUsage(24, 95343, 14285, 7)),)
    # Priced like any call (tests/test_claude_real.py: $0.0381633).
    assert row.to_json()["subagents"] == [
        {"id": "afb92ff", "tokens": TokenUsage(24, 95343, 14285, 7).to_json(), "cost_usd": 0.0381633,
         "cost_usd_priced": 0.0381633, "recovered_from": "progress"}
    ]
    assert row.tokens.total == 1568 + 179771 + 18313 + 1112 + 24 + 95343 + 14285 + 7


def test_recovered_subagent_in_list_and_show(isolated_home: Path) -> None:
    _lay_out_spotter(isolated_home)
    scanner = Scanner()
    (row,) = scanner.list_sessions()
    assert row.subagents == 1
    assert (row.tokens.input, row.tokens.cache_read, row.tokens.cache_write, row.tokens.output) == (
        1568 + 24, 179771 + 95343, 18313 + 14285, 1112 + 7)
    detail = scanner.show(SPOTTER)
    (sub,) = detail.subagents
    assert (sub.id, sub.path, sub.recovered_from) == ("afb92ff", None, "progress")
    assert sub.tokens == TokenUsage(24, 95343, 14285, 7)
    assert detail.to_json()["subagents"][0]["recovered_from"] == "progress"
    assert "parent_missing" not in detail.to_json()


def _without_progress(path: Path) -> None:
    kept = [line for line in path.read_bytes().splitlines(keepends=True) if orjson.loads(line).get("type") != "progress"]
    path.write_bytes(b"".join(kept))


def test_present_subagent_transcript_counts_each_call_once(isolated_home: Path, tmp_path: Path) -> None:
    # The parent's 2 progress copies (msg_013qape6…: 3 in, 12118 cache write,
    # 1 out; msg_01QkE2pt…: 6 in, 12118 cache read, 9923 cache write, 1 out)
    # are both in agent-a881341.jsonl with the same totals: counting them again
    # would add 34,170 tokens.  Removing the progress lines changes nothing.
    lay_out_real_claude(isolated_home)
    with_copies = token_report(Scanner(), ids=[GQC]).to_json()
    other_home = tmp_path / "other"
    lay_out_real_claude(other_home)
    parent = next((other_home / ".claude" / "projects").rglob(f"{GQC}.jsonl"))
    _without_progress(parent)
    without_copies = token_report(Scanner(home=other_home), ids=[GQC]).to_json()
    assert with_copies == without_copies
    (row,) = with_copies["rows"]
    assert [(s["id"], s["recovered_from"]) for s in row["subagents"]] == [("a881341", None), ("acompact-fffbd0", None)]
    # ccusage 20.0.24 `session` total for the session (tests/test_claude_real.py).
    assert row["tokens"]["total"] == 24 + 324234 + 58326 + 655


def _delegating_home(home: Path, *, with_transcript: bool) -> None:
    sub_call_1 = claude_assistant(S, "2026-11-01T10:00:03Z", msg_id="s1", request_id="q1", sidechain=True,
                                  usage=claude_usage(input=1, output=2, cache_write=100), agentId="abc1234")
    sub_call_1_final = claude_assistant(S, "2026-11-01T10:00:03Z", msg_id="s1", request_id="q1", sidechain=True,
                                        usage=claude_usage(input=1, output=40, cache_write=100), agentId="abc1234")
    sub_call_2 = claude_assistant(S, "2026-11-01T10:00:04Z", msg_id="s2", request_id="q2", sidechain=True,
                                  usage=claude_usage(input=3, output=5, cache_read=100), agentId="abc1234")
    claude_session_file(home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "delegate it"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(input=10, output=5),
                         blocks=[{"type": "tool_use", "id": "toolu_task", "name": "Task",
                                  "input": {"subagent_type": "Explore", "prompt": "look"}}]),
        # The parent copied the subagent's first call twice (a streaming
        # snapshot with output 2), and its second call once.
        claude_progress(S, "2026-11-01T10:00:03Z", "abc1234", sub_call_1),
        claude_progress(S, "2026-11-01T10:00:03Z", "abc1234", sub_call_1),
        claude_progress(S, "2026-11-01T10:00:04Z", "abc1234", sub_call_2),
        # No agentId: cannot be attributed, never counted.
        claude_progress(S, "2026-11-01T10:00:05Z", None,
                        claude_assistant(S, "2026-11-01T10:00:05Z", msg_id="s9", request_id="q9", usage=claude_usage(input=1000))),
        # A copy of a user record carries no usage.
        claude_progress(S, "2026-11-01T10:00:05Z", "abc1234", claude_user(S, "2026-11-01T10:00:05Z", "tool output")),
    ])
    if with_transcript:
        claude_subagent_file(home, S, "abc1234", [
            claude_user(S, "2026-11-01T10:00:02Z", "look", sidechain=True, agentId="abc1234"),
            sub_call_1, sub_call_1_final, sub_call_2,
        ])


@pytest.mark.parametrize("use_cache", [False, True])
def test_progress_copies_and_transcript_count_once_keeping_the_largest(isolated_home: Path, use_cache: bool) -> None:
    _delegating_home(isolated_home, with_transcript=True)
    for _ in range(2 if use_cache else 1):  # the second pass is served from the cache
        with Scanner(use_cache=use_cache) as scanner:
            (row,) = token_report(scanner).rows
            listed = scanner.row(scanner.resolve(S))
    # own: m1 = 10 + 5.  abc1234: s1 final copy (1 + 40 + 100 cache write)
    # + s2 (3 + 5 + 100 cache read) = 249.  s9 (no agentId) counts nothing.
    assert row.own == TokenUsage(input=10, output=5)
    assert row.subagents == (("abc1234", TokenUsage(input=4, cache_read=100, cache_write=100, output=45)),)
    assert row.recovered == ()
    assert listed.tokens.total == 15 + 249
    assert listed.subagents == 1


@pytest.mark.parametrize("use_cache", [False, True])
def test_progress_copies_alone_count_once_keeping_the_largest_copy(isolated_home: Path, use_cache: bool) -> None:
    _delegating_home(isolated_home, with_transcript=False)
    for _ in range(2 if use_cache else 1):
        with Scanner(use_cache=use_cache) as scanner:
            (row,) = token_report(scanner).rows
            listed = scanner.row(scanner.resolve(S))
            detail = scanner.show(S)
    # abc1234 from the parent's copies only: s1 as copied (1 + 2 + 100 cache
    # write, twice: counted once) + s2 (3 + 5 + 100 cache read) = 211.
    assert row.subagents == (("abc1234", TokenUsage(input=4, cache_read=100, cache_write=100, output=7)),)
    assert row.recovered == (("abc1234", "progress"),)
    assert listed.tokens.total == 15 + 211
    assert listed.subagents == 1
    (sub,) = detail.subagents
    assert (sub.id, sub.agent_type, sub.path, sub.recovered_from) == ("abc1234", None, None, "progress")
    assert sub.tokens.total == 211


# --- titles and branches ------------------------------------------------------


def _summary(text: str, leaf: str) -> dict:
    return {"type": "summary", "summary": text, "leafUuid": leaf}


def _title_of(home: Path, records: list) -> str | None:
    claude_session_file(home, S, records)
    scanner = Scanner()
    return scanner.row(scanner.resolve(S)).title


def test_summary_of_this_conversation_names_the_session(isolated_home: Path) -> None:
    records = [
        _summary("About this session", "leaf-here"),
        _summary("About another session", "leaf-elsewhere"),
        claude_user(S, "2026-11-01T10:00:00Z", "first prompt", uuid="u1"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=None, uuid="leaf-here"),
        {"type": "ai-title", "aiTitle": "AI title", "sessionId": S},
    ]
    assert _title_of(isolated_home, records) == "About this session"


def test_a_summary_whose_leaf_is_elsewhere_yields_to_the_first_prompt(isolated_home: Path, tmp_path: Path) -> None:
    # Claude Code has written summaries of other sessions into the one it was starting
    # (claude-code issue 2597; the real checkpoints below): one whose leaf is not here names
    # the session only when nothing else does, the latest of them then.
    records = [
        _summary("Older summary", "x1"),
        _summary("Newer summary", "x2"),
        claude_user(S, "2026-11-01T10:00:00Z", "first prompt"),
    ]
    assert _title_of(isolated_home, records) == "first prompt"
    other = tmp_path / "h2"
    claude_session_file(other, S, records[:2] + [claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1",
                                                                    request_id="r1", usage=None)])
    scanner = Scanner(home=other)
    assert scanner.row(scanner.resolve(S)).title == "Newer summary"


def test_custom_title_beats_summary_and_summary_beats_ai_title(isolated_home: Path, tmp_path: Path) -> None:
    base = [_summary("The summary", "x1"), claude_user(S, "2026-11-01T10:00:00Z", "first prompt", uuid="x1"),
            {"type": "ai-title", "aiTitle": "AI title", "sessionId": S}]
    assert _title_of(isolated_home, base) == "The summary"
    other = tmp_path / "h2"
    claude_session_file(other, S, base + [{"type": "custom-title", "customTitle": "Renamed", "sessionId": S}])
    scanner = Scanner(home=other)
    assert scanner.row(scanner.resolve(S)).title == "Renamed"


def test_real_checkpoints_are_named_by_their_own_first_prompt_not_other_sessions_summaries(isolated_home: Path) -> None:
    lay_out_real_claude(isolated_home)
    scanner = Scanner()
    titles = {row.native_id: row.title for row in scanner.list_sessions(limit=25)}
    # entire-checkpoint-ee8f…: 2 summary records ("Test repo skill with manual and auto-commit
    # strategies"), no leaf in the file: another session's; this one asked about a release.
    assert titles["488c5296-fc78-4fdf-8cfd-f1cae9454bd0"].startswith(
        "I just tried to make a release with the .github/workflows/release.yml through go release")
    # entire-checkpoint-3799…: 16 summary records, none with a leaf here.
    assert titles["48f428f9-72d8-40b2-9594-953019809473"].startswith("brews is being phased out in favor of homebrew_casks")


def test_git_branch_is_the_branch_the_session_ended_on(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "start", gitBranch="main"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=None, gitBranch="feature/x"),
        {**claude_base(S, "2026-11-01T10:00:02Z", gitBranch=""), "type": "system", "subtype": "local_command"},
    ])
    scanner = Scanner()
    assert scanner.row(scanner.resolve(S)).git_branch == "feature/x"


# --- orphan subagents -----------------------------------------------------------


def test_orphan_subagent_row_comes_from_its_own_content(isolated_home: Path) -> None:
    # The VibeLens subagent file (17 records) has no parent transcript.  Hand
    # count: 1 prompt (line 1), 3 replies with text (msg_01EMV…, msg_01AYL…,
    # msg_01XJ9…), 3 tool calls (Bash, WebSearch twice), model claude-opus-4-6,
    # first record 2026-04-06T01:49:12.105Z, branch HEAD.
    lay_out_real_claude(isolated_home)
    scanner = Scanner()
    row = scanner.row(scanner.resolve("example-session-claude-01"))
    assert row.title.startswith("Plan a fancy, visually appealing recipe book single-page website.")
    assert len(row.title) <= 180
    assert (row.counts.prompts, row.counts.responses, row.counts.tool_calls) == (1, 3, 3)
    assert row.model == "claude-opus-4-6"
    assert row.started_at.isoformat() == "2026-04-06T01:49:12.105000+00:00"
    assert row.git_branch == "HEAD"
    assert row.cwd == "example/recipe-book"


def test_show_of_an_orphan_says_the_parent_is_missing(isolated_home: Path) -> None:
    lay_out_real_claude(isolated_home)
    detail = Scanner().show("example-session-claude-01")
    doc = detail.to_json()
    assert doc["parent_missing"] is True
    assert len(detail.prompts) == 1 and detail.prompts[0].text.startswith("Plan a fancy")
    assert [r.text.split()[0] for r in detail.responses] == ["I'll", "The", "Now"]
    assert {t.subagent for t in detail.tools} == {"ae286913c0f1e919c"}
    assert [t.name for t in detail.tools] == ["Bash", "WebSearch", "WebSearch"]


def test_a_slash_command_names_a_session_with_no_typed_prompt(isolated_home: Path) -> None:
    # spotter-agent-progress: line 4 is the only thing the user typed, the
    # command /handgemacht:create-beads with its arguments; every other user
    # record is a tool result or isMeta.
    _lay_out_spotter(isolated_home)
    (row,) = Scanner().list_sessions()
    assert row.title.startswith("/handgemacht:create-beads websearch to learn how to fastest setup credo")
