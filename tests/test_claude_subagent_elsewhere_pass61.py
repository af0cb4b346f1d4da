"""A Claude subagent run whose file is under another project folder than its session's transcript
(``<other project>/<session id>/subagents/agent-<id>.jsonl``: Claude Code writes a run under the
folder it ran in) is the session's, as a discovery joins them.  Found from the transcript's own
folder alone (the id index's ``locate``), it was not: a cached ``show`` priced the run at nothing
(its cost ``null``, the session's the transcript's alone) and a warm one left the run and its
warning out.  Every command says the same, cold, warm and without the index."""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import (claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user,
                      forget_remembered_answers, invoke)

S = "5ab00000-0000-4000-8000-000000000001"


def _lay_out(home: Path) -> None:
    claude_session_file(home, S, [
        claude_user(S, "2026-11-07T10:00:00.000Z", "work"),
        claude_assistant(S, "2026-11-07T10:00:01.000Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10)),
    ])
    claude_subagent_file(home, S, "a1", [
        claude_user(S, "2026-11-07T10:00:02.000Z", "sub task", sidechain=True, agentId="a1"),
        claude_assistant(S, "2026-11-07T10:00:03.000Z", msg_id="m2", request_id="r2", usage=claude_usage(1000, -5),
                         sidechain=True, agentId="a1"),
    ], project="-other-project")


def _outputs(*args: str) -> tuple[str, str]:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def test_show_of_a_run_under_another_project_folder_is_the_same_cold_warm_and_without_the_index(
        isolated_home: Path) -> None:
    _lay_out(isolated_home)
    for args in [("show", S[:8], "--json"), ("show", S[:8]), ("show", "a1", "--json")]:
        plain = _outputs(*args, "--no-cache")
        assert [_outputs(*args) for _ in range(3)] == [plain] * 3, args
    card = orjson.loads(_outputs("show", S, "--json")[0])
    (run,) = card["session"]["subagents"]
    assert run["id"] == "a1" and run["tokens"]["total"] == 1000 and run["cost_usd"] is not None
    assert card["session"]["cost_usd"] > run["cost_usd"]
    assert [warning["path"].split("/")[-1] for warning in card["warnings"]] == ["agent-a1.jsonl"]


def test_every_command_counts_the_run_under_another_project_folder_alike(isolated_home: Path) -> None:
    """Guards existing behaviour (it passes on the commit before the cached show's fallback):
    ``tokens``, ``list`` and ``export`` found the run already, as discovery walks every folder."""
    _lay_out(isolated_home)
    for args in [("tokens", "--json"), ("list", "--all", "--json"), ("export", "--format", "jsonl")]:
        plain = _outputs(*args, "--no-cache")
        cold, warm = _outputs(*args), _outputs(*args)
        forget_remembered_answers()
        assert [cold, warm, _outputs(*args)] == [plain] * 3, args


def test_the_id_index_reads_the_other_project_folder_itself(isolated_home: Path) -> None:
    """The transcript's files found from its path (``locate``) take the folder that holds the run
    (a review of pass 61: ``session_files_at`` gave way to a whole discovery, about three times
    a warm ``show``'s CPU), with what a whole discovery finds of the session."""
    from agentscan.context import ScanContext
    from agentscan.providers.claude.discovery import discover_sessions, session_files_at
    from agentscan.providers.claude.provider import ClaudeProvider

    _lay_out(isolated_home)
    full = ScanContext.create(home=isolated_home, env={})
    roots = [root.path for root in ClaudeProvider().roots(full)]
    everything = discover_sessions(ClaudeProvider().roots(full), full)[S]
    ctx = ScanContext.create(home=isolated_home, env={})
    ctx.confine_to(roots)  # as ``locate`` does
    assert everything.main is not None
    files = session_files_at(everything.main, S, ctx, roots)
    assert files is not None, "gave way to a whole discovery"
    assert (files.main, files.paths(), list(files.subagents)) == (everything.main, everything.paths(), ["a1"])
