"""Generate a synthetic home at scale for the benchmark runner.

Default (docs/performance.md): 1,000 Claude files whose replies are
streamed twice, with subagents; 300 Codex rollouts; 100 Gemini chats; 100
Cursor transcripts with a ``state.vscdb``; about 180 MB.  Content is random
but shaped like the real formats, and deterministic for a given seed.

    python bench/generate.py OUT_DIR [--scale 1.0] [--big-mb 0]

``--big-mb N`` also writes one N-MB Claude transcript (for ``show`` RSS).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sqlite3
import string
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson

UTC = timezone.utc
START = datetime(2026, 9, 1, tzinfo=UTC)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _words(rng: random.Random, count: int) -> str:
    return " ".join("".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(count))


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _write_lines(path: Path, records: list, mtime: datetime) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(orjson.dumps(r) + b"\n" for r in records)
    path.write_bytes(data)
    os.utime(path, (mtime.timestamp(), mtime.timestamp()))
    return len(data)


# -- Claude Code ------------------------------------------------------------------


def _claude_records(rng: random.Random, session: str, cwd: str, start: datetime, turns: int, sidechain: bool = False, agent: str | None = None):
    records = []
    moment = start
    parent = None
    for _turn in range(turns):
        moment += timedelta(seconds=rng.randint(5, 90))
        uid = _uuid(rng)
        base = {"parentUuid": parent, "isSidechain": sidechain, "userType": "external", "cwd": cwd, "sessionId": session,
                "version": "2.1.63", "gitBranch": "main", "timestamp": _iso(moment)}
        if agent:
            base["agentId"] = agent
        records.append({**base, "type": "user", "uuid": uid, "message": {"role": "user", "content": _words(rng, rng.randint(8, 40))}})
        parent = uid
        msg_id = f"msg_{rng.getrandbits(64):016x}"
        req_id = f"req_{rng.getrandbits(64):016x}"
        usage = {"input_tokens": rng.randint(1, 50), "cache_creation_input_tokens": rng.randint(0, 4000),
                 "cache_read_input_tokens": rng.randint(0, 90000), "output_tokens": rng.randint(1, 20),
                 "service_tier": "standard"}
        final = dict(usage, output_tokens=usage["output_tokens"] + rng.randint(10, 900))
        # Streamed twice: a snapshot copy, then the final copy of the same call.
        for copy, blocks in ((usage, [{"type": "text", "text": _words(rng, rng.randint(20, 120))}]),
                             (final, [{"type": "tool_use", "id": f"toolu_{rng.getrandbits(48):012x}", "name": "Bash",
                                       "input": {"command": _words(rng, 6)}}])):
            moment += timedelta(milliseconds=rng.randint(100, 2000))
            uid = _uuid(rng)
            records.append({**base, "timestamp": _iso(moment), "parentUuid": parent, "type": "assistant", "uuid": uid, "requestId": req_id,
                            "message": {"id": msg_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                                        "content": blocks, "usage": copy}})
            parent = uid
        tool_id = records[-1]["message"]["content"][0]["id"]
        records.append({**base, "timestamp": _iso(moment), "type": "user", "uuid": _uuid(rng), "parentUuid": parent,
                        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id,
                                                                 "content": _words(rng, rng.randint(40, 450))}]},
                        "toolUseResult": {"stdout": "…", "stderr": "", "interrupted": False}})
        records.append({**base, "timestamp": _iso(moment), "type": "progress", "uuid": _uuid(rng),
                        "data": {"type": "bash_progress", "output": _words(rng, 40)}})
    return records


def claude(home: Path, rng: random.Random, count: int) -> int:
    total = 0
    projects = home / ".claude" / "projects"
    for index in range(count):
        session = _uuid(rng)
        cwd = f"/home/bench/src/project-{index % 40}"
        slug = "".join(c if c.isalnum() else "-" for c in cwd)
        start = START + timedelta(minutes=index * 97)
        records = _claude_records(rng, session, cwd, start, rng.randint(15, 45))
        mtime = start + timedelta(hours=2)
        total += _write_lines(projects / slug / f"{session}.jsonl", records, mtime)
        if index % 4 == 0:
            agent = f"a{rng.getrandbits(28):07x}"
            sub = _claude_records(rng, session, cwd, start + timedelta(minutes=3), rng.randint(5, 15), sidechain=True, agent=agent)
            total += _write_lines(projects / slug / session / "subagents" / f"agent-{agent}.jsonl", sub, mtime)
    return total


def claude_big(home: Path, rng: random.Random, megabytes: int) -> Path:
    """One huge transcript for the ``show`` memory figure, written in chunks."""
    session = "b16b16b1-0000-4000-8000-000000000001"
    path = home / ".claude" / "projects" / "-home-bench-big" / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    target = megabytes * 1024 * 1024
    written = 0
    start = START
    with path.open("wb") as handle:
        while written < target:
            records = _claude_records(rng, session, "/home/bench/big", start, 200)
            start += timedelta(hours=3)
            chunk = b"".join(orjson.dumps(r) + b"\n" for r in records)
            handle.write(chunk)
            written += len(chunk)
    return path


# -- Codex CLI --------------------------------------------------------------------


def codex(home: Path, rng: random.Random, count: int) -> int:
    total = 0
    for index in range(count):
        thread = _uuid(rng)
        start = START + timedelta(minutes=index * 311)
        day = home / ".codex" / "sessions" / f"{start:%Y}" / f"{start:%m}" / f"{start:%d}"
        cwd = f"/home/bench/src/codex-{index % 20}"
        records = [{"timestamp": _iso(start), "type": "session_meta",
                    "payload": {"id": thread, "timestamp": _iso(start), "cwd": cwd, "originator": "codex_cli_rs",
                                "cli_version": "0.135.0", "source": "cli", "model_provider": "openai"}}]
        moment = start
        cumulative = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0, "total_tokens": 0}
        for turn in range(rng.randint(10, 40)):
            moment += timedelta(seconds=rng.randint(5, 120))
            records.append({"timestamp": _iso(moment), "type": "turn_context",
                            "payload": {"cwd": cwd, "model": "gpt-5-codex", "approval_policy": "on-request"}})
            text = _words(rng, rng.randint(8, 40))
            records.append({"timestamp": _iso(moment), "type": "event_msg", "payload": {"type": "user_message", "message": text}})
            records.append({"timestamp": _iso(moment), "type": "response_item",
                            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}})
            records.append({"timestamp": _iso(moment), "type": "response_item",
                            "payload": {"type": "function_call", "name": "shell", "call_id": f"call_{turn}",
                                        "arguments": orjson.dumps({"command": ["bash", "-lc", _words(rng, 5)]}).decode()}})
            records.append({"timestamp": _iso(moment), "type": "response_item",
                            "payload": {"type": "function_call_output", "call_id": f"call_{turn}", "output": _words(rng, rng.randint(40, 400))}})
            inp = rng.randint(1000, 30000)
            last = {"input_tokens": inp, "cached_input_tokens": rng.randint(0, inp), "output_tokens": rng.randint(10, 900),
                    "reasoning_output_tokens": 0, "total_tokens": 0}
            last["reasoning_output_tokens"] = rng.randint(0, last["output_tokens"])
            last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
            cumulative = {k: cumulative[k] + last[k] for k in cumulative}
            event = {"timestamp": _iso(moment), "type": "event_msg",
                     "payload": {"type": "token_count", "info": {"total_token_usage": dict(cumulative), "last_token_usage": last,
                                                                 "model_context_window": 258400}, "rate_limits": None}}
            records.append(event)
            if turn % 5 == 0:
                records.append(event)  # a re-emitted count, as real builds write
            records.append({"timestamp": _iso(moment), "type": "event_msg", "payload": {"type": "agent_message", "message": _words(rng, 30)}})
        name = f"rollout-{start:%Y-%m-%dT%H-%M-%S}-{thread}.jsonl"
        total += _write_lines(day / name, records, moment)
    return total


# -- Gemini CLI -------------------------------------------------------------------


def gemini(home: Path, rng: random.Random, count: int) -> int:
    total = 0
    projects: dict[str, str] = {}
    for index in range(count):
        session = _uuid(rng)
        root = f"/home/bench/src/gemini-{index % 10}"
        slug = f"gemini-{index % 10}"
        projects[root] = slug
        start = START + timedelta(minutes=index * 613)
        chats = home / ".gemini" / "tmp" / slug / "chats"
        (chats.parent).mkdir(parents=True, exist_ok=True)
        (chats.parent / ".project_root").write_text(root)
        lines: list = [{"sessionId": session, "projectHash": hashlib.sha256(root.encode()).hexdigest(),
                        "startTime": _iso(start), "lastUpdated": _iso(start), "kind": "main"}]
        moment = start
        for _turn in range(rng.randint(10, 30)):
            moment += timedelta(seconds=rng.randint(5, 120))
            lines.append({"id": _uuid(rng), "timestamp": _iso(moment), "type": "user", "content": [{"text": _words(rng, 20)}]})
            reply_id = _uuid(rng)
            reply = {"id": reply_id, "timestamp": _iso(moment), "type": "gemini", "content": _words(rng, 80), "model": "gemini-2.5-pro"}
            lines.append(reply)
            inp = rng.randint(2000, 40000)
            cached = rng.randint(0, inp)
            out, thoughts, tool = rng.randint(10, 800), rng.randint(0, 400), rng.randint(0, 50)
            tokens = {"input": inp, "output": out, "cached": cached, "thoughts": thoughts, "tool": tool, "total": inp + out + thoughts + tool}
            lines.append(dict(reply, tokens=tokens))  # the same id again, now with tokens: last wins
            lines.append({"$set": {"lastUpdated": _iso(moment)}})
        name = f"session-{start:%Y-%m-%dT%H-%M}-{session[:8]}.jsonl"
        total += _write_lines(chats / name, lines, moment)
    (home / ".gemini" / "projects.json").write_bytes(orjson.dumps({"projects": projects}))
    return total


# -- Cursor -----------------------------------------------------------------------

_DDL = """
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
"""


def cursor(home: Path, rng: random.Random, count: int, bubbles_per_composer: int = 40, extra_bubbles: int = 0) -> int:
    total = 0
    db_path = home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    db_path.parent.mkdir(parents=True, exist_ok=True)
    if db_path.exists():
        db_path.unlink()
    conn = sqlite3.connect(db_path)
    conn.executescript(_DDL)
    rows = []
    for index in range(count):
        composer = _uuid(rng)
        cwd = f"/home/bench/src/cursor-{index % 10}"
        slug = cwd.lstrip("/").replace("/", "-")
        start = START + timedelta(minutes=index * 733)
        lines = []
        for _turn in range(rng.randint(5, 20)):
            lines.append({"role": "user", "message": {"content": [{"type": "text", "text": f"<user_query>\n{_words(rng, 20)}\n</user_query>"}]}})
            lines.append({"role": "assistant", "message": {"content": [
                {"type": "text", "text": _words(rng, 60)},
                {"type": "tool_use", "name": "Shell", "input": {"command": _words(rng, 5), "working_directory": cwd}}]}})
        path = home / ".cursor" / "projects" / slug / "agent-transcripts" / composer / f"{composer}.jsonl"
        total += _write_lines(path, lines, start + timedelta(hours=1))
        headers = []
        for bubble in range(bubbles_per_composer):
            bubble_id = _uuid(rng)
            kind = 1 if bubble % 2 == 0 else 2
            headers.append({"bubbleId": bubble_id, "type": kind})
            value = {"_v": 3, "type": kind, "bubbleId": bubble_id, "text": _words(rng, 30),
                     "tokenCount": {"inputTokens": rng.randint(100, 5000) if kind == 2 else 0,
                                    "outputTokens": rng.randint(10, 800) if kind == 2 else 0}}
            rows.append((f"bubbleId:{composer}:{bubble_id}", orjson.dumps(value)))
        data = {"_v": 10, "composerId": composer, "name": _words(rng, 4), "createdAt": int(start.timestamp() * 1000),
                "lastUpdatedAt": int((start + timedelta(hours=1)).timestamp() * 1000),
                "modelConfig": {"modelName": "claude-4.5-sonnet"}, "fullConversationHeadersOnly": headers,
                "workspaceIdentifier": {"uri": {"fsPath": cwd}}}
        rows.append((f"composerData:{composer}", orjson.dumps(data)))
    for _ in range(extra_bubbles):
        rows.append((f"bubbleId:{_uuid(rng)}:{_uuid(rng)}", orjson.dumps({"_v": 3, "type": 2, "text": _words(rng, 10)})))
    conn.executemany("INSERT INTO cursorDiskKV(key, value) VALUES (?, ?)", rows)
    conn.commit()
    conn.close()
    return total + db_path.stat().st_size


def generate(out: Path, *, scale: float = 1.0, big_mb: int = 0, seed: int = 7) -> dict[str, int]:
    rng = random.Random(seed)
    home = out / "home"
    sizes = {
        "claude": claude(home, rng, int(1000 * scale)),
        "codex": codex(home, rng, int(300 * scale)),
        "gemini": gemini(home, rng, int(100 * scale)),
        "cursor": cursor(home, rng, int(100 * scale)),
    }
    if big_mb:
        big = claude_big(out / "big-home", rng, big_mb)
        sizes["big"] = big.stat().st_size
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--big-mb", type=int, default=0)
    args = parser.parse_args()
    sizes = generate(args.out, scale=args.scale, big_mb=args.big_mb)
    for name, size in sizes.items():
        print(f"{name:8} {size / 1e6:8.1f} MB")


if __name__ == "__main__":
    main()
