"""Regenerate the demo's hook events store (made-up content): what ``agentscan hook``
would have captured from Claude Code during the demo's Claude session
(``make_claude_demo``), so that ``agentscan --demo trace`` has something to show.

Run ``python -m agentscan.demo.make_hook_demo`` from a checkout; the file it writes
is committed, so users never run this.  Each payload goes through the capture code
itself (``hooks.capture.capture``), so the envelopes are exactly what a real capture
stores.
"""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from typing import Any

import orjson

from agentscan.demo import WRITTEN_HOME, demo_events
from agentscan.demo.make_claude_demo import CWD, SESSION

TRANSCRIPT = f"{WRITTEN_HOME}/.claude/projects/-home-demo-src-weather-app/{SESSION}.jsonl"


def _ns(clock: str) -> int:
    """Capture time of ``2026-11-28T<clock>Z`` (the session's own times)."""
    moment = datetime.fromisoformat(f"2026-11-28T{clock}").replace(tzinfo=timezone.utc)
    return int(moment.timestamp()) * 1_000_000_000


def _event(name: str, **fields: Any) -> dict[str, Any]:
    return {"hook_event_name": name, "session_id": SESSION, "transcript_path": TRANSCRIPT, "cwd": CWD, **fields}


def _tool(tool_id: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"tool_name": name, "tool_input": tool_input, "tool_use_id": tool_id}


def events() -> list[tuple[str, dict[str, Any]]]:
    """(capture time, payload) of each hook Claude Code ran, in order."""
    read = _tool("toolu_demo_1", "Read", {"file_path": f"{CWD}/app/routes.py"})
    task = _tool("toolu_demo_2", "Task", {"subagent_type": "Explore", "description": "Find the forecast client",
                                          "prompt": "Where is the upstream forecast client?"})
    grep = _tool("toolu_demo_s1", "Grep", {"pattern": "class ForecastClient", "path": CWD})
    edit = _tool("toolu_demo_3", "Edit", {"file_path": f"{CWD}/app/routes.py", "old_string": "# routes",
                                          "new_string": "# routes\n@get('/forecast')"})
    bash = _tool("toolu_demo_4", "Bash", {"command": "pytest -q tests/test_forecast.py"})
    return [
        ("08:59:58", _event("SessionStart", source="startup")),
        ("09:00:00", _event("UserPromptSubmit", prompt="Add a 5-day forecast endpoint to the API and cover it with tests")),
        ("09:00:07", _event("PreToolUse", **read)),
        ("09:00:08", _event("PostToolUse", **read, tool_response={"content": "def current(): ..."}, duration_ms=41)),
        ("09:00:20", _event("PreToolUse", **task)),
        ("09:00:21", _event("SubagentStart", agent_id="a1b2c3d", agent_type="Explore")),
        ("09:00:40", _event("PreToolUse", **grep, agent_id="a1b2c3d", agent_type="Explore")),
        ("09:00:41", _event("PostToolUse", **grep, agent_id="a1b2c3d", agent_type="Explore",
                            tool_response={"content": "app/clients/forecast.py:3"}, duration_ms=230)),
        ("09:01:05", _event("SubagentStop", agent_id="a1b2c3d", agent_type="Explore",
                            last_assistant_message="It is app/clients/forecast.py (ForecastClient).")),
        ("09:01:10", _event("PostToolUse", **task, tool_response={"content": "app/clients/forecast.py"})),
        ("09:01:30", _event("PreToolUse", **edit)),
        ("09:01:31", _event("PostToolUse", **edit, tool_response={"filePath": f"{CWD}/app/routes.py"}, duration_ms=18)),
        ("09:01:40", _event("PreToolUse", **bash)),
        ("09:01:55", _event("PostToolUseFailure", **bash, error="1 failed")),
        ("09:02:10", _event("Stop", last_assistant_message="The endpoint is in place; one test fails because the fixture "
                                                           "lacks a 5th day. I fixed the fixture and all tests pass now.")),
    ]


if __name__ == "__main__":
    from agentscan.hooks.capture import capture

    root = demo_events()
    shutil.rmtree(root, ignore_errors=True)
    for clock, payload in events():
        capture(str(root), "claude", orjson.dumps(payload), _ns(clock))
    print(f"wrote {root}")
