"""A Claude workflow run (``subagents/workflows/<wf>/agent-<id>.jsonl``) opens its parent
by its agent id, in full or as a prefix, and by the id ``show --json`` gives it
(``wf_01/<agent id>``), as any subagent's id does (docs/cli.md, ``show``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke, write_jsonl

S = "f0f0f0f0-0000-4000-8000-000000000001"
AGENT = "b1b2b3b4b5b6b7b8b"


def _home(home: Path) -> None:
    claude_session_file(home, S, [
        claude_user(S, "2026-12-04T15:00:00Z", "run the release workflow", uuid="u1"),
        claude_assistant(S, "2026-12-04T15:00:05Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 12), uuid="a1"),
    ])
    run = home / ".claude" / "projects" / "-home-dev-project" / S / "subagents" / "workflows" / "wf_01" / f"agent-{AGENT}.jsonl"
    write_jsonl(run, [
        claude_user(S, "2026-12-04T15:00:06Z", "bump the version", uuid="w1", sidechain=True, agentId=AGENT),
        claude_assistant(S, "2026-12-04T15:00:09Z", msg_id="m2", request_id="r2", usage=claude_usage(1000, 200),
                         uuid="w2", sidechain=True, agentId=AGENT),
    ])


@pytest.mark.parametrize("query", [AGENT, AGENT[:8], f"wf_01/{AGENT}", "wf_01/b1"])  # the last: tokens' label
def test_a_workflow_run_opens_its_parent(isolated_home: Path, query: str) -> None:
    _home(isolated_home)
    shown = cli_json("show", query)["session"]
    assert shown["id"] == f"claude:{S}"
    assert [sub["id"] for sub in shown["subagents"]] == [f"wf_01/{AGENT}"]
    assert cli_json("tokens", query)["total"]["total"] == 100 + 12 + 1000 + 200


def test_a_path_that_is_not_a_run_is_still_no_such_file(isolated_home: Path) -> None:
    _home(isolated_home)
    result = invoke("show", "wf_01/nothing-like-it")
    assert result.exit_code != 0 and "no such file" in result.output.lower()
