"""A prompt typed while Claude Code was busy is a prompt (``queuedprompts.queued_prompt_text``).

Claude Code 2.1 on folds such a prompt into the running turn and writes it only as an
``attachment`` record of type ``queued_command`` (``commandMode: "prompt"``), never as a
``user`` record: ``list`` counted one prompt of three and ``show`` listed only the first.
A queued shell command or task notification, and a message from another agent, are none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentscan.providers.claude.queuedprompts import queued_prompt_text
from agentscan.scan.scanner import Scanner
from builders import claude_session_file
from claude_events import cli_json_at, lines_of, lower_row_limits
from test_sidepass import BOUNDS

SID = "33333333-2222-3333-4444-555555555555"


def _rec(**fields: Any) -> dict:
    return {"isSidechain": False, "userType": "external", "cwd": "/tmp/proj", "sessionId": SID, "version": "2.1.120",
            **fields}


def _queued(ts: str, prompt: Any, **attachment: Any) -> dict:
    return _rec(type="attachment", timestamp=ts,
                attachment={"type": "queued_command", "prompt": prompt, "commandMode": "prompt", **attachment})


def _reply(uuid: str, ts: str, n: int, content: list) -> dict:
    return _rec(type="assistant", uuid=uuid, timestamp=ts, requestId=f"req_{n}",
                message={"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
                         "content": content, "usage": {"input_tokens": 10, "output_tokens": 20}})


RECORDS = [
    _rec(type="user", uuid="u1", timestamp="2026-10-01T10:00:00.000Z",
         message={"role": "user", "content": "Run the tests"}),
    _reply("a1", "2026-10-01T10:00:05.000Z", 1,
           [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest"}}]),
    _queued("2026-10-01T10:00:06.000Z", "  and then fix the first failure  "),
    # Not prompts: another attachment, a queued shell command, a notification, another agent's message
    _rec(type="attachment", timestamp="2026-10-01T10:00:06.500Z",
         attachment={"type": "nested_memory", "path": "/tmp/proj/CLAUDE.md"}),
    _queued("2026-10-01T10:00:07.000Z", "ls -la", commandMode="bash"),
    _queued("2026-10-01T10:00:07.500Z", "<task-notification>done</task-notification>", commandMode="task-notification"),
    _queued("2026-10-01T10:00:07.700Z", "from the lead", origin={"kind": "coordinator", "from": "lead"}),
    _rec(type="user", uuid="r1", timestamp="2026-10-01T10:00:08.000Z",
         message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "1 failed"}]}),
    _queued("2026-10-01T10:00:09.000Z",
            [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
             {"type": "text", "text": "this screenshot shows it"}], origin={"kind": "human"}),
    _reply("a2", "2026-10-01T10:00:12.000Z", 2, [{"type": "text", "text": "Fixed the failure."}]),
]
PROMPTS = ["Run the tests", "and then fix the first failure", "this screenshot shows it"]


def _home(tmp_path: Path) -> Path:
    path = claude_session_file(tmp_path / "home", SID, [])
    path.write_bytes(lines_of(RECORDS))
    return path


@pytest.mark.parametrize("cache", [True, False], ids=["cached", "no-cache"])
def test_a_queued_prompt_is_counted_and_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: bool) -> None:
    _home(tmp_path)
    flags = [] if cache else ["--no-cache"]
    for _ in range(2 if cache else 1):
        (row,) = cli_json_at(tmp_path, monkeypatch, *flags, "list")["sessions"]
        assert row["counts"] == {"prompts": 3, "responses": 1, "tool_calls": 1}
        assert row["title"] == "Run the tests"  # the turn's own prompt, never a queued one
        session = cli_json_at(tmp_path, monkeypatch, *flags, "show", SID[:8])["session"]
        assert session["counts"] == row["counts"]
        assert [prompt["text"] for prompt in session["prompts"]] == PROMPTS
        assert [prompt["timestamp"] for prompt in session["prompts"]][1] == "2026-10-01T10:00:06.000Z"
        assert [reply["text"] for reply in session["responses"]] == ["Fixed the failure."]
        assert cli_json_at(tmp_path, monkeypatch, *flags, "tokens")["total"]["output"] == 40  # no token of its own


def test_show_from_the_end_lists_it_as_the_forward_read_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch)  # a "huge" transcript: shown from its end (``tail``) or its kept facts
    _home(tmp_path)
    env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}
    shown = []
    for cache in (True, True, False):
        with Scanner(env=env, use_cache=cache) as scanner:
            detail = scanner.show(SID, bounds=BOUNDS).to_json()
        assert [prompt["text"] for prompt in detail["prompts"]] == PROMPTS
        assert [reply["text"] for reply in detail["responses"]] == ["Fixed the failure."]
        shown.append((detail["counts"], detail["prompts"], detail["responses"]))
    assert shown[0] == shown[1] == shown[2]


@pytest.mark.parametrize("attachment", [
    {"type": "queued_command", "prompt": "   "},
    {"type": "queued_command", "prompt": 7},
    {"type": "queued_command", "prompt": [{"type": "text", "text": "  "}]},  # (an image alone is a prompt: pass 44)
    {"type": "queued_command", "prompt": "x", "origin": "human"},
    {"type": "queued_command", "prompt": "x", "commandMode": None},
    {"type": "task_reminder", "content": "x"},
    "queued_command",
])
def test_what_is_no_queued_prompt(attachment: Any) -> None:
    assert queued_prompt_text({"type": "attachment", "attachment": attachment}) is None


def test_a_queued_prompt_needs_no_command_mode_or_origin() -> None:
    record = {"type": "attachment", "attachment": {"type": "queued_command", "prompt": "go on"}}
    assert queued_prompt_text(record) == "go on"
