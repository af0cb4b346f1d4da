"""Claude subagents with no transcript of their own, and where ``show --full`` puts a subagent.

* A 2.0.x build wrote the Task subagent's records inline in the parent transcript
  (``isSidechain: true``, no ``agentId``): a run of its own, ``sidechain-<8 of its first
  record's uuid>`` (real sample agentlogs-inline-sidechain-v2.0.13.jsonl, session 609efeca…:
  its run's first record is ``cd49a45d-…``, its one call 4 + 0 + 12,405 + 117 = 12,526).
* A subagent known only from the parent's ``agent_progress`` copies (real sample
  spotter-agent-progress-v2.1.38.trimmed.jsonl, subagent ``afb92ff``: 9 tool calls, 3 of them
  errors, lines 37-55) opens its parent with ``show <id>``.
* Claude's auto-compaction worker is no call's subagent: ``--full`` shows it at its own time.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from builders import (
    REAL,
    claude_assistant,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    cli_json,
    write_jsonl,
)

INLINE = "609efeca-2f51-4118-b077-e91c9fe63f73"
RUN = "sidechain-cd49a45d"
TASK_CALL = "toolu_01BuNFczVnbvyf3hBd7oYaqy"
PROGRESS = "491e126e-1e71-469c-ade2-fcc8af567c74"


def _copy(home: Path, name: str, session: str, project: str = "-Users-philipp-dev-studio") -> Path:
    target = home / ".claude" / "projects" / project / f"{session}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(REAL / "claude" / name, target)
    return target


@pytest.fixture
def inline_home(isolated_home: Path) -> Path:
    _copy(isolated_home, "agentlogs-inline-sidechain-v2.0.13.jsonl", INLINE)
    return isolated_home


def _full(*args: str) -> list[str]:
    result = CliRunner().invoke(app, ["show", *args, "--full", "--no-pager"])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


# -- a run written inline -------------------------------------------------------------


def test_an_inline_run_is_a_subagent_not_the_users_prompt(inline_home: Path) -> None:
    scanner = Scanner(home=inline_home)
    row = scanner.row(scanner.resolve(INLINE))
    assert (row.counts.prompts, row.counts.responses, row.counts.tool_calls) == (1, 2, 1)
    assert row.subagents == 1
    assert row.tokens is not None and row.tokens.total == 44_374  # unchanged
    detail = scanner.show(INLINE)
    assert [p.text for p in detail.prompts] == ["ask a subagent how he's doing"]
    assert len(detail.responses) == 2
    [sub] = detail.subagents
    assert (sub.id, sub.agent_type, sub.call_id, sub.recovered_from) == (RUN, "general-purpose", TASK_CALL, None)
    assert sub.tokens is not None and sub.tokens.total == 12_526
    assert sub.prompts[0].text.startswith("Hey there! Just checking in")
    assert sub.responses[0].text.startswith("Hello! I'm doing well")


def test_tokens_show_the_inline_run_apart_with_the_same_totals(inline_home: Path) -> None:
    [row] = token_report(Scanner(home=inline_home), by="session").rows
    assert row.tokens is not None and row.tokens.total == 44_374
    assert row.own is not None and row.own.total == 44_374 - 12_526
    assert [(agent, usage.total if usage else None) for agent, usage in row.subagents] == [(RUN, 12_526)]
    assert row.recovered == ()
    document = cli_json("tokens", "--by", "session")
    [subagent] = document["rows"][0]["subagents"]
    assert (subagent["id"], subagent["tokens"]["total"]) == (RUN, 12_526)
    listed = cli_json("list")["sessions"][0]
    assert (listed["counts"]["prompts"], listed["subagents"]) == (1, 1)


def test_full_and_the_card_put_the_inline_run_under_its_task(inline_home: Path) -> None:
    lines = _full(INLINE)
    assert "  counts   1 prompt, 2 responses, 1 tool call" in lines
    task = next(i for i, line in enumerate(lines) if line.endswith("  Task  ok"))
    assert lines[task + 1] == "    Check how agent is doing"
    assert lines[task + 2] == f"    ↳ subagent {RUN} (general-purpose)"
    assert lines[task + 3].endswith("  prompt") and lines[task + 3].startswith("    ")
    shown = cli_json("show", INLINE)["session"]
    assert [sub["id"] for sub in shown["subagents"]] == [RUN]
    assert shown["counts"]["prompts"] == 1


def test_the_run_id_opens_its_parent(inline_home: Path) -> None:
    document = cli_json("show", RUN[:14])
    assert document["session"]["native_id"] == INLINE
    assert document["session"]["focus"] == {"subagent": RUN, "query": RUN[:14], "opened": "parent"}


S = "11111111-2222-4333-8444-555555555555"


def _parallel_runs() -> list[dict]:
    """Two Task calls in one message, their inline runs interleaved; run B calls a tool."""
    tasks = [{"type": "tool_use", "id": f"toolu_{n}", "name": "Task",
              "input": {"subagent_type": "Explore", "description": f"part {n}", "prompt": f"Look at part {n}"}}
             for n in "AB"]

    def side(kind: str, ts: str, uuid: str, parent: str | None, **extra) -> dict:
        if kind == "user":
            return claude_user(S, ts, extra.pop("text"), uuid=uuid, parentUuid=parent, isSidechain=True, **extra)
        return claude_assistant(S, ts, uuid=uuid, parentUuid=parent, isSidechain=True, **extra)

    return [
        claude_user(S, "2025-10-10T10:00:00Z", "look at both parts", uuid="p0"),
        claude_assistant(S, "2025-10-10T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(10, 5),
                         blocks=tasks, uuid="a1", parentUuid="p0"),
        side("user", "2025-10-10T10:00:02Z", "aaaaaaaa-0000-4000-8000-000000000001", None, text="Look at part A"),
        side("user", "2025-10-10T10:00:02Z", "bbbbbbbb-0000-4000-8000-000000000001", None, text="Look at part B"),
        side("assistant", "2025-10-10T10:00:03Z", "bbbbbbbb-0000-4000-8000-000000000002",
             "bbbbbbbb-0000-4000-8000-000000000001", msg_id="mb1", request_id="rb1", usage=claude_usage(100, 7),
             blocks=[{"type": "tool_use", "id": "toolu_b1", "name": "Read", "input": {"file_path": "/b"}}]),
        side("assistant", "2025-10-10T10:00:04Z", "aaaaaaaa-0000-4000-8000-000000000002",
             "aaaaaaaa-0000-4000-8000-000000000001", msg_id="ma1", request_id="ra1", usage=claude_usage(1000, 9),
             blocks=[{"type": "text", "text": "part A is fine"}]),
        side("user", "2025-10-10T10:00:05Z", "bbbbbbbb-0000-4000-8000-000000000003",
             "bbbbbbbb-0000-4000-8000-000000000002",
             text=[{"type": "tool_result", "tool_use_id": "toolu_b1", "content": "x", "is_error": True}]),
        side("assistant", "2025-10-10T10:00:06Z", "bbbbbbbb-0000-4000-8000-000000000004",
             "bbbbbbbb-0000-4000-8000-000000000003", msg_id="mb2", request_id="rb2", usage=claude_usage(200, 11),
             blocks=[{"type": "text", "text": "part B is fine"}]),
        claude_user(S, "2025-10-10T10:00:07Z", [{"type": "tool_result", "tool_use_id": "toolu_B", "content": "B ok"}],
                    uuid="r2", parentUuid="a1", toolUseResult={"status": "completed", "prompt": "Look at part B"}),
        claude_user(S, "2025-10-10T10:00:08Z", [{"type": "tool_result", "tool_use_id": "toolu_A", "content": "A ok"}],
                    uuid="r3", parentUuid="r2", toolUseResult={"status": "completed", "prompt": "Look at part A"}),
    ]


def test_interleaved_inline_runs_are_told_apart_by_their_chains(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, _parallel_runs())
    scanner = Scanner(home=isolated_home)
    detail = scanner.show(S)
    runs = {sub.id: sub for sub in detail.subagents}
    assert set(runs) == {"sidechain-aaaaaaaa", "sidechain-bbbbbbbb"}
    assert runs["sidechain-aaaaaaaa"].call_id == "toolu_A" and runs["sidechain-bbbbbbbb"].call_id == "toolu_B"
    assert runs["sidechain-aaaaaaaa"].tokens.total == 1009  # type: ignore[union-attr]
    assert runs["sidechain-bbbbbbbb"].tokens.total == 107 + 211  # type: ignore[union-attr]
    assert [(t.name, t.subagent, t.status) for t in detail.tools if t.subagent] == [("Read", "sidechain-bbbbbbbb", "error")]
    assert (detail.row.counts.prompts, detail.row.counts.responses, detail.row.counts.tool_calls) == (1, 0, 2)
    [row] = token_report(scanner, by="session").rows
    assert dict((agent, usage.total if usage else None) for agent, usage in row.subagents) == {
        "sidechain-aaaaaaaa": 1009, "sidechain-bbbbbbbb": 318}
    assert row.own is not None and row.own.total == 15
    lines = _full(S)
    assert "  counts   1 prompt, 0 responses, 2 tool calls (+1 by subagents)" in lines


def test_tokens_of_a_grown_transcript_name_the_runs_as_a_whole_pass_does(isolated_home: Path) -> None:
    """A run's first records before the point ``tokens`` resumes from still name it."""
    records = _parallel_runs()
    path = claude_session_file(isolated_home, S, records[:5])
    first = token_report(Scanner(home=isolated_home, use_cache=True), by="session").rows[0]
    assert dict((agent, usage.total if usage else None) for agent, usage in first.subagents) == {"sidechain-bbbbbbbb": 107}
    # Grown once (its sums are stale: read whole, a resume state kept), then again (read on from it).
    write_jsonl(path, records[:7])
    token_report(Scanner(home=isolated_home, use_cache=True), by="session")
    write_jsonl(path, records)
    grown = token_report(Scanner(home=isolated_home, use_cache=True), by="session").rows[0]
    fresh = token_report(Scanner(home=isolated_home), by="session").rows[0]
    assert grown.subagents == fresh.subagents
    assert dict((agent, usage.total if usage else None) for agent, usage in grown.subagents) == {
        "sidechain-aaaaaaaa": 1009, "sidechain-bbbbbbbb": 318}


def test_the_side_pass_names_inline_runs_as_the_row_pass_does(isolated_home: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers.claude.row import summarize
    from agentscan.providers.claude.sidepass import side_pass
    from agentscan.providers.claude.windowed import WindowedTotals

    path = claude_session_file(isolated_home, S, _parallel_runs())
    ctx = ScanContext.create(home=isolated_home)
    totals = WindowedTotals()
    summarize(path, ctx, totals=totals)
    side, *_ = side_pass(path, ctx, False)
    assert side.by_subagent() == totals.by_subagent()
    assert set(side.by_subagent()) == {"sidechain-aaaaaaaa", "sidechain-bbbbbbbb"}


# -- a subagent known from progress records alone -------------------------------------


@pytest.fixture
def progress_home(isolated_home: Path) -> Path:
    _copy(isolated_home, "spotter-agent-progress-v2.1.38.trimmed.jsonl", PROGRESS, "-home-marco-projects-spotter")
    return isolated_home


def test_a_progress_only_subagents_calls_are_its_own(progress_home: Path) -> None:
    detail = Scanner(home=progress_home).show(PROGRESS)
    [sub] = detail.subagents
    assert (sub.id, sub.recovered_from) == ("afb92ff", "progress")
    theirs = [tool for tool in detail.tools if tool.subagent == "afb92ff"]
    assert len(theirs) == 9
    assert sum(1 for tool in theirs if tool.status == "error") == 3
    assert sub.prompts and sub.prompts[0].text.startswith("Draft bead content")
    lines = _full(PROGRESS)
    assert "  counts   1 prompt, 5 responses, 10 tool calls (+9 by subagents)" in lines


def test_a_progress_only_subagents_id_opens_its_parent(progress_home: Path) -> None:
    document = cli_json("show", "afb92ff")
    assert document["session"]["native_id"] == PROGRESS
    assert document["session"]["focus"] == {"subagent": "afb92ff", "query": "afb92ff", "opened": "parent"}
    result = CliRunner().invoke(app, ["show", "afb92fe"])
    assert result.exit_code == 1 and "no session matches" in result.output


def test_a_transcripts_progress_copies_are_not_counted_twice(isolated_home: Path) -> None:
    """Its calls come from its own transcript; the parent's copies of them add nothing."""
    source = REAL / "claude" / "projects"
    shutil.copytree(source, isolated_home / ".claude" / "projects", copy_function=shutil.copyfile)
    detail = Scanner(home=isolated_home).show("258c7280")
    by_agent = {sub.id: sum(1 for t in detail.tools if t.subagent == sub.id) for sub in detail.subagents}
    assert by_agent == {"a881341": 2, "acompact-fffbd0": 0}


# -- where --full puts a subagent no call started -------------------------------------


def test_the_compaction_worker_stands_at_its_own_time(isolated_home: Path) -> None:
    source = REAL / "claude" / "projects"
    shutil.copytree(source, isolated_home / ".claude" / "projects", copy_function=shutil.copyfile)
    lines = _full("258c7280")
    head = next(i for i, line in enumerate(lines) if "↳ subagent acompact-fffbd0" in line)
    assert lines[head] == "2026-02-11 21:17  ↳ subagent acompact-fffbd0 (compaction)"
    # The Task call still has its own subagent under it.
    task = next(i for i, line in enumerate(lines) if line.endswith("  Task  ok"))
    assert lines[task + 2] == "    ↳ subagent a881341 (claude-code-guide)"


def test_a_subagent_no_delegating_call_started_is_not_put_under_another_call(isolated_home: Path) -> None:
    session = "22222222-3333-4444-8555-666666666666"
    claude_session_file(isolated_home, session, [
        claude_user(session, "2025-10-10T10:00:00Z", "read it", uuid="p0"),
        claude_assistant(session, "2025-10-10T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 1),
                         blocks=[{"type": "tool_use", "id": "toolu_r", "name": "Read", "input": {"file_path": "/x"}}]),
        claude_assistant(session, "2025-10-10T10:30:00Z", msg_id="m2", request_id="r2", usage=claude_usage(1, 1),
                         blocks=[{"type": "text", "text": "done reading"}]),
    ])
    claude_subagent_file(isolated_home, session, "a1b2c3d", [
        claude_user(session, "2025-10-10T10:10:00Z", "a task nobody handed over", sidechain=True, agentId="a1b2c3d"),
        claude_assistant(session, "2025-10-10T10:10:01Z", msg_id="s1", request_id="rs1", usage=claude_usage(2, 2),
                         sidechain=True, agentId="a1b2c3d"),
    ])
    lines = _full(session)
    head = next(i for i, line in enumerate(lines) if "↳ subagent a1b2c3d" in line)
    assert lines[head] == "2025-10-10 10:10  ↳ subagent a1b2c3d"
    read = next(i for i, line in enumerate(lines) if line.endswith("  Read  ?") or "  Read  " in line)
    reply = next(i for i, line in enumerate(lines) if line.startswith("2025-10-10 10:30  response"))
    assert read < head < reply
