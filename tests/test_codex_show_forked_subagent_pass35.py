"""``show`` of a Codex session whose subagent was spawned with its parent's context
(``fork_context``): the subagent's rollout begins with a copy of the parent's history, its
prompts included, up to its own first ``task_started``.  That copy is the parent's
conversation: the subagent's own starts with the task it was given, and ``--full`` puts it
under the call that gave it (review s35, finding 3)."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from codex_builders import (
    agent_message,
    at,
    function_call,
    function_output,
    meta,
    rollout_path,
    task_started,
    token_count,
    turn_context,
    usage,
    user_message,
    write_rollout,
)

P = "019c6666-0000-7000-8000-00000000000a"
EXPLORER = "019c6666-0000-7000-8000-0000000000e1"
WORKER = "019c6666-0000-7000-8000-0000000000e2"
ASK = "Audit the refund flow for race conditions"
FIRST_TASK, SECOND_TASK = "Read app/refunds.py and list the mutable state", "Write a failing test for double refunds"


def _home(codex: Path) -> None:
    history = [
        meta(P, at(0)),
        task_started(at(1)),
        turn_context(at(1)),
        user_message(at(1), ASK),
        token_count(at(10), usage(3000, 1000, 100), usage(3000, 1000, 100)),
    ]
    spawns = [
        function_call(at(20), "spawn_agent", {"message": FIRST_TASK, "agent_type": "explorer"}, "sp1"),
        function_call(at(21), "spawn_agent", {"message": SECOND_TASK, "agent_type": "worker", "fork_context": True}, "sp2"),
    ]
    done = [function_output(at(300), "sp1", "done"), function_output(at(300), "sp2", "done"),
            agent_message(at(301), "Found two races")]
    write_rollout(rollout_path(codex, P, at(0)), [*history, *spawns, *done])
    explorer = [meta(EXPLORER, at(20), spawn_parent=P, agent_role="explorer"), task_started(at(20)),
                turn_context(at(20)), user_message(at(20), FIRST_TASK), agent_message(at(60), "Mutable: balance")]
    write_rollout(rollout_path(codex, EXPLORER, at(20)), explorer)
    # The worker's file: its own meta, the parent's history copied verbatim, then its own turn.
    worker = [meta(WORKER, at(21), spawn_parent=P, agent_role="worker"), *history, task_started(at(22)),
              turn_context(at(22)), user_message(at(22), SECOND_TASK),
              token_count(at(40), usage(5000, 2000, 200), usage(2000, 1000, 100)),
              agent_message(at(41), "Test added")]
    write_rollout(rollout_path(codex, WORKER, at(21)), worker)


def _show(*args: str) -> CliRunner:
    result = CliRunner().invoke(app, ["show", P, *args])
    assert result.exit_code == 0, result.output
    return result


def test_a_forked_subagents_copied_prompts_are_not_its_own(isolated_home: Path) -> None:
    _home(isolated_home / ".codex")
    session = orjson.loads(_show("--json").stdout_bytes)["session"]
    prompts = {sub["id"]: [prompt["text"] for prompt in sub["prompts"]] for sub in session["subagents"]}
    assert prompts == {EXPLORER: [FIRST_TASK], WORKER: [SECOND_TASK]}
    assert [prompt["text"] for prompt in session["prompts"]] == [ASK]
    # Its tokens were told from the copy already: its own call only.
    assert {sub["id"]: (sub["tokens"] or {}).get("total") for sub in session["subagents"]} == {EXPLORER: None, WORKER: 2100}


def test_full_puts_the_forked_subagent_under_the_call_that_gave_its_task(isolated_home: Path) -> None:
    _home(isolated_home / ".codex")
    lines = [line.strip() for line in _show("--full").stdout.splitlines()]
    second_call = lines.index(SECOND_TASK)
    assert lines[second_call - 1].startswith("2") and "spawn_agent" in lines[second_call - 1]
    assert lines[second_call + 1].startswith("↳ subagent") and "(worker)" in lines[second_call + 1]
    assert lines.count(ASK) == 1  # the parent's prompt, once
