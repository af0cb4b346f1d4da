"""A pre-envelope Codex rollout (the CLI of mid-2025, before ``session_meta``): a bare header
``{"id", "timestamp", "instructions", "git"}``, ``{"record_type": "state"}`` markers, then bare
response items without a ``type``/``payload`` envelope (formats.md §2.2).  Its row once was a
row of dashes and ``show`` said nothing of its conversation (review s35, finding 10); its
items are now read as the envelope's, its cwd from its environment context.  It recorded no
token counts: its tokens stay ``null``."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app

OLD = "0196f0aa-1111-7222-8333-444455556666"
CWD = "/home/me/src/legacy"


def _message(role: str, kind: str, text: str) -> dict:
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _write(codex: Path) -> Path:
    records = [
        {"id": OLD, "timestamp": "2025-05-20T08:00:00.000Z", "instructions": "", "git": {"branch": "dev"}},
        {"record_type": "state"},
        _message("user", "input_text", f"<environment_context>\n  <cwd>{CWD}</cwd>\n</environment_context>"),
        _message("user", "input_text", "explain this repo"),
        {"type": "function_call", "name": "shell", "arguments": orjson.dumps({"command": ["ls"]}).decode(),
         "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": "README.md"},
        {"record_type": "state"},
        _message("assistant", "output_text", "It is a CLI."),
    ]
    path = codex / "sessions" / f"rollout-2025-05-20-{OLD}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    return path


def _json(*argv: str) -> dict:
    result = CliRunner().invoke(app, [*argv, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def test_a_pre_envelope_rollouts_row_and_show(isolated_home: Path) -> None:
    _write(isolated_home / ".codex")
    (row,) = _json("list", "--all")["sessions"]
    assert (row["native_id"], row["title"], row["cwd"], row["git_branch"]) == (OLD, "explain this repo", CWD, "dev")
    assert row["started_at"] == "2025-05-20T08:00:00.000Z" and row["tokens"] is None
    assert row["counts"] == {"prompts": 1, "responses": 1, "tool_calls": 1}
    session = _json("show", OLD)["session"]
    assert [prompt["text"] for prompt in session["prompts"]] == ["explain this repo"]
    assert [response["text"] for response in session["responses"]] == ["It is a CLI."]
    assert [(tool["name"], tool["status"]) for tool in session["tools"]] == [("shell", "ok")]
    # Found by its project, in a list filtered by it.
    assert [found["native_id"] for found in _json("list", "--cwd", CWD)["sessions"]] == [OLD]
