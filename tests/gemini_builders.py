"""Builders for fake Gemini CLI homes; real samples are copied, never rewritten.

The record shapes follow docs/providers/gemini.md and the real samples in
``fixtures/real/gemini``: a JSONL chat is a metadata line, message
lines (an id may repeat), ``{"$set": …}`` and ``{"$rewindTo": id}`` lines.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any, Iterable

import orjson

from builders import REAL, claude_slug, write_jsonl

REAL_GEMINI = REAL / "gemini"
REAL_LEGACY_2025 = REAL_GEMINI / "session-2025-10-05T07-11-eefc44a3.json"
REAL_LEGACY_2026 = REAL_GEMINI / "session-2026-03-27T10-19-8a20078e.json"
REAL_JSONL = REAL_GEMINI / "session-2026-04-23T12-52-0ab84937.jsonl"
REAL_SAMPLES = (REAL_LEGACY_2025, REAL_LEGACY_2026, REAL_JSONL)


def sha256_hex(path: str) -> str:
    """Gemini CLI's projectHash: sha256 of the project root string."""
    return hashlib.sha256(path.encode("utf-8")).hexdigest()


def _sample_project_hash(sample: Path) -> str:
    if sample.suffix == ".jsonl":
        first = sample.read_bytes().split(b"\n", 1)[0]
        return orjson.loads(first)["projectHash"]
    return json.loads(sample.read_text("utf-8"))["projectHash"]


def lay_out_real_gemini(home: Path) -> Path:
    """Copy the three real samples to ``home/.gemini/tmp/<projectHash>/chats/``.

    Each goes into a hash-named project dir (the pre-v0.29 layout), named by
    its own ``projectHash``; nothing names those projects' roots, so their
    cwd is unknown.  Returns the ``tmp`` dir.
    """
    tmp = home / ".gemini" / "tmp"
    for sample in REAL_SAMPLES:
        chats = tmp / _sample_project_hash(sample) / "chats"
        chats.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sample, chats / sample.name)
    return tmp


# -- synthetic records ------------------------------------------------------


def tokens(input: int, output: int, *, cached: int = 0, thoughts: int = 0, tool: int = 0) -> dict[str, int]:
    """A ``tokens`` object as Gemini CLI writes it: total = input + output + thoughts + tool."""
    return {
        "input": input,
        "output": output,
        "cached": cached,
        "thoughts": thoughts,
        "tool": tool,
        "total": input + output + thoughts + tool,
    }


def meta(session_id: str, *, project_hash: str = "0" * 64, start: str = "2026-05-01T10:00:00.000Z", kind: str = "main") -> dict[str, Any]:
    return {"sessionId": session_id, "projectHash": project_hash, "startTime": start, "lastUpdated": start, "kind": kind}


def user(message_id: str, ts: str, text: str, *, display: str | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {"id": message_id, "timestamp": ts, "type": "user", "content": [{"text": text}]}
    if display is not None:
        record["displayContent"] = [{"text": display}]
    return record


def gemini(
    message_id: str,
    ts: str,
    text: str = "",
    *,
    usage: dict[str, int] | None = None,
    model: str = "gemini-2.5-pro",
    calls: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": message_id,
        "timestamp": ts,
        "type": "gemini",
        "content": text,
        "thoughts": [],
        "tokens": usage,
        "model": model,
    }
    if calls is not None:
        record["toolCalls"] = calls
    return record


def call(call_id: str, name: str, args: dict[str, Any], *, status: str = "success", ts: str | None = None) -> dict[str, Any]:
    return {"id": call_id, "name": name, "args": args, "result": [], "status": status, "timestamp": ts or "2026-05-01T10:00:00.000Z"}


def set_(**fields: Any) -> dict[str, Any]:
    return {"$set": fields}


def rewind(message_id: str) -> dict[str, Any]:
    return {"$rewindTo": message_id}


def chats_dir(home: Path, project: str) -> Path:
    return home / ".gemini" / "tmp" / project / "chats"


def write_chat(home: Path, project: str, name: str, records: Iterable[Any], *, mtime: float | None = None) -> Path:
    """A JSONL chat at ``.gemini/tmp/<project>/chats/<name>``."""
    return write_jsonl(chats_dir(home, project) / name, records, mtime=mtime)


def write_legacy(home: Path, project: str, name: str, document: dict[str, Any], *, mtime: float | None = None) -> Path:
    """A pretty-printed legacy chat, as Gemini CLI ≤ v0.38 wrote it."""
    path = chats_dir(home, project) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False), "utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


LEGACY_NAME = "session-2025-09-01T08-00-11111111.json"


def legacy_chat(home: Path, session_id: str, *, cut_mid_reply: bool = False) -> Path:
    """A legacy chat of two prompts and two replies with usage (``proj/LEGACY_NAME``); with
    ``cut_mid_reply`` it ends inside the last reply's text, as a rewrite caught half written
    does: the 3 messages before it are whole."""
    path = write_legacy(home, "proj", LEGACY_NAME, {
        "sessionId": session_id, "projectHash": "0" * 64, "startTime": "2025-09-01T08:00:00.000Z",
        "lastUpdated": "2025-09-01T08:09:00.000Z",
        "messages": [
            user("u1", "2025-09-01T08:00:01.000Z", "rename the module"),
            gemini("g1", "2025-09-01T08:00:05.000Z", "renamed", usage=tokens(900, 90)),
            user("u2", "2025-09-01T08:05:00.000Z", "now update the imports"),
            gemini("g2", "2025-09-01T08:05:09.000Z", "updated every import", usage=tokens(1200, 120)),
        ],
    })
    if cut_mid_reply:
        data = path.read_bytes()
        path.write_bytes(data[: data.index(b"updated every import")])
    return path


def write_claude_transcript(home: Path, cwd: str, session_id: str) -> Path:
    """A minimal Claude Code transcript whose records carry ``cwd``.

    Shape from fixtures/real/claude/spotter-short-v2.1.38.jsonl.
    """
    base = {"cwd": cwd, "sessionId": session_id, "version": "2.1.38", "gitBranch": "main", "isSidechain": False, "userType": "external"}
    records = [
        {**base, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-05-01T09:00:00.000Z",
         "message": {"role": "user", "content": "hello"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2026-05-01T09:00:01.000Z",
         "requestId": "req_1",
         "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                     "content": [{"type": "text", "text": "hi"}],
                     "usage": {"input_tokens": 3, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}},
    ]
    return write_jsonl(home / ".claude" / "projects" / claude_slug(cwd) / f"{session_id}.jsonl", records)


def hash_named_chat(home: Path, cwd: str) -> None:
    """One Gemini chat in the directory named by ``cwd``'s hash: its cwd is known only when
    another provider's session (``write_claude_transcript``) or the registry names ``cwd``."""
    project = sha256_hex(cwd)
    write_chat(home, project, "session-2026-05-01T10-00-11111111.jsonl",
               [meta("11111111-2222-4333-8444-555555555555", project_hash=project),
                user("u1", "2026-05-01T10:00:00.000Z", "hi"),
                gemini("g1", "2026-05-01T10:00:01.000Z", "yo", usage=tokens(10, 5))], mtime=1_777_000_000)
