"""The read-only guarantee: no command changes, adds or locks anything under a provider root.

A home is built from every real sample (with the existing builders), the
whole bad-input corpus, a Codex thread index and a Cursor ``state.vscdb``,
both in WAL mode and held open by a live writer in another process (as
Codex and Cursor hold them), plus an Agent CLI ``store.db``.  Every command
runs against it; the path, size, mtime_ns and sha256 of every file under
the home are the same before and after, and no file (no ``-wal``, ``-shm``
or ``-journal``) appears.  Every SQLite connection to a file under the home
is a ``file:…?mode=ro`` URI.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path
from typing import Iterator
from urllib.parse import unquote, urlsplit

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.toolkit import sqlite_ro
from agentscan.cli import app
from bad_corpus import INTERNAL_ERROR, LiveWriter, all_cases, case, codex_state_db_not_sqlite, lay_out
from builders import lay_out_real_claude
from codex_builders import at, index_row, lay_out_real_codex, write_state_db
from cursor_builders import bubble, composer_data, copy_real_dot_cursor, make_state_db, state_db_path, write_chat_store
from gemini_builders import lay_out_real_gemini

IDE_ONLY = "1de00000-0000-4000-8000-0000000000ff"
REAL_CODEX = "019e9625-802f-7e91-840a-cfe88d14117a"


def build_home(home: Path) -> tuple[Path, Path]:
    """Everything we have, laid out as one home; returns the two live databases."""
    lay_out_real_claude(home)
    rollouts = lay_out_real_codex(home)
    lay_out_real_gemini(home)
    copy_real_dot_cursor(home)
    lay_out(home, all_cases())
    (home / ".gemini" / "projects.json").write_text('{"projects": {"/work/bad-input": "bad-input"}}')
    (home / ".gemini" / "tmp" / "bad-input" / "logs.json").write_text('[{"sessionId": "x", "type": "user", "message": "hi"}]')
    codex_state_db_not_sqlite(home)  # generation 5: not SQLite at all
    codex_db = write_state_db(home / ".codex" / "state_6.sqlite", [  # generation 6: the one that is read
        index_row(thread, path, created=at(0), updated=at(60), title="from the index") for thread, path in rollouts.items()
    ], wal=True)
    cursor = case("cursor", "clean")
    cursor_db = make_state_db(state_db_path(home), wal=True, composers=[
        composer_data(cursor.native_id, name="from the state db", bubbles=["b1"], model="gpt-5"),
        composer_data(IDE_ONLY, name="an IDE-only chat", bubbles=["q1", "a1"]),
    ], bubbles={
        cursor.native_id: [bubble("b1", 2, "reply", tokens=(30, 4))],
        IDE_ONLY: [bubble("q1", 1, "a question", tokens=(0, 0)), bubble("a1", 2, "an answer", tokens=(12, 3))],
    })
    write_chat_store(home, "/work/bad-input", case("cursor", "bom").native_id, meta={"cwd": "/work/bad-input"}, store={"name": "cli"})
    return codex_db, cursor_db


def snapshot(home: Path) -> dict[str, tuple]:
    """Every file and dir under ``home``: (size, mtime_ns, sha256) for files, links as their target."""
    state: dict[str, tuple] = {}
    for directory, dirs, files in os.walk(home):
        for name in dirs + files:
            path = os.path.join(directory, name)
            key = os.path.relpath(path, home)
            if os.path.islink(path):
                state[key] = ("link", os.readlink(path))
            elif name in dirs:
                state[key] = ("dir",)
            else:
                stat = os.stat(path)
                with open(path, "rb") as handle:
                    state[key] = (stat.st_size, stat.st_mtime_ns, hashlib.sha256(handle.read()).hexdigest())
    return state


def commands(out: Path) -> list[list[str]]:
    shown = [case(p, "clean").id for p in ("claude", "codex", "gemini", "cursor")] + [f"cursor:{IDE_ONLY}", f"codex:{REAL_CODEX}"]
    runs = [
        ["list"], ["list", "--json"], ["list", "--redact", "--json"], ["list", "--provider", "cursor", "--json"],
        ["tokens"], ["tokens", "--json"], ["tokens", "--by", "day", "--json"], ["tokens", "--by", "model"],
        ["tokens", "--by", "provider", "--json"], ["tokens", shown[0], shown[-2], "--json"],
        ["export", "--format", "jsonl", "--output", str(out / "all.jsonl")],
        ["export", "--format", "csv", "--output", str(out / "all.csv")],
        ["export", "--format", "sqlite", "--output", str(out / "all.sqlite")],
        ["export", "--format", "sqlite", "--output", str(out / "all.sqlite"), "--redact"],  # the upsert path
        ["doctor"], ["doctor", "--json"],
        ["trace", shown[0], "--json"],
        ["--no-cache", "list", "--json"], ["--no-cache", "tokens", "--json"], ["--no-cache", "show", shown[-2], "--json"],
    ]
    runs += [["show", session_id, "--json"] for session_id in shown] + [["show", shown[-2]], ["show", shown[0], "--redact"]]
    if "otlp" in {command.name for command in app.registered_commands}:
        runs.append(["otlp", "--output", str(out / "traces.jsonl")])
    return runs


class ConnectSpy:
    """Wraps ``sqlite3.connect``; remembers what each call named and how."""

    def __init__(self) -> None:
        self.real = sqlite3.connect
        self.calls: list[tuple[str, bool]] = []

    def __call__(self, database: object, *args: object, **kwargs: object) -> sqlite3.Connection:
        target = database.decode() if isinstance(database, bytes) else str(database)
        self.calls.append((target, bool(kwargs.get("uri"))))
        return self.real(database, *args, **kwargs)  # type: ignore[arg-type]

    def under(self, home: Path) -> list[tuple[str, bool, str]]:
        """(what was named, uri flag, its file path) of every connection to a file under ``home``."""
        found = []
        for target, uri in self.calls:
            path = unquote(urlsplit(target).path) if uri and target.startswith("file:") else target
            if os.path.realpath(path).startswith(os.path.realpath(home) + os.sep):
                found.append((target, uri, path))
        return found


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Iterator[ConnectSpy]:
    connect_spy = ConnectSpy()
    monkeypatch.setattr(sqlite3, "connect", connect_spy)
    yield connect_spy


@pytest.mark.parametrize("writer_mode", ["idle", "immediate"])
def test_no_command_changes_or_adds_a_file_under_the_home(
    isolated_home: Path, tmp_path: Path, spy: ConnectSpy, writer_mode: str
) -> None:
    codex_db, cursor_db = build_home(isolated_home)
    spy.calls.clear()  # the builders wrote the databases; from here on only agentscan connects
    out = tmp_path / "out"  # exports go outside every provider root
    out.mkdir()
    opened_before = len(sqlite_ro.OPENED_URIS)
    with LiveWriter(writer_mode, codex_db, cursor_db):
        before = snapshot(isolated_home)
        assert {f"{db.name}-{suffix}" for db in (codex_db, cursor_db) for suffix in ("wal", "shm")} <= {
            Path(key).name for key in before}, "the writer should be live, with its -wal and -shm"
        for args in commands(out):
            result = CliRunner().invoke(app, args)
            assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
            assert result.exit_code in (0, 1), (args, result.stderr)  # 1: trace finds no captured events
            if args[0] != "trace":
                assert result.exit_code == 0, (args, result.stderr)
            assert INTERNAL_ERROR not in result.stdout + result.stderr, args
        after = snapshot(isolated_home)
    appeared = sorted(set(after) - set(before))
    assert not appeared, f"files appeared under the home: {appeared}"
    changed = sorted(key for key in before if before[key] != after.get(key))
    assert not changed, f"files changed under the home: {changed}"
    # The databases were really read, through read-only URIs only.
    opened = sqlite_ro.OPENED_URIS[opened_before:]
    for db in (codex_db, cursor_db, isolated_home / ".cursor" / "chats"):
        assert any(str(db.resolve()) in unquote(uri) for uri in opened), f"{db} was never opened"
    assert all("mode=ro" in uri and ("readonly_shm=1" in uri or "immutable=1" in uri) for uri in opened), opened
    touching = spy.under(isolated_home)
    assert touching, "the spy saw no connection to a provider database"
    for target, uri, _path in touching:
        assert uri and target.startswith("file:") and "mode=ro" in urlsplit(target).query.split("&"), target


def test_the_live_writer_still_sees_its_own_database_intact(isolated_home: Path, tmp_path: Path) -> None:
    """After every command ran beside it, the writer's database still passes an integrity check."""
    codex_db, cursor_db = build_home(isolated_home)
    with LiveWriter("idle", codex_db, cursor_db):
        for args in (["list", "--json"], ["tokens", "--json"], ["doctor", "--json"]):
            assert CliRunner().invoke(app, args).exit_code == 0
    for db in (codex_db, cursor_db):
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert conn.execute("SELECT count(*) FROM writer_heartbeat").fetchone() == (1,)
        finally:
            conn.close()



def test_the_demo_home_inside_the_package_is_never_written(tmp_path: Path, spy: ConnectSpy) -> None:
    """``--demo`` reads files shipped in the package (maybe in a read-only site-packages)."""
    from agentscan.demo import demo_home

    home = demo_home()
    before = snapshot(home)
    ids = [row["id"] for row in orjson.loads(CliRunner().invoke(app, ["--demo", "list", "--json"]).stdout)["sessions"]]
    runs = [["tokens", "--json"], ["tokens", "--by", "day"], ["doctor", "--json"],
            ["export", "--format", "sqlite", "--output", str(tmp_path / "demo.sqlite")]]
    runs += [["show", session_id, "--json"] for session_id in ids]
    for args in runs:
        result = CliRunner().invoke(app, ["--demo", *args])
        assert result.exit_code == 0, (args, result.stderr)
    assert snapshot(home) == before
    assert all(uri and target.startswith("file:") and "mode=ro" in target for target, uri, _ in spy.under(home))
    assert spy.under(home), "the demo's state.vscdb was never opened"
