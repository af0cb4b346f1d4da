"""``show``'s line for a Claude Code task call (2.1.16+): what it creates or changes
(``new task: Fix the parser``, ``task #1 in_progress``), not the paragraph of its
``description`` or its input's JSON (``tooltext.task_summary``), read forward and from the
end of a transcript alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.providers.claude.detail import tool_summary
from agentscan.scan.scanner import Scanner
from builders import claude_session_file
from test_claude_task_plan_pass36 import S, _create, _created, _prompt, _update


@pytest.mark.parametrize(("name", "data", "summary"), [
    ("TaskCreate", {"subject": "Fix the parser", "description": "A long paragraph about it"}, "new task: Fix the parser"),
    ("TaskCreate", {"activeForm": "Fixing the parser", "description": "x"}, "new task: Fixing the parser"),
    ("TaskCreate", {"description": "no subject at all"}, "no subject at all"),
    ("TaskUpdate", {"taskId": "2", "status": "in_progress"}, "task #2 in_progress"),
    ("TaskUpdate", {"taskId": "2", "subject": "Renamed", "status": "completed"}, "task #2 completed, subject: Renamed"),
    ("TaskUpdate", {"taskId": "2", "owner": "researcher"}, "task #2 owner: researcher"),
    ("TaskUpdate", {"taskId": 7}, "task #7"),
    ("TaskUpdate", {"taskId": True, "description": "odd"}, "odd"),
    # Blank or many-lined fields (review s36): a blank subject says nothing, a status is one line.
    ("TaskCreate", {"subject": "  ", "description": "the description"}, "the description"),
    ("TaskUpdate", {"taskId": "", "status": "done"}, '{"status":"done","taskId":""}'),
    ("TaskUpdate", {"taskId": "3", "status": "in\nprogress"}, "task #3 in progress"),
])
def test_a_task_call_is_summed_up_by_what_it_does(name: str, data: dict, summary: str) -> None:
    assert tool_summary(name, data)[0] == summary


def test_show_lists_task_calls_by_what_they_do(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [_prompt(0, "fix the build"), _create(1, "Fix the parser"),
                                           _created(2, 1, "1", "Fix the parser"), _update(3, "1", status="in_progress")])
    with Scanner(home=isolated_home, provider_names=["claude"]) as scanner:
        tools = [tool.summary for tool in scanner.show(S).tools]
    assert tools == ["new task: Fix the parser", "task #1 in_progress"]


def test_forward_and_from_the_end_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude import provider
    from claude_events import forward_and_from_end

    monkeypatch.setattr(provider, "TAIL_MIN_BYTES", 0)  # shown from its end, as a huge one is
    claude_session_file(tmp_path / "home", S, [_prompt(0, "fix the build"), _create(1, "Fix the parser"),
                                           _created(2, 1, "1", "Fix the parser"), _update(3, "1", status="completed")])
    forward, from_end, _ = forward_and_from_end(tmp_path / "home")
    assert from_end is not None
    assert [tool.summary for tool in forward.tools] == [tool.summary for tool in from_end.tools]
    assert [tool.summary for tool in forward.tools] == ["new task: Fix the parser", "task #1 completed"]
