"""Every command tells the same story of a home of resumed Claude sessions (pass 47).

Trees of resumes in several projects (a session resumed from a resumed one copies both
sessions' records, each with its own session's id), some of their first sessions deleted,
with two models: every session's figures in ``list``, ``show`` and an export are its row in
``tokens``, and the rows add up to the total, cold, warm and without the cache.
"""

from __future__ import annotations

import random
import sqlite3
from decimal import Decimal
from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

MODELS = ("claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101")


def _home(home: Path, seed: int) -> list[str]:
    """Sessions in three projects, each resumed from an earlier one of its project or new."""
    rng = random.Random(seed)
    sessions: list[str] = []
    records: dict[str, list[dict]] = {}
    projects: dict[str, str] = {}
    calls = 0
    for n in range(14):
        session = f"{seed:02x}{n:06x}-0000-4000-8000-{n:012x}"
        project = f"-home-dev-p{rng.randrange(3)}"
        earlier = [s for s in sessions if projects[s] == project]
        copied = list(records[rng.choice(earlier)]) if earlier and rng.random() < 0.6 else []
        own = []
        for _ in range(rng.randrange(1, 4)):
            calls += 1
            ts = f"2026-05-{1 + n % 28:02d}T10:{calls % 60:02d}:00.000Z"
            own += [claude_user(session, ts, f"task {calls}", uuid=f"u{calls}"),
                    claude_assistant(session, ts, msg_id=f"m{calls}", request_id=f"r{calls}",
                                     usage=claude_usage(rng.randrange(1, 5000), rng.randrange(1, 900),
                                                        cache_read=rng.randrange(0, 20000)),
                                     model=rng.choice(MODELS), parentUuid=f"u{calls}", uuid=f"a{calls}")]
        records[session], projects[session] = copied + own, project
        claude_session_file(home, session, records[session], project=project)
        sessions.append(session)
    for gone in rng.sample(sessions, 3):
        (home / ".claude" / "projects" / projects[gone] / f"{gone}.jsonl").unlink()
        sessions.remove(gone)
    return sessions


def _figures(cache: tuple[str, ...]) -> tuple[dict, dict, dict]:
    rows = {row["key"]: (row["tokens"]["total"], row["cost_usd"])
            for row in orjson.loads(invoke(*cache, "tokens", "--json").stdout)["rows"]}
    listed = {row["id"]: (row["tokens"]["total"], row["cost_usd"])
              for row in orjson.loads(invoke(*cache, "list", "--all", "--json").stdout)["sessions"]}
    exported = {}
    for line in invoke(*cache, "export", "--format", "jsonl").stdout.splitlines():
        row = orjson.loads(line)
        exported[row["id"]] = (row["tokens"]["total"], row["cost_usd"])
    return rows, listed, exported


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_list_show_export_and_tokens_agree_on_resumed_sessions(isolated_home: Path, tmp_path: Path, seed: int) -> None:
    sessions = _home(isolated_home, seed)
    report = orjson.loads(invoke("tokens", "--json").stdout)
    total = report["total"]["total"]
    for cache in ((), (), ("--no-cache",)):  # cold, warm, no cache
        rows, listed, exported = _figures(cache)
        assert listed == rows == exported, cache
        assert sum(tokens for tokens, _ in listed.values()) == total
        assert sum(Decimal(str(cost)) for _, cost in listed.values()) == Decimal(str(report["cost_usd"]))
    for session in sessions:
        shown = orjson.loads(invoke("show", session, "--json").stdout)["session"]
        assert (shown["tokens"]["total"], shown["cost_usd"]) == rows[f"claude:{session}"], session
    out = tmp_path / "index.db"
    invoke("export", "--format", "sqlite", "-o", str(out))
    with sqlite3.connect(out) as db:
        (sessions_sum,), = db.execute("select sum(tokens_total) from sessions")
        (days_sum,), = db.execute("select sum(tokens_total) from token_days")
    assert sessions_sum == days_sum == total
