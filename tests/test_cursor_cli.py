"""Cursor through the CLI: JSON documents, the demo home and the row cache."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.scan.scanner import Scanner
from agentscan.cli import app
from agentscan.demo import demo_home
from agentscan.providers.cursor.statedb import close_state_db
from cursor_builders import (
    assistant,
    bubble,
    composer_data,
    listing,
    make_state_db,
    state_db_path,
    user,
    write_transcript,
)

S = "5e551011-0000-4000-8000-000000000001"
DEMO_AGENT = "cursor:7c0a1e55-3b2d-4f6a-9e81-0d4c2b6a9f10"
DEMO_CHILD = "9d2e4f60-8a1b-4c3d-b5e6-7f8091a2b3c4"
DEMO_ZEROS = "cursor:a4b8c2d6-1e3f-4a5b-8c7d-9e0f1a2b3c4d"
DEMO_CLI = "cursor:e5f6a7b8-2c3d-4e5f-a6b7-c8d9e0f1a2b3"
DEMO_CHAT = "cursor:f0e1d2c3-4b5a-4968-8776-65544332211f"
DEMO_DB = demo_home() / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"


#: every test of this file reads Cursor alone (``conftest.only_cursor``)
pytestmark = pytest.mark.usefixtures("only_cursor")


def _json(args: list[str]) -> dict:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def test_demo_list(isolated_home: Path) -> None:
    doc = _json(["--demo", "list", "--provider", "cursor", "--json"])
    rows = {row["id"]: row for row in doc["sessions"]}
    assert set(rows) == {DEMO_AGENT, DEMO_ZEROS, DEMO_CLI, DEMO_CHAT}
    # 4120+380 + 6350+910 (own) + 2210+240 (the Task subagent)
    assert rows[DEMO_AGENT]["tokens"]["total"] == 14_210
    assert rows[DEMO_AGENT]["subagents"] == 1
    assert rows[DEMO_CHAT]["tokens"]["total"] == 4_830  # 1500+620 + 2300+410
    assert rows[DEMO_ZEROS]["tokens"] is None and rows[DEMO_CLI]["tokens"] is None
    assert (rows[DEMO_CLI]["title"], rows[DEMO_CLI]["model"], rows[DEMO_CLI]["cwd"]) == (
        "Add --json to status", "gpt-5", "/home/demo/src/cli-tool")
    assert rows[DEMO_CHAT]["path"] == str(DEMO_DB)
    assert doc["warnings"] == []


def test_demo_tokens(isolated_home: Path) -> None:
    doc = _json(["--demo", "tokens", "--provider", "cursor", "--json"])
    assert doc["total"]["total"] == 19_040  # 14,210 + 4,830
    agent = next(row for row in doc["rows"] if row["key"] == DEMO_AGENT)
    assert agent["own"]["total"] == 11_760
    # The child ran Cursor's "claude-4.5-sonnet" (Sonnet 4.5: $3 in, $15 out per million).
    assert agent["subagents"] == [{"id": DEMO_CHILD, "tokens": {
        "input": 2210, "cache_read": 0, "cache_write": 0, "output": 240, "reasoning": 0, "total": 2450},
        "cost_usd": (2210 * 3 + 240 * 15) / 1e6, "cost_usd_priced": (2210 * 3 + 240 * 15) / 1e6,
        "recovered_from": None}]


def test_demo_show(isolated_home: Path) -> None:
    session = _json(["--demo", "show", "7c0a1e55", "--json"])["session"]
    assert session["id"] == DEMO_AGENT
    assert session["subagents"][0]["id"] == DEMO_CHILD
    assert session["subagents"][0]["agent_type"] == "explore"
    assert session["delegations"] == [{"subagent": DEMO_CHILD, "prompt": 1, "agent_type": "explore",
                                       "description": "Find callers"}]
    zeros = _json(["--demo", "show", DEMO_ZEROS, "--json"])["session"]
    assert (zeros["tokens"], zeros["context_tokens"]) == (None, 18_342)
    # The failed turn stopped at `make migrate`: the grep and the patch before it returned.
    assert [t["status"] for t in zeros["tools"]][:3] == ["unknown", "unknown", "error"]


def test_demo_db_is_small_not_wal_and_left_alone(isolated_home: Path) -> None:
    header = DEMO_DB.read_bytes()[:100]
    assert header.startswith(b"SQLite format 3\x00")
    assert (header[18], header[19]) == (1, 1)  # rollback journal, not WAL
    assert DEMO_DB.stat().st_size <= 32 * 1024
    before = listing(DEMO_DB.parent)
    _json(["--demo", "list", "--provider", "cursor", "--json"])
    _json(["--demo", "show", DEMO_CHAT, "--json"])
    assert listing(DEMO_DB.parent) == before == ["state.vscdb"]


def test_list_json_row_shape(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("hello"), assistant("hi")])
    make_state_db(state_db_path(isolated_home), composers=[composer_data(S, name="Greeting", model="gpt-5")],
                  bubbles={S: [bubble("a", 2, "hi", tokens=(9, 1))]})
    (row,) = _json(["list", "--json"])["sessions"]
    assert row == {
        "id": f"cursor:{S}", "provider": "cursor", "native_id": S,
        "path": str(isolated_home / ".cursor/projects/p/agent-transcripts" / S / f"{S}.jsonl"),
        "title": "Greeting", "cwd": None, "model": "gpt-5", "git_branch": None,
        "started_at": None, "updated_at": row["updated_at"],
        "tokens": {"input": 9, "cache_read": 0, "cache_write": 0, "output": 1, "reasoning": 0, "total": 10},
        "cost_usd": (9 * 1.25 + 1 * 10) / 1e6,  # gpt-5: $1.25 in, $10 out per million
        "cost_usd_priced": (9 * 1.25 + 1 * 10) / 1e6,  # every call priced: the cost itself
        "counts": {"prompts": 1, "responses": 1, "tool_calls": 0}, "subagents": 0,
        "running": row["running"],  # from /proc by the shared layer, not the provider
        "counts_partial": False,
    }


def test_strict_fails_on_a_corrupt_db_but_still_prints(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("hello")])
    db = state_db_path(isolated_home)
    db.parent.mkdir(parents=True)
    db.write_bytes(b"not sqlite")
    result = CliRunner().invoke(app, ["--strict", "list", "--json"])
    assert result.exit_code == 1
    doc = orjson.loads(result.stdout)
    assert [s["title"] for s in doc["sessions"]] == ["hello"]
    assert doc["warnings"][0]["path"] == str(db)


def test_cached_rows_follow_changes_in_state_vscdb(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("hello")])
    db = make_state_db(state_db_path(isolated_home), composers=[composer_data(S)],
                       bubbles={S: [bubble("a", 2, "x", tokens=(1, 1))]})
    with Scanner(home=isolated_home, provider_names=["cursor"], use_cache=True) as first:
        assert first.list_sessions()[0].tokens.total == 2
        close_state_db(first.ctx)
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"bubbleId:{S}:b", orjson.dumps(bubble("b", 2, "y", tokens=(10, 5)))))
        conn.commit()
    with Scanner(home=isolated_home, provider_names=["cursor"], use_cache=True) as second:
        assert second.list_sessions()[0].tokens.total == 17
        close_state_db(second.ctx)
    with Scanner(home=isolated_home, provider_names=["cursor"], use_cache=True) as warm:
        assert warm.list_sessions()[0].tokens.total == 17
        assert warm.parses == 0  # unchanged files and DB: served from the cache


def test_locate_rebuilds_the_same_ref_as_discovery(isolated_home: Path) -> None:
    from agentscan.providers.cursor.provider import CursorProvider
    from cursor_builders import write_subagent

    child, other = "c1111111-0000-4000-8000-000000000001", "c2222222-0000-4000-8000-000000000002"
    ide = "1de00000-0000-4000-8000-000000000002"
    write_transcript(isolated_home, "home-me-app", S, [user("parent")], mtime=1_780_000_000)
    write_subagent(isolated_home, "home-me-app", S, child, [user("kid")], mtime=1_780_000_100)
    # The stale empty-window copy knows one more child: it still belongs to the session.
    write_transcript(isolated_home, "empty-window", S, [user("stale")], mtime=1_780_000_200)
    write_subagent(isolated_home, "empty-window", S, other, [user("kid 2")], mtime=1_780_000_050)
    make_state_db(state_db_path(isolated_home), composers=[composer_data(ide, name="chat", bubbles=["b"])])
    provider = CursorProvider()
    scanner = Scanner(home=isolated_home, provider_names=["cursor"])
    discovered = {ref.native_id: ref for ref in provider.discover(scanner.ctx)}
    assert set(discovered) == {S, ide}
    assert provider.locate(S, str(discovered[S].path), scanner.ctx) == discovered[S]
    # An IDE-only composer has no file of its own: the index cannot locate it.
    assert (discovered[ide].path, discovered[ide].files) == (None, ())
    assert provider.locate(ide, None, scanner.ctx) is None
    assert [sub.agent_id for sub in discovered[S].hint.transcripts.subagents] == [child, other]
    assert provider.locate("0" * 8, str(discovered[S].path), scanner.ctx) is None
    close_state_db(scanner.ctx)
