"""Small builders for fake homes; real samples are copied, never rewritten."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any, Iterable

import orjson

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
REAL = SHARED / "fixtures" / "real"


def write_jsonl(path: Path, records: Iterable[Any], *, mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def claude_slug(cwd: str) -> str:
    """Claude Code's lossy project dir name: every non-alphanumeric char becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def _first_session_id(path: Path) -> str:
    for line in path.read_bytes().splitlines():
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict) and record.get("sessionId") and record.get("type") in ("user", "assistant"):
            return record["sessionId"]
    raise ValueError(f"no sessionId in {path}")


# Top-level real samples laid out as main transcripts named by their own sessionId.
REAL_CLAUDE_MAINS = (
    "agent-history-real-session-01-v2.1.152-redacted.jsonl",
    "derived-agent-sessions-schema-catalog-v2.1.x.jsonl",
    "entire-checkpoint-37995ebed6e4-v2.1.12.jsonl",
    "entire-checkpoint-ee8f793bfeb9-v2.0.76.jsonl",
    "spotter-agent-progress-v2.1.38.trimmed.jsonl",
    "spotter-short-v2.1.38.jsonl",
    "spotter-tool-heavy-v2.1.38.jsonl",
    "vibecodingtracker-v1.0.95.trimmed.jsonl",
)


def lay_out_real_claude(home: Path) -> Path:
    """Lay ``shared/fixtures/real/claude`` out as ``home/.claude/projects``.

    * each top-level sample becomes ``<project>/<its sessionId>.jsonl``;
    * the two real trees (``projects/…`` and the derived subagent pair) are
      copied as they are;
    * the lone VibeLens subagent file goes under its parent's
      ``subagents/`` dir with no parent transcript (a parentless subagent).
    """
    projects = home / ".claude" / "projects"
    source = REAL / "claude"
    for name in REAL_CLAUDE_MAINS:
        sample = source / name
        session_id = _first_session_id(sample)
        target = projects / "-fixtures" / f"{session_id}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sample, target)
    shutil.copytree(source / "projects", projects, dirs_exist_ok=True, copy_function=shutil.copyfile)
    shutil.copytree(
        source / "derived-agent-sessions-subagent",
        projects / "-tmp",
        dirs_exist_ok=True,
        copy_function=shutil.copyfile,
    )
    vibelens = projects / "-example-recipe-book" / "example-session-claude-01" / "subagents"
    vibelens.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(
        source / "vibelens-subagent-agent-ae286913c0f1e919c-v2.1.63.jsonl",
        vibelens / "agent-ae286913c0f1e919c.jsonl",
    )
    return projects
