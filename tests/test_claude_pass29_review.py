"""What a review of the inline-run work found: a later build's sidechain records are the
session's own; the table's TITLE, a huge transcript's show and the id search agree with
the row's pass."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan.scanner import Scanner
from builders import REAL, claude_assistant, claude_session_file, claude_usage, claude_user

S = "cafecafe-1111-4222-8333-444444444444"


def at(second: int) -> str:
    return f"2026-02-10T10:{second // 60 % 60:02d}:{second % 60:02d}.000Z"


def task_call(second: int, parent: str, prompt: str) -> dict[str, Any]:
    return claude_assistant(S, at(second), msg_id=f"m{second}", request_id=f"r{second}", usage=claude_usage(1, 1),
                            uuid=f"a{second}", parentUuid=parent,
                            blocks=[{"type": "tool_use", "id": "toolu_T", "name": "Task",
                                     "input": {"subagent_type": "general-purpose", "description": "d", "prompt": prompt}}])


def inline_run(second: int, prompt: str, *, usage: bool) -> list[dict[str, Any]]:
    """A 2.0.x run: its task of no parent, its reply chained to it."""
    return [
        claude_user(S, at(second), prompt, uuid=f"s{second}", sidechain=True),
        claude_assistant(S, at(second + 1), msg_id=f"ms{second}", request_id=f"rs{second}",
                         usage=claude_usage(2, 3) if usage else None, uuid=f"sa{second}", parentUuid=f"s{second}",
                         sidechain=True),
    ]


def test_a_later_build_s_sidechain_conversation_is_the_session_s_own(isolated_home: Path) -> None:
    # Every record of this main transcript says isSidechain, from a system record down: no run.
    project = isolated_home / ".claude" / "projects" / "p"
    project.mkdir(parents=True)
    shutil.copyfile(REAL / "claude" / "derived-agent-sessions-schema-catalog-v2.1.x.jsonl", project / "ses_stage0_small.jsonl")
    session = orjson.loads(CliRunner().invoke(app, ["show", "ses_stage0_small", "--json"]).stdout)["session"]
    # Six typed prompts and one typed while a reply went on (a queued_command attachment)
    assert session["counts"] == {"prompts": 7, "responses": 5, "tool_calls": 3}
    assert not [sub for sub in session["subagents"] if sub["id"].startswith("sidechain-")]


def test_the_table_s_title_is_the_row_s_when_a_run_is_written_inline(isolated_home: Path) -> None:
    records = [
        claude_user(S, at(0), "<command-name>/review</command-name>", uuid="u0"),  # a bare command
        task_call(1, "u0", "Review the diff"),
        *inline_run(2, "Review the diff", usage=True),
    ]
    claude_session_file(isolated_home, S, records)
    with Scanner() as scanner:
        (ref,) = scanner.refs()
        facts = scanner.provider("claude").table_facts(scanner.real_ref(ref) or ref, scanner.ctx)
        row = scanner.row(ref)
    assert facts is not None and facts.title == row.title == "/review"


def huge(home: Path, tail: list[dict[str, Any]]) -> None:
    """A main transcript past the size ``show`` reads from its end (8 MiB)."""
    records: list[dict[str, Any]] = []
    parent = None
    for number in range(180):
        records.append(claude_user(S, at(number * 2 % 3000), f"prompt {number} " + "x" * 50_000, uuid=f"p{number}",
                                   parentUuid=parent))
        records.append(claude_assistant(S, at(number * 2 % 3000 + 1), msg_id=f"mp{number}", request_id=f"rp{number}",
                                        usage=claude_usage(1, 1), uuid=f"ap{number}", parentUuid=f"p{number}"))
        parent = f"ap{number}"
    claude_session_file(home, S, records + tail)


def test_a_huge_transcript_s_inline_run_with_no_usage_is_no_prompt(isolated_home: Path) -> None:
    huge(isolated_home, [task_call(3100, "ap179", "SIDECHAIN TASK"), *inline_run(3101, "SIDECHAIN TASK", usage=False)])
    for _ in range(2):  # the pass that keeps the facts, then one that could read from the end
        session = orjson.loads(CliRunner().invoke(app, ["show", S[:8], "--json"]).stdout)["session"]
        assert "SIDECHAIN TASK" not in [prompt["text"] for prompt in session["prompts"]]
        assert [sub["id"] for sub in session["subagents"]] == ["sidechain-s3101"]


def test_the_id_search_passes_over_a_transcript_larger_than_its_budget(isolated_home: Path,
                                                                       monkeypatch: Any) -> None:
    from agentscan.providers.claude import childsearch

    project = isolated_home / ".claude" / "projects" / "-home-dev-project"
    project.mkdir(parents=True)
    shutil.copyfile(REAL / "claude" / "spotter-agent-progress-v2.1.38.trimmed.jsonl",
                    project / "491e126e-1e71-469c-ade2-fcc8af567c74.jsonl")
    newer = claude_session_file(isolated_home, S, [claude_user(S, "2030-01-01T00:00:00.000Z", "big " + "y" * 400_000)])
    assert newer.stat().st_size > 300_000
    monkeypatch.setattr(childsearch, "BUDGET", 300_000)  # the newest transcript is over it: passed over
    result = CliRunner().invoke(app, ["show", "afb92ff"])
    assert result.exit_code == 0, result.output
    assert "491e126e" in result.stdout


def test_two_runs_given_one_task_keep_their_own_calls(isolated_home: Path) -> None:
    def task(call_id: str, kind: str) -> dict[str, Any]:
        return {"type": "tool_use", "id": call_id, "name": "Task",
                "input": {"subagent_type": kind, "description": kind, "prompt": "TASK A"}}

    def result(second: int, call_id: str) -> dict[str, Any]:
        return claude_user(S, at(second), [{"type": "tool_result", "tool_use_id": call_id, "content": "done"}],
                           uuid=f"res-{call_id}", toolUseResult={"status": "completed", "prompt": "TASK A", "content": []})

    records = [
        claude_user(S, at(0), "do two things in parallel", uuid="u0"),
        claude_assistant(S, at(1), msg_id="m1", request_id="r1", usage=claude_usage(1, 1), uuid="a1", parentUuid="u0",
                         blocks=[task("toolu_A", "alpha")]),
        claude_assistant(S, at(2), msg_id="m2", request_id="r2", usage=claude_usage(1, 1), uuid="a2", parentUuid="a1",
                         blocks=[task("toolu_B", "beta")]),
        *inline_run(3, "TASK A", usage=True),
        *inline_run(5, "TASK A", usage=True),
        result(8, "toolu_B"),  # the results come back in the other order
        result(9, "toolu_A"),
    ]
    claude_session_file(isolated_home, S, records)
    session = orjson.loads(CliRunner().invoke(app, ["show", S[:8], "--json"]).stdout)["session"]
    assert {sub["id"]: sub["agent_type"] for sub in session["subagents"]} == {"sidechain-s3": "alpha", "sidechain-s5": "beta"}
