"""What of a command typed while Claude Code was busy is a prompt (``queuedprompts.queued_prompt_text``).

Claude Code hides a ``queued_command`` attachment it queued itself (``isMeta``: system-generated,
a scheduled task's) from its own transcript view: no prompt of the user's.  A slash command the
user queued is left out of the turn and run after it, written by its own records (a command
Claude Code runs itself: no prompt); an attachment holding ``/…`` was sent to the model as text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentscan.providers.claude.queuedprompts import queued_prompt_text
from claude_events import cli_json_at, lines_of
from builders import claude_session_file

SID = "33333333-2222-3333-4444-555555555566"


def _rec(**fields: Any) -> dict:
    return {"isSidechain": False, "userType": "external", "cwd": "/tmp/proj", "sessionId": SID, "version": "2.1.120",
            **fields}


def _queued(ts: str, prompt: Any, **attachment: Any) -> dict:
    return _rec(type="attachment", timestamp=ts,
                attachment={"type": "queued_command", "prompt": prompt, "commandMode": "prompt", **attachment})


def test_a_queued_command_claude_code_made_itself_is_no_prompt() -> None:
    assert queued_prompt_text(_queued("2026-10-01T10:00:06.000Z", "check the deploy", isMeta=True)) is None
    assert queued_prompt_text(_queued("2026-10-01T10:00:06.000Z", "check the deploy", isMeta=False)) == "check the deploy"


def test_a_slash_command_queued_is_counted_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As the real spotter sample writes a queued ``/mcp``: a queue line (never read), then the
    # command's own record after the turn (a command Claude Code ran itself: no prompt).
    records = [
        _rec(type="user", uuid="u1", timestamp="2026-10-01T10:00:00.000Z", message={"role": "user", "content": "Run the tests"}),
        {"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-10-01T10:00:01.000Z", "sessionId": SID,
         "content": "/mcp"},
        _queued("2026-10-01T10:00:02.000Z", "nightly check: run the linters", isMeta=True),
        _rec(type="assistant", uuid="a1", timestamp="2026-10-01T10:00:05.000Z", requestId="req_1",
             message={"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
                      "content": [{"type": "text", "text": "All green."}], "usage": {"input_tokens": 10, "output_tokens": 20}}),
        {"type": "queue-operation", "operation": "remove", "timestamp": "2026-10-01T10:00:06.000Z", "sessionId": SID},
        _rec(type="user", uuid="u2", timestamp="2026-10-01T10:00:07.000Z",
             message={"role": "user", "content": "<command-name>/mcp</command-name>\n<command-message>mcp</command-message>\n"
                                                 "<command-args></command-args>"}),
        _queued("2026-10-01T10:00:08.000Z", "/review this once more"),  # (sent to the model as text)
    ]
    claude_session_file(tmp_path / "home", SID, []).write_bytes(lines_of(records))
    (row,) = cli_json_at(tmp_path, monkeypatch, "--no-cache", "list")["sessions"]
    assert row["counts"]["prompts"] == 2
    session = cli_json_at(tmp_path, monkeypatch, "--no-cache", "show", SID[:8])["session"]
    assert [prompt["text"] for prompt in session["prompts"]] == ["Run the tests", "/review this once more"]
