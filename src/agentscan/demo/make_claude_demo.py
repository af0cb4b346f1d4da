"""Regenerate the Claude Code part of the demo home (made-up content).

Run ``python -m agentscan.demo.make_claude_demo`` from a checkout; the
files it writes are committed, so users never run this.
"""

from __future__ import annotations

from pathlib import Path

import orjson

HOME = Path(__file__).resolve().parent / "home"
PROJECT = HOME / ".claude" / "projects" / "-home-demo-src-weather-app"
SESSION = "7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d"
SECOND = "c2d4e6f8-1a3b-4c5d-8e9f-0a1b2c3d4e5f"
CWD = "/home/demo/src/weather-app"


def _base(uuid: str, parent: str | None, ts: str, session: str = SESSION, sidechain: bool = False) -> dict:
    return {
        "parentUuid": parent,
        "isSidechain": sidechain,
        "userType": "external",
        "cwd": CWD,
        "sessionId": session,
        "version": "2.1.63",
        "gitBranch": "main",
        "uuid": uuid,
        "timestamp": ts,
    }


def _user(uuid, parent, ts, text, **kw):
    return {**_base(uuid, parent, ts, **kw), "type": "user", "message": {"role": "user", "content": text}}


def _assistant(uuid, parent, ts, msg_id, req, blocks, usage, model="claude-sonnet-4-5-20250929", **kw):
    return {
        **_base(uuid, parent, ts, **kw),
        "type": "assistant",
        "requestId": req,
        "message": {"id": msg_id, "type": "message", "role": "assistant", "model": model, "content": blocks, "usage": usage},
    }


def _usage(inp, out, cw, cr):
    return {"input_tokens": inp, "output_tokens": out, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr}


def _tool_result(uuid, parent, ts, tool_id, text, is_error=False, **kw):
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": is_error}
    return {**_base(uuid, parent, ts, **kw), "type": "user", "message": {"role": "user", "content": [block]}}


def main_session() -> list[dict]:
    u1 = _usage(12, 40, 2100, 9800)
    u1_final = _usage(12, 188, 2100, 9800)
    return [
        _user("u1", None, "2026-11-28T09:00:00.000Z", "Add a 5-day forecast endpoint to the API and cover it with tests"),
        # One API response streamed as three records: the last copy has the final output count.
        _assistant("a1", "u1", "2026-11-28T09:00:05.000Z", "msg_demo_1", "req_demo_1",
                   [{"type": "thinking", "thinking": "Look at the routes first.", "signature": "x"}], u1),
        _assistant("a2", "a1", "2026-11-28T09:00:06.000Z", "msg_demo_1", "req_demo_1",
                   [{"type": "text", "text": "I'll look at the existing routes first."}], u1),
        _assistant("a3", "a2", "2026-11-28T09:00:07.000Z", "msg_demo_1", "req_demo_1",
                   [{"type": "tool_use", "id": "toolu_demo_1", "name": "Read", "input": {"file_path": f"{CWD}/app/routes.py"}}], u1_final),
        _tool_result("u2", "a3", "2026-11-28T09:00:08.000Z", "toolu_demo_1", "def current(): ..."),
        _assistant("a4", "u2", "2026-11-28T09:00:20.000Z", "msg_demo_2", "req_demo_2",
                   [{"type": "tool_use", "id": "toolu_demo_2", "name": "Task",
                     "input": {"subagent_type": "Explore", "description": "Find the forecast client", "prompt": "Where is the upstream forecast client?"}}],
                   _usage(6, 95, 800, 11900)),
        _tool_result("u3", "a4", "2026-11-28T09:01:10.000Z", "toolu_demo_2", "app/clients/forecast.py"),
        _assistant("a5", "u3", "2026-11-28T09:01:30.000Z", "msg_demo_3", "req_demo_3",
                   [{"type": "tool_use", "id": "toolu_demo_3", "name": "Edit",
                     "input": {"file_path": f"{CWD}/app/routes.py", "old_string": "# routes", "new_string": "# routes\n@get('/forecast')"}}],
                   _usage(4, 310, 1500, 12700)),
        _tool_result("u4", "a5", "2026-11-28T09:01:31.000Z", "toolu_demo_3", "ok"),
        _assistant("a6", "u4", "2026-11-28T09:01:40.000Z", "msg_demo_4", "req_demo_4",
                   [{"type": "tool_use", "id": "toolu_demo_4", "name": "Bash", "input": {"command": "pytest -q tests/test_forecast.py"}}],
                   _usage(3, 60, 400, 14200)),
        _tool_result("u5", "a6", "2026-11-28T09:01:55.000Z", "toolu_demo_4", "1 failed", is_error=True),
        _assistant("a7", "u5", "2026-11-28T09:02:10.000Z", "msg_demo_5", "req_demo_5",
                   [{"type": "text", "text": "The endpoint is in place; one test fails because the fixture lacks a 5th day. I fixed the fixture and all tests pass now."}],
                   _usage(2, 140, 300, 14600)),
    ]


def subagent() -> list[dict]:
    kw = {"sidechain": True}
    return [
        {**_user("s1", None, "2026-11-28T09:00:21.000Z", "Where is the upstream forecast client?", **kw), "agentId": "a1b2c3d"},
        {**_assistant("s2", "s1", "2026-11-28T09:00:40.000Z", "msg_demo_sub_1", "req_demo_sub_1",
                      [{"type": "tool_use", "id": "toolu_demo_s1", "name": "Grep", "input": {"pattern": "class ForecastClient", "path": CWD}}],
                      _usage(8, 70, 3000, 0), model="claude-haiku-4-5-20251001", **kw), "agentId": "a1b2c3d"},
        {**_tool_result("s3", "s2", "2026-11-28T09:00:41.000Z", "toolu_demo_s1", "app/clients/forecast.py:3", **kw), "agentId": "a1b2c3d"},
        {**_assistant("s4", "s3", "2026-11-28T09:01:05.000Z", "msg_demo_sub_2", "req_demo_sub_2",
                      [{"type": "text", "text": "It is app/clients/forecast.py (ForecastClient)."}],
                      _usage(5, 30, 200, 3000), model="claude-haiku-4-5-20251001", **kw), "agentId": "a1b2c3d"},
    ]


def second_session() -> list[dict]:
    kw = {"session": SECOND}
    return [
        {"type": "custom-title", "customTitle": "Upgrade to Python 3.13", "sessionId": SECOND},
        _user("b1", None, "2026-11-29T16:30:00.000Z", "Bump the project to Python 3.13 and fix what breaks", **kw),
        _assistant("b2", "b1", "2026-11-29T16:30:09.000Z", "msg_demo_b1", "req_demo_b1",
                   [{"type": "text", "text": "Updated pyproject.toml and the CI matrix; nothing else needed changes."}],
                   _usage(9, 220, 5200, 0), model="claude-opus-4-5-20251101", **kw),
    ]


#: A pid no Linux process can have (``PID_MAX_LIMIT`` is 2**22; pids are below it).
STALE_PID = 4194304


def stale_registry_entry() -> dict:
    """Claude Code's registry of its running processes (``~/.claude/sessions/<pid>.json``), with
    one entry left by a process that was killed: git keeps no empty folder, and with no
    registry every demo Claude session's ``running`` would be ``null`` (an older Claude Code).
    Its pid cannot run and its session is none of the demo's, so none of them shows running."""
    return {"pid": STALE_PID, "sessionId": "0d1e2f30-0000-4000-8000-00000000dead", "cwd": CWD, "status": "idle",
            "procStart": "0", "version": "2.1.63"}


def write(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))


if __name__ == "__main__":
    write(PROJECT / f"{SESSION}.jsonl", main_session())
    write(PROJECT / SESSION / "subagents" / "agent-a1b2c3d.jsonl", subagent())
    (PROJECT / SESSION / "subagents" / "agent-a1b2c3d.meta.json").write_text('{"agentType":"Explore","spawnDepth":1}\n')
    write(PROJECT / f"{SECOND}.jsonl", second_session())
    registry = HOME / ".claude" / "sessions" / f"{STALE_PID}.json"
    registry.parent.mkdir(parents=True, exist_ok=True)
    registry.write_bytes(orjson.dumps(stale_registry_entry()) + b"\n")
