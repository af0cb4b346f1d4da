"""The Agent CLI store: ``chats/<md5(cwd)>/<id>/{meta.json, store.db}``."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

from agentscan.scan.scanner import Scanner
from cursor_builders import (
    assistant,
    bubble,
    composer_data,
    listing,
    make_state_db,
    state_db_path,
    tool,
    user,
    write_chat_store,
    write_transcript,
)

S = "c11c11c1-0000-4000-8000-000000000001"
CWD = "/home/me/tools/cli"
UTC = timezone.utc


def _scanner(home: Path) -> Scanner:
    return Scanner(home=home, provider_names=["cursor"])


def test_store_db_meta_gives_name_created_model_and_meta_json_the_cwd(isolated_home: Path) -> None:
    write_transcript(isolated_home, "home-me-tools-cli", S, [
        user("add a --verbose flag"), assistant(None, tool("Read", path="/somewhere/else/x.py")),
    ], flat=True)
    directory = write_chat_store(
        isolated_home, CWD, S,
        meta={"schemaVersion": 1, "createdAtMs": 1_700_000_000_000, "hasConversation": True,
              "updatedAtMs": 1_700_000_100_000, "cwd": CWD},
        store={"agentId": S, "name": "Verbose flag", "mode": "default", "createdAt": 1_784_000_000_000,
               "lastUsedModel": "claude-4-sonnet", "latestRootBlobId": "root"},
    )
    before = listing(directory)
    scanner = _scanner(isolated_home)
    (row,) = scanner.list_sessions()
    assert row.title == "Verbose flag"
    assert row.model == "claude-4-sonnet"
    assert row.cwd == CWD  # meta.json beats the tool's path
    # store.db createdAt 1784000000000 ms = 2026-07-14T03:33:20Z (preferred over meta.json's createdAtMs)
    assert row.started_at == datetime(2026, 7, 14, 3, 33, 20, tzinfo=UTC)
    assert scanner.warnings == []
    assert listing(directory) == before == ["meta.json", "store.db"]


def test_state_db_beats_the_cli_store(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("q")])
    write_chat_store(isolated_home, CWD, S, meta={"cwd": CWD},
                     store={"name": "CLI name", "lastUsedModel": "gpt-5"})
    make_state_db(state_db_path(isolated_home), composers=[
        composer_data(S, name="IDE name", model="claude-4.5-sonnet", fs_path="/home/me/ide")])
    (row,) = _scanner(isolated_home).list_sessions()
    assert (row.title, row.model, row.cwd) == ("IDE name", "claude-4.5-sonnet", "/home/me/ide")


def test_auto_model_in_the_store_is_ignored(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("q")])
    write_chat_store(isolated_home, CWD, S, store={"name": "n", "lastUsedModel": "default"})
    (row,) = _scanner(isolated_home).list_sessions()
    assert row.model is None


def test_acp_session_title(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("q")])
    acp = isolated_home / ".cursor" / "acp-sessions" / S
    acp.mkdir(parents=True)
    (acp / "meta.json").write_text('{"schemaVersion": 1, "cwd": "/w/acp", "title": "ACP title"}')
    (row,) = _scanner(isolated_home).list_sessions()
    assert (row.title, row.cwd) == ("ACP title", "/w/acp")


def test_a_broken_store_is_a_warning(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("first prompt")])
    directory = write_chat_store(isolated_home, CWD, S, meta={"cwd": CWD})
    (directory / "store.db").write_bytes(b"garbage")
    scanner = _scanner(isolated_home)
    (row,) = scanner.list_sessions()
    assert (row.title, row.cwd) == ("first prompt", CWD)
    assert [(Path(w.path).name, w.message.startswith("Agent CLI store not read")) for w in scanner.warnings] == [
        ("store.db", True),
    ]


def test_meta_value_that_is_not_hex(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("first prompt")])
    directory = write_chat_store(isolated_home, CWD, S, store={"name": "x"})
    with closing(sqlite3.connect(directory / "store.db")) as conn:
        conn.execute("UPDATE meta SET value = 'zz-not-hex' WHERE key = '0'")
        conn.commit()
    scanner = _scanner(isolated_home)
    (row,) = scanner.list_sessions()
    assert row.title == "first prompt"
    assert [w.message for w in scanner.warnings] == ["meta key 0 is not hex-encoded JSON; skipped"]


def test_known_cwds_come_from_meta_json_and_workspaces(isolated_home: Path) -> None:
    write_chat_store(isolated_home, CWD, S, meta={"cwd": CWD})
    make_state_db(state_db_path(isolated_home), composers=[
        composer_data("1de00000-0000-4000-8000-000000000002", fs_path="/home/me/ide", bubbles=["b"])],
        bubbles={"1de00000-0000-4000-8000-000000000002": [bubble("b", 1, "q")]})
    from agentscan.providers.cursor.provider import CursorProvider

    scanner = _scanner(isolated_home)
    assert CursorProvider().known_cwds(scanner.ctx) == {CWD, "/home/me/ide"}
