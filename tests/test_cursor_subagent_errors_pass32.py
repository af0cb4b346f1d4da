"""A Cursor subagent transcript's ``error`` lines are the session's errors, marked as the
subagent's (before, only the parent transcript's were read)."""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import invoke
from cursor_builders import assistant, tool, user, write_subagent, write_transcript

PARENT = "11111111-0000-4000-8000-000000000032"
CHILD = "22222222-0000-4000-8000-000000000032"


def test_a_subagent_s_error_lines_are_shown_as_its(isolated_home: Path) -> None:
    write_transcript(isolated_home, "home-dev-proj", PARENT, [
        user("look into the flaky test"),
        assistant("delegating", tool("Task", description="investigate", prompt="find why test_x flakes")),
        {"type": "error", "error": "Provider Error: parent hiccup"},
        assistant("done"),
    ])
    write_subagent(isolated_home, "home-dev-proj", PARENT, CHILD, [
        user("find why test_x flakes"),
        {"type": "error", "error": "Provider Error: subagent timed out"},
        assistant("it races on the clock"),
    ])
    result = invoke("--home", str(isolated_home), "show", PARENT, "--json")
    assert result.exit_code == 0, result.output
    errors = orjson.loads(result.stdout)["session"]["errors"]
    by_text = {error["text"]: error["subagent"] for error in errors}
    assert by_text == {"Provider Error: parent hiccup": None, "Provider Error: subagent timed out": CHILD}
