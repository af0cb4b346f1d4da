"""Regenerate the Cursor part of the demo home (made-up content).

Run ``python -m agentscan.demo.make_cursor_demo`` from a checkout; the files
it writes are committed, so users never run this.  It writes:

* agent transcripts under ``home/.cursor/projects/`` (an IDE agent session
  with a ``Task`` subagent, a current-build session, a CLI session);
* the CLI session's ``home/.cursor/chats/<md5(cwd)>/<id>/{meta.json,store.db}``;
* a small ``home/.config/Cursor/User/globalStorage/state.vscdb`` with
  Cursor's real DDL, in rollback-journal mode (not WAL) so that no
  ``-wal``/``-shm`` files are needed, vacuumed with 1 KiB pages to stay small.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import orjson

HOME = Path(__file__).resolve().parent / "home"
DOT_CURSOR = HOME / ".cursor"
STATE_DB = HOME / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"

WEATHER = "/home/demo/src/weather-app"
NOTES = "/home/demo/src/notes"
CLI_TOOL = "/home/demo/src/cli-tool"

AGENT = "7c0a1e55-3b2d-4f6a-9e81-0d4c2b6a9f10"  # IDE agent, with a subagent, old-build token counts
CHILD = "9d2e4f60-8a1b-4c3d-b5e6-7f8091a2b3c4"
ZEROS = "a4b8c2d6-1e3f-4a5b-8c7d-9e0f1a2b3c4d"  # current build: tokens {0,0}, context gauge only
CLI = "e5f6a7b8-2c3d-4e5f-a6b7-c8d9e0f1a2b3"  # Agent CLI (flat transcript + chats store)
CHAT = "f0e1d2c3-4b5a-4968-8776-65544332211f"  # IDE chat that exists only in state.vscdb

MS = {  # epoch ms
    "agent_start": 1_795_946_400_000,  # 2026-11-29T10:00:00Z
    "agent_end": 1_795_946_760_000,  # 2026-11-29T10:06:00Z
    "zeros_start": 1_795_867_200_000,  # 2026-11-28T12:00:00Z
    "zeros_end": 1_795_867_500_000,  # 2026-11-28T12:05:00Z
    "chat_start": 1_795_780_800_000,  # 2026-11-27T12:00:00Z
    "chat_end": 1_795_780_920_000,  # 2026-11-27T12:02:00Z
    "cli_start": 1_795_694_400_000,  # 2026-11-26T12:00:00Z
}


def _user(text: str, stamp: str | None = None) -> dict:
    body = f"<user_query>\n{text}\n</user_query>"
    if stamp:
        body = f"<timestamp>{stamp}</timestamp>\n{body}"
    return {"role": "user", "message": {"content": [{"type": "text", "text": body}]}}


def _assistant(text: str | None, *tools: dict) -> dict:
    content = ([{"type": "text", "text": text}] if text else []) + list(tools)
    return {"role": "assistant", "message": {"content": content}}


def _tool(name: str, **tool_input: object) -> dict:
    return {"type": "tool_use", "name": name, "input": tool_input}


def _turn(status: str = "success") -> dict:
    return {"type": "turn_ended", "status": status}


def _jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))


def transcripts() -> None:
    weather = DOT_CURSOR / "projects" / "home-demo-src-weather-app" / "agent-transcripts"
    _jsonl(weather / AGENT / f"{AGENT}.jsonl", [
        _user("The forecast endpoint is slow. Cache the upstream lookups for 10 minutes.",
              "Sunday, Nov 29, 2026, 11:00 AM (UTC+1)"),
        _assistant("Let me look at how forecasts are fetched.",
                   _tool("Grep", pattern="fetch_forecast", path=f"{WEATHER}/app"),
                   _tool("Read", path=f"{WEATHER}/app/forecast.py")),
        _assistant(None, _tool("Task", description="Find callers",
                               prompt="List every caller of fetch_forecast and say which ones run per request.",
                               subagent_type="explore")),
        _assistant("Two request-path callers. Adding a TTL cache around fetch_forecast.",
                   _tool("StrReplace", path=f"{WEATHER}/app/forecast.py",
                         old_string="def fetch_forecast(city):",
                         new_string="@ttl_cache(seconds=600)\ndef fetch_forecast(city):"),
                   _tool("Shell", command="uv run pytest -q tests/test_forecast.py", working_directory=WEATHER,
                         description="Run the forecast tests")),
        _assistant("Cached for 10 minutes; the forecast tests pass."),
        _turn(),
        _user("Also add a test that the cache expires.", "Sunday, Nov 29, 2026, 11:04 AM (UTC+1)"),
        _assistant(None, _tool("Write", path=f"{WEATHER}/tests/test_cache_expiry.py",
                               contents="def test_cache_expires(freezer): ...")),
        _assistant(None, _tool("Shell", command="uv run pytest -q", working_directory=WEATHER,
                               description="Run all tests")),
        _assistant("Added tests/test_cache_expiry.py; 31 tests pass."),
        _turn(),
    ])
    _jsonl(weather / AGENT / "subagents" / f"{CHILD}.jsonl", [
        _user("List every caller of fetch_forecast and say which ones run per request."),
        _assistant(None, _tool("Glob", glob_pattern="**/*.py", target_directory=f"{WEATHER}/app")),
        _assistant(None, _tool("Grep", pattern="fetch_forecast\\(", path=WEATHER)),
        _assistant("Callers: routes.forecast (per request), routes.summary (per request), jobs.warm_cache (hourly)."),
        _turn(),
    ])
    notes = DOT_CURSOR / "projects" / "home-demo-src-notes" / "agent-transcripts"
    _jsonl(notes / ZEROS / f"{ZEROS}.jsonl", [
        _user("Rename the `tags` column to `labels` everywhere.", "Saturday, Nov 28, 2026, 1:00 PM (UTC+1)"),
        _assistant(None, _tool("Grep", pattern="tags", path=NOTES)),
        # ApplyPatch takes the patch text itself, not an object.
        _assistant(None, {"type": "tool_use", "name": "ApplyPatch",
                          "input": "*** Begin Patch\n*** Update File: notes/models.py\n@@\n-    tags = Column(Text)\n+    labels = Column(Text)\n*** End Patch"}),
        _assistant(None, _tool("Shell", command="make migrate", working_directory=NOTES)),
        _turn("error"),
        _user("The migration failed: fix it and retry.", "Saturday, Nov 28, 2026, 1:04 PM (UTC+1)"),
        _assistant(None, _tool("Read", path=f"{NOTES}/migrations/0007_labels.sql"),
                   _tool("Shell", command="make migrate", working_directory=NOTES)),
        _assistant("The migration now renames the index too; `make migrate` succeeds."),
        _turn(),
    ])
    cli = DOT_CURSOR / "projects" / "home-demo-src-cli-tool" / "agent-transcripts"
    _jsonl(cli / f"{CLI}.jsonl", [
        _user("Add a --json flag to the `status` command."),
        _assistant(None, _tool("Read", path=f"{CLI_TOOL}/src/cli.py")),
        _assistant("Added `--json`; it prints one JSON object per repository.",
                   _tool("StrReplace", path=f"{CLI_TOOL}/src/cli.py", old_string="def status():",
                         new_string="def status(json: bool = False):")),
        _turn(),
    ])


def cli_store() -> None:
    directory = DOT_CURSOR / "chats" / hashlib.md5(CLI_TOOL.encode()).hexdigest() / CLI
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "meta.json").write_bytes(orjson.dumps({
        "schemaVersion": 1, "createdAtMs": MS["cli_start"], "hasConversation": True,
        "updatedAtMs": MS["cli_start"] + 90_000, "cwd": CLI_TOOL,
    }))
    meta = {"agentId": CLI, "name": "Add --json to status", "mode": "default", "createdAt": MS["cli_start"],
            "lastUsedModel": "gpt-5", "latestRootBlobId": "demo-root"}
    _sqlite(directory / "store.db", [
        "CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)",
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
    ], [("INSERT INTO meta VALUES ('0', ?)", (orjson.dumps(meta).hex(),))])


def _bubble(bubble_id: str, kind: int, text: str, created: str, tokens=(0, 0), model=None, **extra) -> dict:
    data = {"_v": 3, "type": kind, "bubbleId": bubble_id, "text": text, "createdAt": created,
            "tokenCount": {"inputTokens": tokens[0], "outputTokens": tokens[1]}}
    if model:
        data["modelInfo"] = {"modelName": model}
    data.update(extra)
    return data


def _composer(composer_id: str, name: str, start: int, end: int, model: str, cwd: str, bubbles: list[dict], **extra) -> dict:
    data = {"_v": 10, "composerId": composer_id, "name": name, "createdAt": start, "lastUpdatedAt": end,
            "status": "completed", "unifiedMode": "agent", "modelConfig": {"modelName": model, "maxMode": False},
            "workspaceIdentifier": {"id": "demo", "uri": {"fsPath": cwd, "scheme": "file"}},
            "fullConversationHeadersOnly": [{"bubbleId": b["bubbleId"], "type": b["type"]} for b in bubbles]}
    data.update(extra)
    return data


def state_rows() -> list[tuple[str, bytes]]:
    sonnet, gpt = "claude-4.5-sonnet", "gpt-5"
    agent = [
        _bubble("ag-u1", 1, "The forecast endpoint is slow.", "2026-11-29T10:00:00Z"),
        _bubble("ag-a1", 2, "Cached for 10 minutes.", "2026-11-29T10:02:10Z", (4120, 380), sonnet),
        _bubble("ag-u2", 1, "Also add a test that the cache expires.", "2026-11-29T10:04:00Z"),
        _bubble("ag-a2", 2, "Added tests/test_cache_expiry.py.", "2026-11-29T10:05:40Z", (6350, 910), sonnet),
    ]
    child = [_bubble("ch-a1", 2, "Callers: routes.forecast, routes.summary, jobs.warm_cache.",
                     "2026-11-29T10:01:00Z", (2210, 240), sonnet)]
    zeros = [
        _bubble("zr-u1", 1, "Rename the `tags` column to `labels` everywhere.", "2026-11-28T12:00:00Z"),
        _bubble("zr-a1", 2, "", "2026-11-28T12:01:00Z", model=sonnet),
        _bubble("zr-u2", 1, "The migration failed: fix it and retry.", "2026-11-28T12:04:00Z"),
        _bubble("zr-a2", 2, "The migration now renames the index too.", "2026-11-28T12:05:00Z", model=sonnet),
    ]
    chat = [
        _bubble("ct-u1", 1, "When should I use an async generator instead of returning a list?", "2026-11-27T12:00:00Z"),
        _bubble("ct-a1", 2, "Use one when items arrive over time (pages of an API, lines of a socket): the caller "
                "can start on the first item and memory stays flat.", "2026-11-27T12:00:20Z", (1500, 620), gpt),
        _bubble("ct-u2", 1, "Show the forecast client as one.", "2026-11-27T12:01:30Z"),
        _bubble("ct-a2", 2, "See the edit to app/client.py.", "2026-11-27T12:02:00Z", (2300, 410), gpt,
                toolFormerData={"name": "edit_file", "status": "completed",
                                "params": orjson.dumps({"target_file": f"{WEATHER}/app/client.py"}).decode()}),
    ]
    composers = [
        _composer(AGENT, "Cache the forecast lookups", MS["agent_start"], MS["agent_end"], sonnet, WEATHER, agent,
                  subComposerIds=[CHILD]),
        _composer(CHILD, "Find callers", MS["agent_start"] + 40_000, MS["agent_start"] + 70_000, sonnet, WEATHER, child),
        _composer(ZEROS, "Rename tags to labels", MS["zeros_start"], MS["zeros_end"], "default", NOTES, zeros,
                  contextTokensUsed=18_342, contextTokenLimit=200_000, promptTokenBreakdown={"totalUsedTokens": 18_342},
                  todos=[{"id": "1", "content": "rename the column", "status": "completed"},
                         {"id": "2", "content": "fix the index migration", "status": "completed"}]),
        _composer(CHAT, "Async generators", MS["chat_start"], MS["chat_end"], gpt, WEATHER, chat, unifiedMode="chat"),
    ]
    rows = [(f"composerData:{c['composerId']}", orjson.dumps(c)) for c in composers]
    for composer_id, bubbles in ((AGENT, agent), (CHILD, child), (ZEROS, zeros), (CHAT, chat)):
        rows += [(f"bubbleId:{composer_id}:{b['bubbleId']}", orjson.dumps(b)) for b in bubbles]
    return rows


def state_db() -> None:
    headers = {"allComposers": [
        {"composerId": AGENT, "name": "Cache the forecast lookups", "createdAt": MS["agent_start"], "lastUpdatedAt": MS["agent_end"]},
        {"composerId": ZEROS, "name": "Rename tags to labels", "createdAt": MS["zeros_start"], "lastUpdatedAt": MS["zeros_end"]},
        {"composerId": CHAT, "name": "Async generators", "createdAt": MS["chat_start"], "lastUpdatedAt": MS["chat_end"]},
    ]}
    _sqlite(STATE_DB, [
        "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
        "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
    ], [
        ("INSERT INTO ItemTable VALUES ('composer.composerHeaders', ?)", (orjson.dumps(headers),)),
        *(("INSERT INTO cursorDiskKV VALUES (?, ?)", row) for row in state_rows()),
    ])


def _sqlite(path: Path, ddl: list[str], inserts: list[tuple[str, tuple]]) -> None:
    """A small rollback-journal DB (never WAL), written beside and renamed into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".tmp")
    temp.unlink(missing_ok=True)
    with closing(sqlite3.connect(temp)) as conn:
        conn.execute("PRAGMA page_size = 1024")
        conn.execute("PRAGMA journal_mode = DELETE")
        for statement in ddl:
            conn.execute(statement)
        for sql, params in inserts:
            conn.execute(sql, params)
        conn.commit()
        conn.execute("VACUUM")
    temp.replace(path)


def main() -> None:
    shutil.rmtree(DOT_CURSOR, ignore_errors=True)
    STATE_DB.unlink(missing_ok=True)
    transcripts()
    cli_store()
    state_db()


if __name__ == "__main__":
    main()
