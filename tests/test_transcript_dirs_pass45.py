"""A directory named as a transcript (``<id>.jsonl/``, ``session-….json/``, ``rollout-….jsonl/``,
``subagents/agent-….jsonl/``) is skipped with a warning, as a FIFO of that name is: never silently."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from builders import claude_session_file, claude_user, invoke
from codex_builders import lay_out_real_codex, rollout_path
from gemini_builders import chats_dir, lay_out_real_gemini

NATIVE = "7d1e5c3b-2a4f-4b6c-8d9e-0f1a2b3c4d5e"
STARTED = datetime(2026, 11, 1, 10, tzinfo=timezone.utc)


def _said(result, path: Path) -> list[str]:  # noqa: ANN001 - click's Result
    return [line for line in result.stderr.splitlines() if str(path) in line]


def test_directories_named_as_transcripts_are_said(isolated_home: Path) -> None:
    claude_session_file(isolated_home, NATIVE, [claude_user(NATIVE, "2026-11-01T10:00:00Z", "hello", cwd="/w")])
    project = isolated_home / ".claude" / "projects" / "-home-dev-project"
    folders = [
        project / "22222222-2222-4222-8222-222222222222.jsonl",
        project / NATIVE / "subagents" / "agent-zz.jsonl",
    ]
    lay_out_real_codex(isolated_home)
    folders.append(rollout_path(isolated_home / ".codex", "33333333-3333-4333-8333-333333333333", STARTED, archived=True))
    lay_out_real_gemini(isolated_home)
    folders.append(chats_dir(isolated_home, "p") / "session-2026-11-01T10-00-44444444.json")
    for folder in folders:
        folder.mkdir(parents=True)
    for command in ("list", "list"):  # a warm run says them too
        result = invoke(command, "--all")
        assert result.exit_code == 0
        for folder in folders:
            assert _said(result, folder) == [f"warning: {folder}: not a regular file (a directory); skipped"], (
                command, result.stderr)
