"""``tokens --by agent``: a row per kind of agent (``main`` for the sessions' own calls, then
each kind of delegated run as ``show`` names it, ``unknown`` where none was recorded), so a
user sees what their Explore, Plan or reviewer subagents cost across every session."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from agentscan import Scanner, token_report
from agentscan.providers.claude import agenttypes
from agentscan.providers.claude.provider import ClaudeProvider
from builders import (claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, cli_json,
                      forget_remembered_answers, invoke)

S1, S2 = "a9e00000-0000-4000-8000-000000000001", "a9e00000-0000-4000-8000-000000000002"


def _call(session: str, second: int, tokens: int, *, agent: str | None = None, blocks: list | None = None) -> dict:
    extra = {"agentId": agent} if agent else {}
    return claude_assistant(session, f"2026-08-01T10:00:{second:02d}.000Z", msg_id=f"m-{session}-{second}-{agent}",
                            request_id=f"r-{session}-{second}-{agent}", usage=claude_usage(input=tokens, output=1),
                            uuid=f"u-{session}-{second}-{agent}", sidechain=agent is not None, blocks=blocks, **extra)


def _task_result(session: str, second: int, tool_id: str, agent: str) -> dict:
    record = claude_user(session, f"2026-08-01T10:00:{second:02d}.000Z",
                         [{"type": "tool_result", "tool_use_id": tool_id, "content": "done"}])
    record["toolUseResult"] = {"agentId": agent, "status": "completed"}
    return record


def _home(home: Path) -> None:
    """S1: its own calls, an ``Explore`` run (said by its sidecar), a ``Plan`` run (said by the
    Task call that started it: no sidecar) and an auto-compaction worker; S2: its own calls and
    a run nothing names, and another ``Explore`` run."""
    task = {"type": "tool_use", "id": "toolu_plan", "name": "Task", "input": {"subagent_type": "Plan", "prompt": "plan"}}
    claude_session_file(home, S1, [claude_user(S1, "2026-08-01T10:00:00.000Z", "go"), _call(S1, 1, 100, blocks=[task]),
                                   _task_result(S1, 9, "toolu_plan", "bplan"), _call(S1, 10, 1_000)])
    claude_subagent_file(home, S1, "aexplore1", [_call(S1, 2, 20, agent="aexplore1")], meta={"agentType": "Explore"})
    claude_subagent_file(home, S1, "bplan", [_call(S1, 3, 300, agent="bplan")])
    claude_subagent_file(home, S1, "acompact-abc123", [_call(S1, 4, 4_000, agent="acompact-abc123")])
    claude_session_file(home, S2, [claude_user(S2, "2026-08-01T11:00:00.000Z", "go"), _call(S2, 1, 50_000)],
                        project="-home-dev-other")
    claude_subagent_file(home, S2, "cmystery", [_call(S2, 2, 600_000, agent="cmystery")], project="-home-dev-other")
    claude_subagent_file(home, S2, "aexplore2", [_call(S2, 3, 7_000_000, agent="aexplore2")], project="-home-dev-other",
                         meta={"agentType": "Explore"})


def _totals(report) -> dict[str, int]:
    return {row.key: row.tokens.total for row in report.rows}


def test_a_row_per_kind_of_agent(isolated_home: Path) -> None:
    _home(isolated_home)
    with Scanner(home=str(isolated_home)) as scanner:
        by_session = token_report(scanner)
        report = token_report(scanner, by="agent")
    assert _totals(report) == {"Explore": 7_000_001 + 21, "unknown": 600_001, "main": 101 + 1_001 + 50_001,
                               "compaction": 4_001, "Plan": 301}
    assert [row.key for row in report.rows] == ["Explore", "unknown", "main", "compaction", "Plan"]  # dearest first
    assert report.total == by_session.total and report.cost == by_session.cost
    rows = {row.key: row for row in report.rows}
    assert rows["main"].subagents == () and rows["main"].own == rows["main"].tokens
    assert sorted(run for run, _ in rows["Explore"].subagents) == [f"claude:{S1}/aexplore1", f"claude:{S2}/aexplore2"]
    assert rows["Explore"].own is None


def test_each_run_is_the_kind_show_names(isolated_home: Path) -> None:
    """One rule for both: a run ``show`` lists as ``Plan`` is a ``Plan`` row's."""
    _home(isolated_home)
    report = cli_json("tokens", "--by", "agent")
    expected: Counter[str] = Counter()
    for session in (S1, S2):
        shown = cli_json("show", f"claude:{session}")["session"]
        for sub in shown["subagents"]:
            expected[sub["agent_type"] or "unknown"] += sub["tokens"]["total"]
        expected["main"] += shown["tokens"]["total"] - sum(sub["tokens"]["total"] for sub in shown["subagents"])
    assert {row["key"]: row["tokens"]["total"] for row in report["rows"]} == dict(expected)


def test_a_sidecar_that_names_every_run_spares_reading_the_parent(isolated_home: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    claude_session_file(isolated_home, S1, [claude_user(S1, "2026-08-01T10:00:00.000Z", "go"), _call(S1, 1, 100)])
    claude_subagent_file(isolated_home, S1, "aexplore1", [_call(S1, 2, 20, agent="aexplore1")],
                         meta={"agentType": "Explore"})
    import agentscan.providers.claude.row as row

    def no_pass(*args, **kwargs):
        raise AssertionError("the parent was read for kinds its runs' sidecars name")

    monkeypatch.setattr(row, "summarize", no_pass)
    with Scanner(home=str(isolated_home), use_cache=False) as scanner:
        ref = scanner.resolve(f"claude:{S1}")
        own = scanner.real_ref(ref)
        assert own is not None
        assert agenttypes.subagent_types(own.hint, scanner.ctx, {"aexplore1"}) == {"aexplore1": "Explore"}


def test_the_kinds_are_kept_for_the_next_run(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)
    first = cli_json("tokens", "--by", "agent")
    forget_remembered_answers()  # the answer made again, not printed from the last run's

    def unread(*args, **kwargs):
        raise AssertionError("the kinds were read again for files that did not change")

    monkeypatch.setattr(ClaudeProvider, "subagent_types", unread)
    assert cli_json("tokens", "--by", "agent") == first


def test_a_session_whose_kinds_cannot_be_read_is_unknown_not_a_failure(isolated_home: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)

    def unreadable(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(ClaudeProvider, "subagent_types", unreadable)
    report = cli_json("tokens", "--by", "agent")
    assert {row["key"] for row in report["rows"]} == {"main", "unknown"}
    assert report["total"]["total"] == cli_json("tokens")["total"]["total"]


def test_the_demo_by_agent_every_provider(isolated_home: Path) -> None:
    """Claude Code's ``Explore``, Codex's ``reviewer`` role, Cursor's ``explore`` and Gemini's
    subagent of no recorded kind, each as ``show`` names it (pass 56: ``Explore`` and
    ``explore``, one kind in two cases, one row: tests/test_words_pass56.py)."""
    report = cli_json("--demo", "tokens", "--by", "agent")
    keys = {row["key"] for row in report["rows"]}
    assert keys == {"main", "Explore", "reviewer", "unknown"}
    assert report["total"] == cli_json("--demo", "tokens")["total"]
    reviewer = next(row for row in report["rows"] if row["key"] == "reviewer")
    assert [sub["id"].partition(":")[0] for sub in reviewer["subagents"]] == ["codex"]


def test_the_table_by_agent(isolated_home: Path) -> None:
    _home(isolated_home)
    result = invoke("tokens", "--by", "agent")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split()[0] == "AGENT"
    assert [line.split()[0] for line in lines[1:] if not line.startswith(" ")][:5] == [
        "Explore", "unknown", "main", "compaction", "Plan"]
    assert "agent" in invoke("tokens", "--by", "agnt").stderr


def test_no_provider_reads_a_show_detail_for_the_kinds(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kinds come from what names them (Cursor's Task calls, Claude's sidecars, Codex's
    headers), not from a whole ``show`` of each session that delegated."""
    from agentscan.providers import iter_providers

    def no_detail(*args, **kwargs):
        raise AssertionError("a session's show detail was read for its runs' kinds")

    for provider in iter_providers():
        monkeypatch.setattr(type(provider), "detail", no_detail)
    report = cli_json("--demo", "--no-cache", "tokens", "--by", "agent")
    assert {row["key"] for row in report["rows"]} == {"main", "Explore", "reviewer", "unknown"}


def test_a_compaction_worker_alone_spares_reading_the_parent(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_session_file(isolated_home, S1, [claude_user(S1, "2026-08-01T10:00:00.000Z", "go"), _call(S1, 1, 100)])
    claude_subagent_file(isolated_home, S1, "acompact-abc123", [_call(S1, 2, 20, agent="acompact-abc123")])
    import agentscan.providers.claude.row as row

    def no_pass(*args, **kwargs):
        raise AssertionError("the parent was read for a compaction worker's kind")

    monkeypatch.setattr(row, "summarize", no_pass)
    with Scanner(home=str(isolated_home), use_cache=False) as scanner:
        own = scanner.real_ref(scanner.resolve(f"claude:{S1}"))
        assert own is not None
        assert agenttypes.subagent_types(own.hint, scanner.ctx, {"acompact-abc123"}) == {"acompact-abc123": "compaction"}
