"""A failed call's error text (``tools[].error``; ``show --full``'s ``    error: …``) for Codex
and Gemini, as for Claude (pass 48): the text the record holds, one line, cut at 200
characters; ``null`` for a call that succeeded or that the user declined."""

from __future__ import annotations

from pathlib import Path

import orjson

from agentscan.toolkit.errortext import ERROR_CHARS, error_line
from builders import invoke
from codex_builders import at, function_call, function_output, line, meta, rollout_path, turn_context
from codex_builders import user_message, write_rollout
from gemini_builders import call, gemini, tokens, user, write_chat
from gemini_builders import meta as gemini_meta

THREAD = "019e0000-0000-7000-8000-00000000e048"
MAKE = "make: *** No rule to make target. "
CHAT = "aaaa0048-0000-4000-8000-000000000001"


def _tools(session: str) -> list[dict]:
    result = invoke("show", session, "--json")
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout_bytes)["session"]["tools"]


def test_error_line_is_one_line_cut_at_200() -> None:
    assert error_line("  a\n\tb  ") == "a b"
    assert error_line("   ") is None and error_line(None) is None
    cut = error_line("x" * 500)
    assert cut is not None and len(cut) == ERROR_CHARS and cut.endswith("…")


def test_codex_failed_calls_carry_their_error(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    write_rollout(rollout_path(codex, THREAD, at(0)), [
        meta(THREAD, at(0)), turn_context(at(1)), user_message(at(2), "run the tests"),
        # a shell call whose output (an object, as newer builds write it) says exit code 1
        function_call(at(3), "shell", {"command": ["bash", "-lc", "pytest -q"]}, "c1"),
        function_output(at(4), "c1", orjson.dumps({"output": "E   assert 1 == 2\n1 failed", "metadata":
                                                   {"exit_code": 1, "duration_seconds": 0.5}}).decode()),
        # an older build's plain text: the header before ``Output:`` is not the error
        function_call(at(5), "shell", {"command": ["bash", "-lc", "ls /nope"]}, "c2"),
        function_output(at(6), "c2", "Exit code: 2\nWall time: 0.1 seconds\nOutput:\nls: cannot access '/nope'"),
        # an end event settles the call: its standard error
        function_call(at(7), "shell", {"command": ["bash", "-lc", "make"]}, "c3"),
        line(at(8), "event_msg", {"type": "exec_command_end", "call_id": "c3", "exit_code": 2,
                                  "stdout": "", "stderr": "make: *** No rule to make target.\n" + "y" * 400}),
        function_output(at(8.5), "c3", "Exit code: 2\nOutput:\nignored"),
        # an MCP call that failed; a call that went fine; one the user declined
        function_call(at(9), "mcp__db__query", {"query": "select 1"}, "c4"),
        line(at(10), "event_msg", {"type": "mcp_tool_call_end", "call_id": "c4", "result": {"Err": "tool timed out"}}),
        function_call(at(11), "shell", {"command": ["bash", "-lc", "true"]}, "c5"),
        function_output(at(12), "c5", orjson.dumps({"output": "", "metadata": {"exit_code": 0}}).decode()),
        function_call(at(13), "shell", {"command": ["bash", "-lc", "rm -rf /"]}, "c6"),
        function_output(at(14), "c6", "exec command rejected by user"),
    ])
    tools = _tools(THREAD)
    assert [(t["status"], t["error"]) for t in tools] == [
        ("error", "E assert 1 == 2 1 failed"),
        ("error", "ls: cannot access '/nope'"),
        ("error", MAKE + "y" * (ERROR_CHARS - 1 - len(MAKE)) + "…"),
        ("error", "tool timed out"),
        ("ok", None),
        ("denied", None),
    ]
    full = invoke("show", THREAD, "--full").output
    assert "    error: ls: cannot access '/nope'\n" in full


def test_gemini_failed_calls_carry_their_error(isolated_home: Path) -> None:
    failed = call("t1", "read_file", {"file_path": "/x/missing.py"}, status="error")
    failed["result"] = [{"functionResponse": {"id": "t1", "name": "read_file",
                                              "response": {"error": "File not found:\n/x/missing.py"}}}]
    failed["resultDisplay"] = "File not found."
    shell = call("t2", "run_shell_command", {"command": "pytest -q"}, status="error")
    shell["result"] = [{"functionResponse": {"id": "t2", "name": "run_shell_command",
                                             "response": {"output": "Exit code: 1\n1 failed, 4 passed"}}}]
    shown = call("t3", "write_file", {"file_path": "/x/a.py"}, status="error")
    shown["resultDisplay"] = "Permission denied: /x/a.py"
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-aaaa0048.jsonl", [
        gemini_meta(CHAT),
        user("u1", "2026-05-01T10:00:01.000Z", "fix it"),
        gemini("g1", "2026-05-01T10:00:02.000Z", "", usage=tokens(100, 10), calls=[
            failed, shell, shown,
            call("t4", "list_directory", {"dir_path": "."}),
            call("t5", "replace", {"file_path": "/x/b.py"}, status="cancelled"),
        ]),
    ])
    tools = _tools("aaaa0048")
    assert [(t["status"], t["error"]) for t in tools] == [
        ("error", "File not found: /x/missing.py"),
        ("error", "Exit code: 1 1 failed, 4 passed"),
        ("error", "Permission denied: /x/a.py"),
        ("ok", None),
        ("denied", None),
    ]
    assert "    error: File not found: /x/missing.py\n" in invoke("show", "aaaa0048", "--full").output
