"""Claude Code's ``show``, as a power user reads it (pass 47).

* A ``/compact`` (a ``system`` record of subtype ``compact_boundary``) was nowhere on the
  card or in ``--full``: where the context was compacted could not be told.  The card's
  ``counts`` line counts them, a line marks each among the prompts and in ``--full`` at its
  time, and ``show --json`` lists them (``compactions``, ``compacted``).
* A prompt-suggestion run (``aprompt_suggestion-…``) was listed with no kind, and
  ``--full`` put it under whatever delegating call came before it; it is named as the
  auto-compaction worker is (``compaction``): ``prompt-suggestion``, standing at its own time.
* The card's ``counts`` line said ``(+N by subagents)`` of the subagents' calls the bounds
  kept (the newest 2,000 calls of all), beside the session's own count of every one read: it
  counts every one the subagents made too (``show --json``'s ``subagent_tool_calls``).
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentscan.bounds import Bounds
from agentscan.cli.show_text import print_detail
from agentscan.cli.term import Terminal
from agentscan.scan.scanner import Scanner
from builders import (claude_assistant, claude_base, claude_session_file, claude_subagent_file, claude_usage,
                      claude_user, invoke)

S = "c0c0c0c0-0000-4000-8000-000000000047"


def _compact(ts: str, trigger: str, before: int, uuid: str) -> dict:
    return {**claude_base(S, ts, uuid=uuid, parentUuid=None, logicalParentUuid="x"), "type": "system",
            "subtype": "compact_boundary", "content": "Conversation compacted", "level": "info",
            "compactMetadata": {"trigger": trigger, "preTokens": before}}


def _reply(ts: str, n: int, blocks: list | None = None) -> dict:
    return claude_assistant(S, ts, msg_id=f"m{n}", request_id=f"r{n}", usage=claude_usage(10, 5), uuid=f"a{n}",
                            blocks=blocks)


def _compacted_session(home: Path) -> None:
    claude_session_file(home, S, [
        claude_user(S, "2026-05-01T10:00:00.000Z", "first task", uuid="u1"),
        _reply("2026-05-01T10:00:05.000Z", 1),
        _compact("2026-05-01T10:30:00.000Z", "auto", 167094, "c1"),
        claude_user(S, "2026-05-01T10:30:00.500Z", "This session is being continued from a previous conversation",
                    uuid="s1", isCompactSummary=True, isVisibleInTranscriptOnly=True),
        claude_user(S, "2026-05-01T11:00:00.000Z", "second task", uuid="u2"),
        _reply("2026-05-01T11:00:05.000Z", 2),
        _compact("2026-05-01T11:30:00.000Z", "manual", 15808, "c2"),
        claude_user(S, "2026-05-01T12:00:00.000Z", "third task", uuid="u3"),
        _reply("2026-05-01T12:00:05.000Z", 3),
    ])


def test_show_json_lists_the_compactions_of_the_context(isolated_home: Path) -> None:
    _compacted_session(isolated_home)
    shown = orjson.loads(invoke("show", S, "--json").stdout)["session"]
    assert shown["compactions"] == [
        {"timestamp": "2026-05-01T10:30:00.000Z", "trigger": "auto", "pre_tokens": 167094},
        {"timestamp": "2026-05-01T11:30:00.000Z", "trigger": "manual", "pre_tokens": 15808}]
    assert shown["compacted"] == 2
    assert [p["text"] for p in shown["prompts"]] == ["first task", "second task", "third task"]


def test_a_session_never_compacted_has_no_compactions_key(isolated_home: Path) -> None:
    # (Absent, as a huge transcript read from its end has it: that reader does not see them.)
    claude_session_file(isolated_home, S, [claude_user(S, "2026-05-01T10:00:00.000Z", "hi", uuid="u1"),
                                           _reply("2026-05-01T10:00:05.000Z", 1)])
    shown = orjson.loads(invoke("show", S, "--json").stdout)["session"]
    assert "compactions" not in shown and "compacted" not in shown
    assert "compaction" not in invoke("show", S).stdout


def test_the_card_counts_the_compactions_and_marks_them_among_the_prompts(isolated_home: Path, tty) -> None:
    _compacted_session(isolated_home)
    tty(100)
    lines = invoke("show", S).stdout.splitlines()
    counts = next(line for line in lines if line.startswith("  counts"))
    assert counts.endswith("3 prompts, 3 responses, 0 tool calls, 2 compactions")
    start = lines.index("prompts (3)")
    assert [line[20:] for line in lines[start + 1:start + 6]] == [
        "first task",
        "── context compacted automatically (167,094 tokens before)",
        "second task",
        "── context compacted by /compact (15,808 tokens before)",
        "third task"]


def test_a_pipe_gets_the_compaction_figure_plain(isolated_home: Path) -> None:
    _compacted_session(isolated_home)
    out = invoke("show", S).stdout
    assert "── context compacted automatically (167094 tokens before)" in out


def test_show_full_marks_each_compaction_at_its_time(isolated_home: Path) -> None:
    _compacted_session(isolated_home)
    lines = [line for line in invoke("show", S, "--full").stdout.splitlines() if line[:4] == "2026"]
    assert [line[18:] for line in lines] == [
        "prompt", "response (claude-sonnet-4-5-20250929)",
        "── context compacted automatically (167094 tokens before)",
        "prompt", "response (claude-sonnet-4-5-20250929)",
        "── context compacted by /compact (15808 tokens before)",
        "prompt", "response (claude-sonnet-4-5-20250929)"]


def test_a_compaction_before_the_prompts_shown_is_counted_not_marked(isolated_home: Path) -> None:
    records = [_compact("2026-05-01T09:00:00.000Z", "auto", 1000, "c0")]
    for n in range(12):
        records += [claude_user(S, f"2026-05-01T10:{n:02d}:00.000Z", f"task {n}", uuid=f"u{n}"),
                    _reply(f"2026-05-01T10:{n:02d}:05.000Z", n)]
    claude_session_file(isolated_home, S, records)
    out = invoke("show", S).stdout
    assert "0 tool calls, 1 compaction" in out
    assert "context compacted" not in out  # (before the newest 10 prompts shown)


def _suggested_session(home: Path) -> None:
    task = {"type": "tool_use", "id": "toolu_t", "name": "Task",
            "input": {"description": "find the flaky test", "prompt": "Find the flaky test", "subagent_type": "Explore"}}
    claude_session_file(home, S, [
        claude_user(S, "2026-05-01T10:00:00.000Z", "look for the flaky test", uuid="u1"),
        _reply("2026-05-01T10:00:05.000Z", 1, blocks=[task]),
        claude_user(S, "2026-05-01T10:01:00.000Z", [{"type": "tool_result", "tool_use_id": "toolu_t", "content": "found"}],
                    uuid="t1", toolUseResult={"agentId": "a1b2c3d", "status": "completed"}),
        _reply("2026-05-01T10:01:05.000Z", 2),
    ])
    claude_subagent_file(home, S, "a1b2c3d", [
        claude_user(S, "2026-05-01T10:00:06.000Z", "Find the flaky test", uuid="x1", sidechain=True, agentId="a1b2c3d"),
        claude_assistant(S, "2026-05-01T10:00:30.000Z", msg_id="mx", request_id="rx", usage=claude_usage(3, 4),
                         sidechain=True, agentId="a1b2c3d", uuid="x2")])
    run = "aprompt_suggestion-33a4cf"
    claude_subagent_file(home, S, run, [
        claude_user(S, "2026-05-01T10:02:00.000Z", "[SUGGESTION MODE: Suggest what the user might naturally type next]",
                    uuid="p1", sidechain=True, agentId=run),
        claude_assistant(S, "2026-05-01T10:02:01.000Z", msg_id="mp", request_id="rp", usage=claude_usage(2, 3),
                         sidechain=True, agentId=run, uuid="p2")])


def test_a_prompt_suggestion_run_is_named_as_the_compaction_worker_is(isolated_home: Path) -> None:
    _suggested_session(isolated_home)
    shown = orjson.loads(invoke("show", S, "--json").stdout)["session"]
    assert {sub["id"]: sub["agent_type"] for sub in shown["subagents"]} == {
        "a1b2c3d": "Explore", "aprompt_suggestion-33a4cf": "prompt-suggestion"}
    card = [line.split() for line in invoke("show", S).stdout.splitlines()]
    assert ["aprompt_suggestion-33a4cf", "prompt-suggestion"] == next(
        cells for cells in card if cells and cells[0] == "aprompt_suggestion-33a4cf")[:2]
    rows = orjson.loads(invoke("tokens", "--by", "agent", "--json").stdout)["rows"]
    assert "prompt-suggestion" in {row["key"] for row in rows}


def test_show_full_puts_a_prompt_suggestion_at_its_own_time_not_under_a_call(isolated_home: Path) -> None:
    _suggested_session(isolated_home)
    lines = invoke("show", S, "--full").stdout.splitlines()
    run = next(line for line in lines if "↳ subagent aprompt_suggestion-33a4cf" in line)
    # At the top level, dated, as the compaction worker is: not indented under the Task call.
    assert run.endswith("  ↳ subagent aprompt_suggestion-33a4cf (prompt-suggestion)") and run.startswith("2026")
    assert any(line.startswith("    ↳ subagent a1b2c3d (Explore)") for line in lines)


def _busy_session(home: Path) -> None:
    """30 calls of the session's own, after a subagent's 10."""
    task = {"type": "tool_use", "id": "toolu_t", "name": "Task",
            "input": {"description": "look", "prompt": "Look around", "subagent_type": "Explore"}}
    records = [claude_user(S, "2026-05-01T10:00:00.000Z", "read them all", uuid="u1"),
               _reply("2026-05-01T10:00:01.000Z", 100, blocks=[task])]
    for n in range(30):
        records.append(_reply(f"2026-05-01T11:00:{n:02d}.000Z", n, blocks=[
            {"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": {"file_path": f"/f{n}"}}]))
    claude_session_file(home, S, records)
    claude_subagent_file(home, S, "a1b2c3d", [
        claude_user(S, "2026-05-01T10:00:02.000Z", "Look around", uuid="x0", sidechain=True, agentId="a1b2c3d"),
        *(claude_assistant(S, f"2026-05-01T10:00:{n + 3:02d}.000Z", msg_id=f"mx{n}", request_id=f"rx{n}",
                           usage=claude_usage(3, 4), sidechain=True, agentId="a1b2c3d", uuid=f"x{n + 1}",
                           blocks=[{"type": "tool_use", "id": f"toolu_x{n}", "name": "Grep", "input": {"pattern": "p"}}])
          for n in range(10))], meta={"agentType": "Explore"})


def test_the_card_counts_every_call_of_the_subagents_not_the_kept_alone(isolated_home: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    _busy_session(isolated_home)
    assert "31 tool calls (+10 by subagents)" in invoke("show", S).stdout  # (nothing dropped: as before)
    # The bounds keep the newest 20 calls: the session's own, the subagent's 10 older ones dropped.
    detail = Scanner(home=isolated_home, provider_names=["claude"]).show(S, bounds=Bounds(tools=20))
    assert not any(tool.subagent for tool in detail.tools)
    print_detail(detail, Terminal(tty=False, width=100, color=False))
    out = capsys.readouterr().out
    assert "31 tool calls (+10 by subagents)" in out  # was "31 tool calls": the 10 were not kept
    assert detail.to_json()["subagent_tool_calls"] == 10


def test_the_tool_calls_heading_of_a_session_without_subagents_says_no_own(isolated_home: Path) -> None:
    records = [claude_user(S, "2026-05-01T10:00:00.000Z", "read them all", uuid="u1")]
    for n in range(20):
        records.append(_reply(f"2026-05-01T10:00:{n + 1:02d}.000Z", n, blocks=[
            {"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": {"file_path": f"/f{n}"}}]))
    claude_session_file(isolated_home, S, records)
    out = invoke("show", S).stdout
    assert "tool calls (newest 15 of 20)" in out
    assert " own" not in out


SC = "c0c0c0c0-0000-4000-8000-000000000047"


def test_show_from_the_end_lists_the_compactions_as_a_forward_read_does(isolated_home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # (review of pass 47: a transcript of 8 MiB or more, shown from its end, lost them)
    from agentscan.providers.claude import provider

    boundary = {**claude_base(SC, "2026-05-01T10:30:00.000Z", uuid="c1", parentUuid=None), "type": "system",
                "subtype": "compact_boundary", "compactMetadata": {"trigger": "auto", "preTokens": 167094}}
    claude_session_file(isolated_home, SC, [
        claude_user(SC, "2026-05-01T10:00:00.000Z", "first", uuid="u1"),
        claude_assistant(SC, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1", usage=claude_usage(10, 5), uuid="a1"),
        boundary,
        claude_user(SC, "2026-05-01T11:00:00.000Z", "second", uuid="u2"),
        claude_assistant(SC, "2026-05-01T11:00:05.000Z", msg_id="m2", request_id="r2", usage=claude_usage(10, 5), uuid="a2")])
    forward = orjson.loads(invoke("show", SC, "--json").stdout)["session"]
    monkeypatch.setattr(provider, "TAIL_MIN_BYTES", 0)  # shown from its end, as a file of 8 MiB is
    end = orjson.loads(invoke("show", SC, "--json").stdout)["session"]
    assert forward["compacted"] == 1
    assert end.get("compacted") == forward["compacted"]
    assert end.get("compactions") == forward["compactions"]
