"""Builders for fake Cursor homes: transcripts, ``state.vscdb``, Agent CLI stores.

The databases use Cursor's real DDL (docs/providers/cursor.md;
``composerHeaders`` as agentsight's test mirrors Cursor 3.15.6).  Values are
written the way Cursor writes them: JSON as BLOB or TEXT, times in epoch ms
in composerData and ISO strings in bubbles.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any, Iterable

import orjson

from builders import REAL, write_jsonl

CURSOR_REAL = REAL / "cursor"

STATE_DDL = (
    "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
    "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
)
HEADERS_DDL = (
    "CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, createdAt INTEGER,"
    " lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, recency INTEGER, checkpointAt INTEGER,"
    " value TEXT)"
)
STORE_DDL = (
    "CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
)


# -- transcripts -------------------------------------------------------------

def user(text: str, *, stamp: str | None = None, wrap: bool = True) -> dict[str, Any]:
    body = f"<user_query>\n{text}\n</user_query>" if wrap else text
    if stamp is not None:
        body = f"<timestamp>{stamp}</timestamp>\n{body}"
    return {"role": "user", "message": {"content": [{"type": "text", "text": body}]}}


def assistant(text: str | None = None, *tools: dict[str, Any]) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content.extend(tools)
    return {"role": "assistant", "message": {"content": content}}


def tool(name: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": tool_input}


def turn_ended(status: str = "success") -> dict[str, Any]:
    return {"type": "turn_ended", "status": status}


def transcripts_dir(home: Path, slug: str) -> Path:
    return home / ".cursor" / "projects" / slug / "agent-transcripts"


def write_transcript(home: Path, slug: str, composer_id: str, records: Iterable[Any], *,
                     flat: bool = False, mtime: float | None = None) -> Path:
    base = transcripts_dir(home, slug)
    path = base / f"{composer_id}.jsonl" if flat else base / composer_id / f"{composer_id}.jsonl"
    return write_jsonl(path, records, mtime=mtime)


def write_subagent(home: Path, slug: str, parent: str, child: str, records: Iterable[Any], *,
                   mtime: float | None = None) -> Path:
    path = transcripts_dir(home, slug) / parent / "subagents" / f"{child}.jsonl"
    return write_jsonl(path, records, mtime=mtime)


def copy_real_sample(name: str, target: Path, *, mtime: float | None = None) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(CURSOR_REAL / name, target)
    if mtime is not None:
        os.utime(target, (mtime, mtime))
    return target


def copy_real_dot_cursor(home: Path) -> Path:
    """``synthetic-home-dot-cursor`` laid out as ``home/.cursor`` (copied, never edited)."""
    target = home / ".cursor"
    shutil.copytree(CURSOR_REAL / "synthetic-home-dot-cursor", target, dirs_exist_ok=True, copy_function=shutil.copyfile)
    return target


# -- state.vscdb ---------------------------------------------------------------

def state_db_path(home: Path) -> Path:
    """Where Linux Cursor keeps it (the tests' XDG_CONFIG_HOME is ``home/.config``)."""
    return home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"


def composer_data(composer_id: str, *, name: str | None = None, created: int | None = None,
                  updated: int | None = None, model: str | None = None, fs_path: str | None = None,
                  bubbles: Iterable[str] = (), sub_ids: Iterable[str] = (), **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"_v": 10, "composerId": composer_id, "status": "completed"}
    if name is not None:
        data["name"] = name
    if created is not None:
        data["createdAt"] = created
    if updated is not None:
        data["lastUpdatedAt"] = updated
    if model is not None:
        data["modelConfig"] = {"modelName": model, "maxMode": False}
    if fs_path is not None:
        data["workspaceIdentifier"] = {"id": "ws", "uri": {"fsPath": fs_path, "scheme": "file"}}
    data["fullConversationHeadersOnly"] = [{"bubbleId": b, "type": 1} for b in bubbles]
    data["subComposerIds"] = list(sub_ids)
    data.update(extra)
    return data


def bubble(bubble_id: str, kind: int, text: str = "", *, tokens: tuple[int, int] = (0, 0),
           created: str | None = None, model: str | None = None, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"_v": 3, "type": kind, "bubbleId": bubble_id, "text": text,
                            "tokenCount": {"inputTokens": tokens[0], "outputTokens": tokens[1]}}
    if created is not None:
        data["createdAt"] = created
    if model is not None:
        data["modelInfo"] = {"modelName": model}
    data.update(extra)
    return data


def make_state_db(path: Path, *, composers: Iterable[dict[str, Any]] = (),
                  bubbles: dict[str, Iterable[dict[str, Any]]] | None = None,
                  headers_table: Iterable[tuple[str, int | None, int | None, int]] | None = None,
                  headers_item: Iterable[dict[str, Any]] | None = None,
                  raw_rows: Iterable[tuple[str, Any]] = (), wal: bool = False, as_text: bool = False) -> Path:
    """A ``state.vscdb``; ``headers_table`` rows are ``(id, createdAt, lastUpdatedAt, isSubagent)``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    encode = (lambda v: orjson.dumps(v).decode()) if as_text else orjson.dumps
    rows: list[tuple[str, Any]] = [(f"composerData:{c['composerId']}", encode(c)) for c in composers]
    for composer_id, items in (bubbles or {}).items():
        rows.extend((f"bubbleId:{composer_id}:{b['bubbleId']}", encode(b)) for b in items)
    rows.extend(raw_rows)
    with closing(sqlite3.connect(path)) as conn:
        if wal:
            conn.execute("PRAGMA journal_mode=WAL")
        for ddl in STATE_DDL:
            conn.execute(ddl)
        conn.executemany("INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)", rows)
        if headers_table is not None:
            conn.execute(HEADERS_DDL)
            conn.executemany(
                "INSERT INTO composerHeaders (composerId, createdAt, lastUpdatedAt, isSubagent) VALUES (?, ?, ?, ?)",
                list(headers_table),
            )
        if headers_item is not None:
            conn.execute("INSERT INTO ItemTable VALUES (?, ?)",
                         ("composer.composerHeaders", orjson.dumps({"allComposers": list(headers_item)})))
        conn.execute("INSERT INTO ItemTable VALUES ('cursorAuth/accessToken', 'secret-never-read')")
        conn.commit()
    return path


def refund_chat(home: Path, composer_id: str, created: int, *, mtime: float | None = None) -> tuple[Path, Path]:
    """A Cursor chat in ``/home/dev/src/pay`` (a transcript and its composer: one call of
    51,500 + 2,630 tokens on gpt-5, 2026-05-28): its state DB's path and its transcript's
    (``mtime``: when Cursor last touched the transcript)."""
    transcript = write_transcript(home, "home-dev-src-pay", composer_id, [user("refunds over $500 fail")])
    if mtime is not None:
        os.utime(transcript, (mtime, mtime))
    db = make_state_db(state_db_path(home), composers=[
        composer_data(composer_id, name="Refund 502", created=created, updated=created + 60_000,
                      fs_path="/home/dev/src/pay", bubbles=["u1", "a1"])],
        bubbles={composer_id: [bubble("u1", 1, "refunds over $500 fail", created="2026-05-28T20:26:40.000Z"),
                               bubble("a1", 2, "Fixed.", created="2026-05-28T20:27:00.000Z", tokens=(51_500, 2_630),
                                      model="gpt-5")]})
    return db, transcript


def break_schema(db: Path, table: str = "broken") -> Path:
    """A schema row whose SQL does not parse: SQLite refuses the whole DB ("malformed database schema")."""
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("INSERT INTO sqlite_master VALUES ('table', ?, ?, 0, ?)", (table, table, f"CREATE TABLE {table}(x"))
        conn.commit()
    return db


def state_db_with_unread_wal(home: Path, *, composers: Iterable[dict[str, Any]],
                             bubbles: dict[str, Iterable[dict[str, Any]]], in_wal: Iterable[tuple[str, Any]]) -> Path:
    """The global DB as Cursor left it on a crash: ``composers``/``bubbles`` in the main file,
    the ``in_wal`` rows (key, value) committed only to its ``-wal``, and no ``-shm`` (a
    read-only open reads the main file alone).  Built outside the home, copied in while open
    (closing it would checkpoint the -wal away)."""
    db = state_db_path(home)
    scratch = home.parent / "live" / "state.vscdb"
    make_state_db(scratch, composers=composers, bubbles=bubbles)
    with closing(sqlite3.connect(scratch)) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA wal_autocheckpoint=0")  # keep the committed rows in the -wal
        conn.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", list(in_wal))
        conn.commit()
        db.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(scratch, db)
        shutil.copy(scratch.with_name("state.vscdb-wal"), db.with_name("state.vscdb-wal"))
    return db


# -- Agent CLI store -----------------------------------------------------------

def write_chat_store(home: Path, cwd: str, composer_id: str, *, meta: dict[str, Any] | None = None,
                     store: dict[str, Any] | None = None) -> Path:
    """``chats/<md5(cwd)>/<id>/`` with ``meta.json`` and a ``store.db`` (meta key 0 = hex JSON)."""
    directory = home / ".cursor" / "chats" / hashlib.md5(cwd.encode()).hexdigest() / composer_id
    directory.mkdir(parents=True, exist_ok=True)
    if meta is not None:
        (directory / "meta.json").write_bytes(orjson.dumps(meta))
    if store is not None:
        with closing(sqlite3.connect(directory / "store.db")) as conn:
            for ddl in STORE_DDL:
                conn.execute(ddl)
            conn.execute("INSERT INTO meta VALUES ('0', ?)", (orjson.dumps(store).hex(),))
            conn.execute("INSERT INTO blobs VALUES ('root', x'0a0b')")
            conn.commit()
    return directory


def cursor_only(monkeypatch) -> None:
    """Let the CLI load the Cursor provider alone.

    ``show`` has no ``--provider``; these tests must not depend on the state
    of the other providers, which are built in parallel.
    """
    import agentscan.providers as registry

    monkeypatch.setattr(registry, "BUILTIN_PROVIDERS", {"cursor": registry.BUILTIN_PROVIDERS["cursor"]})


def listing(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def add_store_messages(directory: Path, messages: Iterable[dict[str, Any]]) -> None:
    """JSON message leaves in a store's ``blobs`` table, in written order (AI SDK shape)."""
    with closing(sqlite3.connect(directory / "store.db")) as conn:
        conn.executemany("INSERT INTO blobs VALUES (?, ?)", [
            (hashlib.sha256(orjson.dumps(m) + str(i).encode()).hexdigest(), orjson.dumps(m)) for i, m in enumerate(messages)
        ])
        conn.commit()


def agentkv_rows(messages: Iterable[dict[str, Any]]) -> list[tuple[str, bytes]]:
    """``agentKv:blob:<hash>`` rows for ``make_state_db(raw_rows=…)``, in written order."""
    return [(f"agentKv:blob:{hashlib.sha256(orjson.dumps(m) + str(i).encode()).hexdigest()}", orjson.dumps(m))
            for i, m in enumerate(messages)]


def make_workspace_db(home: Path, folder_uri: str, composers: Iterable[dict[str, Any]], *, key: str = "composer.composerData") -> Path:
    """``workspaceStorage/<hash>/`` with ``workspace.json`` and a ``state.vscdb``
    whose ItemTable lists ``composers`` (``{"allComposers": …}``)."""
    directory = state_db_path(home).parent.parent / "workspaceStorage" / hashlib.md5(folder_uri.encode()).hexdigest()
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "workspace.json").write_bytes(orjson.dumps({"folder": folder_uri}))
    with closing(sqlite3.connect(directory / "state.vscdb")) as conn:
        for ddl in STATE_DDL:
            conn.execute(ddl)
        conn.execute("INSERT INTO ItemTable VALUES (?, ?)", (key, orjson.dumps({"allComposers": list(composers)})))
        conn.commit()
    return directory / "state.vscdb"


def cli_chat_of_two_messages(home: Path, composer_id: str) -> Path:
    """An Agent CLI chat (its own ``store.db``: a prompt and a reply) beside an empty state
    DB: the folder of its store."""
    make_state_db(state_db_path(home))
    directory = write_chat_store(home, "/home/me/src/cli", composer_id,
                                 meta={"cwd": "/home/me/src/cli", "createdAtMs": 1780000000000,
                                       "updatedAtMs": 1780000600000},
                                 store={"agentId": composer_id, "name": "cli chat", "createdAt": 1780000000000})
    add_store_messages(directory, [
        {"role": "user", "content": [{"type": "text", "text": "<user_query>\nlist the files\n</user_query>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Here they are."}]}])
    return directory
