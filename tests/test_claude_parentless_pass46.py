"""Claude Code: a session whose parent transcript is gone, only its subagents left.

A compaction run's prompt (Claude Code's own instruction to summarize) never names it, and
one of legacy ``agent-<8hex>.jsonl`` files alone (in the project's directory) has that
file's path, not the projects directory: ``list --grep`` of the project finds it
(docs/providers/claude.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import (
    claude_assistant,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    cli_json,
    invoke,
    write_jsonl,
)

COMPACTED = "cccccccc-0000-4000-8000-000000000003"
LEGACY = "bbbbbbbb-0000-4000-8000-000000000002"
OTHER = "aaaaaaaa-0000-4000-8000-000000000001"
PROJECT = "-tmp-edge"
COMPACT_PROMPT = "Your task is to create a detailed summary of the conversation so far"

#: ``()``: the cache written, then read; ``("--no-cache",)``: neither
CACHING = [(), ("--no-cache",)]


def _run(session: str, run: str, ts: str, prompt: str, ts_reply: str) -> list[dict]:
    return [
        claude_user(session, ts, prompt, uuid=f"{run}-u", sidechain=True, cwd="/tmp/edge", agentId=run),
        claude_assistant(session, ts_reply, msg_id=f"msg-{run}", request_id=f"req-{run}", sidechain=True,
                         usage=claude_usage(input=3, output=8), cwd="/tmp/edge", agentId=run,
                         parentUuid=f"{run}-u", uuid=f"{run}-a"),
    ]


def _compacted_home(home: Path, *, other_run: bool) -> None:
    """``<project>/<COMPACTED>/subagents/agent-acompact-abc123.jsonl`` (the earliest run), and
    with ``other_run`` a delegated run begun after it; no ``<COMPACTED>.jsonl``."""
    claude_subagent_file(home, COMPACTED, "acompact-abc123",
                         _run(COMPACTED, "acompact-abc123", "2026-03-01T10:00:00Z", COMPACT_PROMPT, "2026-03-01T10:01:00Z"),
                         project=PROJECT)
    if other_run:
        claude_subagent_file(home, COMPACTED, "a1b2c3d",
                             _run(COMPACTED, "a1b2c3d", "2026-03-01T10:05:00Z", "Find the flaky test", "2026-03-01T10:06:00Z"),
                             project=PROJECT)


def _legacy_home(home: Path) -> Path:
    """``<project>/agent-1a2b3c4d.jsonl`` naming ``LEGACY`` (no ``<LEGACY>.jsonl`` anywhere), and a
    session of another project beside it."""
    agent = write_jsonl(home / ".claude" / "projects" / PROJECT / "agent-1a2b3c4d.jsonl",
                        _run(LEGACY, "1a2b3c4d", "2025-11-01T10:00:00Z", "Find TODOs", "2025-11-01T10:00:05Z"))
    claude_session_file(home, OTHER, [
        claude_user(OTHER, "2025-11-02T10:00:00Z", "Elsewhere", uuid="o-u"),
        claude_assistant(OTHER, "2025-11-02T10:00:05Z", msg_id="msg-o", request_id="req-o",
                         usage=claude_usage(input=1, output=1), parentUuid="o-u", uuid="o-a"),
    ], project="-home-dev-other")
    return agent


def _shown(*args: str) -> dict:
    """``show <args> --json``'s session."""
    return cli_json("show", *args)["session"]


def _rows(*args: str) -> dict[str, dict]:
    return {row["native_id"]: row for row in cli_json(*args)["sessions"]}


@pytest.mark.parametrize("caching", CACHING)
def test_a_compaction_run_alone_gives_no_title(isolated_home: Path, caching: tuple[str, ...]) -> None:
    _compacted_home(isolated_home, other_run=False)
    for _ in range(2):  # (the second run's row is the cache's, unless --no-cache)
        (row,) = cli_json(*caching, "list", "--all")["sessions"]
        assert (row["native_id"], row["title"]) == (COMPACTED, None)
        detail = _shown(*caching, COMPACTED)
        assert detail["title"] is None and detail["parent_missing"] is True
        # It still counts (its tokens), and is a compaction run in show.
        assert row["tokens"]["total"] == 11
        assert [(sub["id"], sub["agent_type"]) for sub in detail["subagents"]] == [("acompact-abc123", "compaction")]
        listed = invoke(*caching, "list", "--all")
        assert listed.exit_code == 0
        (line,) = [line for line in listed.stdout.splitlines() if COMPACTED in line]
        assert COMPACT_PROMPT not in line and line.rstrip().endswith(" -")
        shown = invoke(*caching, "show", COMPACTED).stdout
        assert COMPACT_PROMPT not in shown.split("\n\n")[0]  # (its prompt stays in the run's own part)
        assert "  title    -" in shown.splitlines()


def test_a_prompt_suggestion_run_names_no_session_either(isolated_home: Path) -> None:
    # Claude Code's prompt-suggestion worker (``agent-aprompt_suggestion-…``) is started by no
    # prompt of the user's either (review of pass 46).
    claude_subagent_file(isolated_home, COMPACTED, "aprompt_suggestion-33a4cf",
                         _run(COMPACTED, "aprompt_suggestion-33a4cf", "2026-03-01T10:00:00Z",
                              "[SUGGESTION MODE: Suggest what the user might naturally type next]",
                              "2026-03-01T10:01:00Z"), project=PROJECT)
    claude_subagent_file(isolated_home, COMPACTED, "a1b2c3d",
                         _run(COMPACTED, "a1b2c3d", "2026-03-01T10:05:00Z", "Find the flaky test", "2026-03-01T10:06:00Z"),
                         project=PROJECT)
    (row,) = cli_json("--no-cache", "list", "--all")["sessions"]
    assert row["title"] == "Find the flaky test"


@pytest.mark.parametrize("caching", CACHING)
def test_another_run_names_a_session_its_compaction_run_began(isolated_home: Path, caching: tuple[str, ...]) -> None:
    _compacted_home(isolated_home, other_run=True)
    for _ in range(2):
        (row,) = cli_json(*caching, "list", "--all")["sessions"]
        assert (row["native_id"], row["title"], row["started_at"]) == (COMPACTED, "Find the flaky test",
                                                                       "2026-03-01T10:00:00.000Z")
        assert _shown(*caching, COMPACTED)["title"] == "Find the flaky test"
        assert row["subagents"] == 2


@pytest.mark.parametrize("caching", CACHING)
def test_a_legacy_subagent_alone_has_its_own_path(isolated_home: Path, caching: tuple[str, ...]) -> None:
    agent = _legacy_home(isolated_home)
    for _ in range(2):
        rows = _rows(*caching, "list", "--all")
        assert rows[LEGACY]["path"] == str(agent)
        assert rows[LEGACY]["title"] == "Find TODOs"
        detail = _shown(*caching, LEGACY)
        assert detail["path"] == str(agent) and detail["parent_missing"] is True
        assert f"  path     {agent}" in invoke(*caching, "show", LEGACY).stdout.splitlines()
        # ``--grep`` of its project's directory finds it, and only it.
        assert list(_rows(*caching, "list", "--all", f"--grep={PROJECT}")) == [LEGACY]
        assert list(_rows(*caching, "list", "--all", "--grep=agent-1a2b3c4d")) == [LEGACY]


@pytest.mark.parametrize("caching", CACHING)
def test_a_session_directory_is_the_path_beside_a_legacy_subagent(isolated_home: Path, caching: tuple[str, ...]) -> None:
    # Both layouts, parent gone: its ``<sessionId>`` directory, as for the newer layout alone.
    _legacy_home(isolated_home)
    claude_subagent_file(isolated_home, LEGACY, "a9f8e7d",
                         _run(LEGACY, "a9f8e7d", "2025-11-01T11:00:00Z", "Later", "2025-11-01T11:00:05Z"),
                         project=PROJECT)
    folder = isolated_home / ".claude" / "projects" / PROJECT / LEGACY
    for _ in range(2):
        rows = _rows(*caching, "list", "--all")
        assert rows[LEGACY]["path"] == str(folder)
        assert rows[LEGACY]["title"] == "Find TODOs"
        assert _shown(*caching, LEGACY)["path"] == str(folder)


def test_a_workflow_run_alone_has_its_session_directory(isolated_home: Path) -> None:
    # ``<sessionId>/subagents/workflows/<wf>/agent-<id>.jsonl``: not its ``workflows`` directory.
    folder = isolated_home / ".claude" / "projects" / PROJECT / COMPACTED
    write_jsonl(folder / "subagents" / "workflows" / "wf1" / "agent-a9f8e7d.jsonl",
                _run(COMPACTED, "a9f8e7d", "2026-03-01T11:00:00Z", "Run the workflow", "2026-03-01T11:00:05Z"))
    (row,) = cli_json("list", "--all")["sessions"]
    assert row["path"] == str(folder)
    assert row["title"] == "Run the workflow"
