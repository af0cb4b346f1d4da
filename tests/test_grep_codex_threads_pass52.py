"""``list --grep`` takes the same Codex sessions however many sessions it searches (pass 52).

With 64 sessions or more without a kept row (``factfilter.MIN_SESSIONS``: every ``list
--all --grep``, a cold ``list --grep``) a session is ruled out by its table facts alone
(``providers.codex.tablefacts``), which named the naming thread's models only: a session
whose reviewer subagent ran on ``gpt-5.1-codex-mini`` was found by ``list --grep
codex-mini`` and not by ``list --all --grep codex-mini``.  And a Codex service tier is no
part of what ``--grep`` matches (docs/cli.md): ``gpt-5.5 (priority)`` is found as ``gpt-5.5``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agentscan.scan import factfilter
from builders import cli_json
from codex_builders import (DEMO_PARENT, Calls, agent_message, demo_delegating_rollouts, line, meta, rollout_path,
                            task_started, turn_context, user_message, write_rollout)

TIERED = "019d1000-0000-7000-8000-000000000052"


def _fillers(home: Path, count: int) -> None:
    for number in range(count):
        moment = datetime(2026, 10, 1, tzinfo=UTC) + timedelta(hours=number)
        thread = f"019a0000-0000-7000-8000-{number:012d}"
        write_rollout(rollout_path(home / ".codex", thread, moment), [
            meta(thread, moment, cwd=f"/work/p{number}"), turn_context(moment, "gpt-5-codex", f"/work/p{number}"),
            task_started(moment), user_message(moment + timedelta(seconds=1), f"filler task {number}"),
            agent_message(moment + timedelta(seconds=2), "done"), Calls().call(moment + timedelta(seconds=3), 1000, 0, 100)])


def _delegating(home: Path) -> None:
    for records in demo_delegating_rollouts():
        started = datetime.fromisoformat(records[0]["payload"]["timestamp"].replace("Z", "+00:00"))
        write_rollout(rollout_path(home / ".codex", records[0]["payload"]["id"], started), records)


def _tiered(home: Path) -> None:
    start = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    settings = line(start + timedelta(seconds=5), "event_msg", {"type": "thread_settings_applied", "thread_settings": {
        "cwd": "/work/project", "model": "gpt-5.5", "model_provider_id": "openai", "service_tier": "priority"}})
    write_rollout(rollout_path(home / ".codex", TIERED, start), [
        meta(TIERED, start), task_started(start), turn_context(start, model="gpt-5.5"), user_message(start, "go"),
        settings, Calls().call(start + timedelta(seconds=9), 10_000, 4_000, 1_000)])


def _ids(*args: str) -> list[str]:
    return [row["id"] for row in cli_json(*args, "--json")["sessions"]]


@pytest.mark.parametrize("options", [("--all",), ()])
def test_a_subagents_model_finds_its_session_among_many(isolated_home: Path, options: tuple[str, ...]) -> None:
    _fillers(isolated_home, factfilter.MIN_SESSIONS + 16)
    _delegating(isolated_home)
    for cache in (("--no-cache",), (), ()):
        assert _ids(*cache, "list", *options, "--grep", "codex-mini") == [f"codex:{DEMO_PARENT}"], (cache, options)


@pytest.mark.parametrize("many", [False, True])
def test_a_service_tier_is_no_part_of_grep(isolated_home: Path, many: bool) -> None:
    if many:
        _fillers(isolated_home, factfilter.MIN_SESSIONS + 16)
    _tiered(isolated_home)
    for cache in (("--no-cache",), ()):
        for options in ((), ("--all",)):
            assert _ids(*cache, "list", *options, "--grep", "gpt-5.5") == [f"codex:{TIERED}"]
            assert _ids(*cache, "list", *options, "--grep", "priority") == []
            assert _ids(*cache, "list", *options, "--grep", "gpt-5.5 (priority)") == []
