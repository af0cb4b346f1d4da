"""Benchmark: enriching 25 Cursor sessions from a large ``state.vscdb``.

Builds, in a temporary directory, a ``state.vscdb`` with Cursor's real DDL
holding 200,000 bubble rows (1,000 composers of 200 bubbles, ~1 KB each, like
real ones with ``richText``), plus 25 agent transcripts whose composers each
delegated to one sub-composer.  It then times, on a fresh scan each round:

* ``enrich``: open the DB read-only, read ``composerHeaders`` and the
  ``composerData`` range, and sum the bubble tokens of the 25 sessions and
  their 25 sub-composers (bounded range scans);
* ``list``: the whole ``agentscan list --provider cursor`` path for those 25
  sessions (discovery, transcripts, enrichment), through ``Scanner``;
* for contrast, the same 50 composers' bubbles fetched with ``LIKE``;
* ``tokens --provider cursor`` through the CLI, with an index, after Cursor wrote
  something else (a UI state row: a new stat for the DB, every row and sum read
  again, each composer's bubble stats taken back by digest: ``keptstats``),
  side by side with ``--no-cache``, which decodes every bubble.

Budget (issue #5): enriching 25 sessions takes under 0.5 s.  Not a test: run
``python bench/bench_cursor_enrich.py`` and read the figures.
"""

from __future__ import annotations

import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import closing
from pathlib import Path
from typing import Callable

import orjson

from agentscan.scan.scanner import Scanner
from agentscan.context import ScanContext
from agentscan.providers.cursor.row import child_ids
from agentscan.providers.cursor.usage import session_usage
from agentscan.providers.cursor.statedb import close_state_db, state_db

COMPOSERS = 1_000
BUBBLES_PER_COMPOSER = 200
SESSIONS = 25
ROUNDS = 7
BUDGET_SECONDS = 0.5
T0_MS = 1_785_000_000_000
FILLER = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 5


def _bubble(composer_index: int, index: int, bubble_id: str) -> bytes:
    kind = 1 if index % 2 == 0 else 2
    return orjson.dumps({
        "_v": 3, "type": kind, "bubbleId": bubble_id, "text": FILLER[: 200 + index % 80],
        "richText": orjson.dumps({"root": {"children": [{"text": FILLER[:300]}]}}).decode(),
        "createdAt": "2026-07-25T17:20:00.000Z", "requestId": str(uuid.UUID(int=composer_index * 10_000 + index)),
        "tokenCount": {"inputTokens": 0 if kind == 1 else 1000 + index, "outputTokens": 0 if kind == 1 else 50},
        "modelInfo": {"modelName": "claude-4.5-sonnet"} if kind == 2 else {},
        "timingInfo": {"clientStartTime": 1, "clientRpcSendTime": 2, "clientSettleTime": 3, "clientEndTime": 4},
    })


def build(home: Path) -> tuple[list[str], Path]:
    composer_ids = [str(uuid.UUID(int=(i + 1) * 7919)) for i in range(COMPOSERS)]
    # The first 25 are transcript sessions; each delegated to composer i + 25.
    parents = composer_ids[:SESSIONS]
    db_path = home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    db_path.parent.mkdir(parents=True)
    with closing(sqlite3.connect(db_path)) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        conn.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        conn.execute("CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, createdAt INTEGER,"
                     " lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, recency INTEGER,"
                     " checkpointAt INTEGER, value TEXT)")
        for ci, composer_id in enumerate(composer_ids):
            bubble_ids = [str(uuid.UUID(int=ci * 1_000_000 + b + 1)) for b in range(BUBBLES_PER_COMPOSER)]
            conn.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", [
                (f"bubbleId:{composer_id}:{bid}", _bubble(ci, b, bid)) for b, bid in enumerate(bubble_ids)
            ])
            is_sub = SESSIONS <= ci < 2 * SESSIONS
            updated = T0_MS + (10_000_000 if ci < SESSIONS else 0) + ci * 1000
            data = {
                "_v": 10, "composerId": composer_id, "name": f"composer {ci}", "createdAt": T0_MS,
                "lastUpdatedAt": updated, "modelConfig": {"modelName": "claude-4.5-sonnet"},
                "workspaceIdentifier": {"uri": {"fsPath": f"/home/bench/p{ci % 10}"}},
                "fullConversationHeadersOnly": [{"bubbleId": bid, "type": 1 + b % 2} for b, bid in enumerate(bubble_ids)],
                "subComposerIds": [composer_ids[ci + SESSIONS]] if ci < SESSIONS else [],
                "context": {"fileSelections": [], "selections": []},
            }
            conn.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"composerData:{composer_id}", orjson.dumps(data)))
            conn.execute("INSERT INTO composerHeaders (composerId, createdAt, lastUpdatedAt, isSubagent) VALUES (?, ?, ?, ?)",
                         (composer_id, T0_MS, updated, int(is_sub)))
        conn.commit()
    for parent in parents:
        transcript = home / ".cursor" / "projects" / "home-bench" / "agent-transcripts" / parent / f"{parent}.jsonl"
        transcript.parent.mkdir(parents=True)
        transcript.write_bytes(orjson.dumps({"role": "user", "message": {"content": [
            {"type": "text", "text": "<user_query>\nbench\n</user_query>"}]}}) + b"\n")
        os.utime(transcript, (T0_MS / 1000, T0_MS / 1000))
    return parents, db_path


def time_enrich(home: Path, parents: list[str]) -> tuple[float, int]:
    ctx = ScanContext.create(home=home, env={})
    started = time.perf_counter()
    db = state_db(ctx)
    headers, composers = db.headers(), db.composers()
    total = 0
    for parent in parents:
        assert parent in headers and parent in composers
        children = child_ids(parent, None, db)
        tokens = session_usage(parent, children, db).tokens()
        total += tokens.total if tokens else 0
    elapsed = time.perf_counter() - started
    close_state_db(ctx)
    return elapsed, total


def time_list(home: Path) -> tuple[float, int]:
    started = time.perf_counter()
    scanner = Scanner(home=home, env={}, provider_names=["cursor"])
    rows = scanner.list_sessions(limit=SESSIONS)
    elapsed = time.perf_counter() - started
    close_state_db(scanner.ctx)
    assert len(rows) == SESSIONS and not scanner.warnings, scanner.warnings
    return elapsed, sum(r.tokens.total for r in rows if r.tokens)


def time_like(db_path: Path, parents: list[str], children: list[str]) -> float:
    started = time.perf_counter()
    with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as conn:
        for composer_id in parents + children:
            for (value,) in conn.execute("SELECT value FROM cursorDiskKV WHERE key LIKE ?", (f"bubbleId:{composer_id}:%",)):
                orjson.loads(value)
    return time.perf_counter() - started


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="agentscan-bench-") as temp:
        home = Path(temp) / "home"
        started = time.perf_counter()
        parents, db_path = build(home)
        size_mb = sum(p.stat().st_size for p in db_path.parent.iterdir()) / 1e6
        print(f"built {COMPOSERS * BUBBLES_PER_COMPOSER:,} bubble rows in {COMPOSERS:,} composers "
              f"({size_mb:,.0f} MB) in {time.perf_counter() - started:.1f} s")
        # Each session: 100 assistant bubbles of (1000+i, 50), own composer plus one sub-composer.
        expected = SESSIONS * 2 * sum(1000 + i + 50 for i in range(1, BUBBLES_PER_COMPOSER, 2))
        enrich = []
        for _ in range(ROUNDS):
            elapsed, total = time_enrich(home, parents)
            assert total == expected, (total, expected)
            enrich.append(elapsed)
        listing = []
        for _ in range(ROUNDS):
            elapsed, total = time_list(home)
            assert total == expected, (total, expected)
            listing.append(elapsed)
        children = [child_ids_of(p, home) for p in parents]
        like = time_like(db_path, parents, [c for group in children for c in group])
        after, fresh = time_tokens_after_a_write(home, db_path, Path(temp) / "cache")
    worst = max(enrich)
    print(f"enrich {SESSIONS} sessions (+{SESSIONS} sub-composers, {2 * SESSIONS * BUBBLES_PER_COMPOSER:,} bubbles read): "
          f"median {statistics.median(enrich) * 1000:.0f} ms, first {enrich[0] * 1000:.0f} ms, worst {worst * 1000:.0f} ms "
          f"(budget {BUDGET_SECONDS * 1000:.0f} ms)")
    print(f"list --provider cursor ({SESSIONS} rows, end to end): median {statistics.median(listing) * 1000:.0f} ms, "
          f"worst {max(listing) * 1000:.0f} ms")
    print(f"contrast, the same bubbles through LIKE: {like * 1000:.0f} ms")
    print(f"tokens --provider cursor after another row was written ({COMPOSERS:,} composers): median "
          f"{statistics.median(after):.2f} s, against --no-cache {statistics.median(fresh):.2f} s "
          f"({statistics.median(after) / statistics.median(fresh):.2f}x)")
    return 0 if worst < BUDGET_SECONDS else 1


def time_tokens_after_a_write(home: Path, db_path: Path, cache: Path) -> tuple[list[float], list[float]]:
    """``tokens`` after an unrelated write to the DB, and ``--no-cache tokens``, each ROUNDS times."""
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "AGENTSCAN_CACHE_DIR": str(cache), "AGENTSCAN_DATA_DIR": str(cache / "data")}

    def tokens(*first: str) -> tuple[float, object]:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "agentscan", "-q", *first, "tokens", "--provider", "cursor", "--json"],
                              env=env, capture_output=True, check=True)
        return time.perf_counter() - started, orjson.loads(done.stdout)["total"]

    after, fresh = [], []
    # Cursor running: its connection held open (the DB's ``-wal`` there), its writes through it.
    with closing(sqlite3.connect(db_path)) as cursor:
        cursor.execute("SELECT count(*) FROM ItemTable").fetchone()
        _, expected = tokens()  # fills the index
        for round_ in range(ROUNDS):
            cursor.execute("INSERT INTO ItemTable VALUES ('workbench.panel.state', ?)", (str(round_),))
            cursor.commit()
            after.append(_timed_same(tokens, expected))
            fresh.append(_timed_same(lambda: tokens("--no-cache"), expected))
    return after, fresh


def _timed_same(run: Callable[[], tuple[float, object]], expected: object) -> float:
    elapsed, total = run()
    assert total == expected, (total, expected)
    return elapsed


def child_ids_of(parent: str, home: Path) -> tuple[str, ...]:
    ctx = ScanContext.create(home=home, env={})
    try:
        return child_ids(parent, None, state_db(ctx))
    finally:
        close_state_db(ctx)


if __name__ == "__main__":
    sys.exit(main())
