"""The thread index (state_<n>.sqlite): fast path, union with rollouts, fallbacks."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from agentscan.scan.scanner import Scanner
from agentscan.context import ScanContext
from agentscan.providers.codex.provider import CodexProvider
from agentscan.providers.codex import discovery as codex_discovery
from agentscan.scan.tokens import token_report
from codex_builders import (
    Calls,
    at,
    index_row,
    meta,
    rollout_path,
    turn_context,
    user_message,
    write_rollout,
    write_state_db,
)

A = "019c2222-0000-7000-8000-00000000000a"
B = "019c2222-0000-7000-8000-00000000000b"
C = "019c2222-0000-7000-8000-00000000000c"
GONE = "019c2222-0000-7000-8000-0000000000ee"


def _rollout(codex: Path, thread: str, start: float, *, title: str | None, model: str = "gpt-5-codex", mtime: float | None = None, **meta_args) -> Path:
    calls = Calls()
    lines = [meta(thread, at(start), **meta_args), turn_context(at(start + 1), model)]
    if title is not None:
        lines.append(user_message(at(start + 1), title))
    lines.append(calls.call(at(start + 5), 100, 0, 10))
    path = rollout_path(codex, thread, at(start))
    write_rollout(path, lines, mtime=mtime if mtime is not None else at(start + 5).timestamp())
    return path


def _home(home: Path) -> tuple[Path, dict[str, Path]]:
    codex = home / ".codex"
    paths = {A: _rollout(codex, A, 0, title="first"), B: _rollout(codex, B, 100, title="second")}
    return codex, paths


def _list(home: Path, env: dict[str, str] | None = None) -> tuple[list[dict], Scanner]:
    scanner = Scanner(home=home, env=env or {}, provider_names=["codex"])
    return [row.to_json() for row in scanner.list_sessions()], scanner


def test_index_fast_path_reads_no_headers_and_unites_with_rollouts(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex, paths = _home(isolated_home)
    write_state_db(
        codex / "state_5.sqlite",
        [
            index_row(A, paths[A], created=at(0), updated=at(5), title="first", model="gpt-5-codex"),
            index_row(GONE, codex / "sessions" / "rollout-gone.jsonl", created=at(50), updated=at(60)),
        ],
    )
    reads: list[Path] = []
    real_read = codex_discovery.read_header
    monkeypatch.setattr(codex_discovery, "read_header", lambda path, ctx, tid, *rest, **kw: reads.append(path) or real_read(path, ctx, tid, *rest, **kw))
    ctx = ScanContext.create(home=isolated_home, env={})
    provider = CodexProvider()
    refs = provider.discover(ctx)
    assert {ref.native_id for ref in refs} == {A, B}  # B: a rollout the index does not know
    assert reads == [paths[B]]  # A's parent link came from the index
    assert ctx.memo["codex.orphan_index_rows"] == 1  # (doctor's count of them: ``diagnostics`` below)
    assert ctx.warnings.items == []
    assert provider.diagnostics(ctx) == [
        f"thread index: {codex / 'state_5.sqlite'} (2 threads)",
        "1 thread index row points at a rollout that is gone (not listed)",
        "1 rollout is not in the thread index (listed from the rollout)",
    ]


def test_index_row_whose_rollout_lives_outside_codex_home_is_not_opened(isolated_home: Path, tmp_path: Path) -> None:
    # The index is not trusted (issue 14): a row may name any file, /proc/self/environ included.
    codex = isolated_home / ".codex"
    elsewhere = _rollout(tmp_path / "old-home", C, 0, title="moved")
    write_state_db(codex / "state_5.sqlite", [index_row(C, elsewhere, created=at(0), updated=at(5))])
    rows, scanner = _list(isolated_home)
    assert rows == []
    assert [w.message for w in scanner.warnings] == ["thread index rows point outside CODEX_HOME, their files not opened: 1 row"]
    assert "1 thread index row points outside CODEX_HOME (not opened, not listed)" in CodexProvider().diagnostics(scanner.ctx)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda db: db.write_bytes(b"this is not a database at all" * 100), id="garbage"),
        pytest.param(lambda db: db.write_bytes(db.read_bytes()[:100] + b"\x00" * 4000), id="corrupt-pages"),
        pytest.param(lambda db: _replace_with(db, "CREATE TABLE threads (thread TEXT, path TEXT)"), id="unfamiliar"),
        pytest.param(lambda db: _replace_with(db, "CREATE TABLE other (x)"), id="no-threads-table"),
    ],
)
def test_a_bad_index_gives_the_same_list_as_no_index(isolated_home: Path, damage) -> None:
    codex, paths = _home(isolated_home)
    without, _ = _list(isolated_home)
    db = write_state_db(codex / "state_5.sqlite", [index_row(A, paths[A], created=at(0), updated=at(9999), title="index title")])
    damage(db)
    rows, scanner = _list(isolated_home)
    assert rows == without
    (warning,) = scanner.warnings
    assert warning.path == str(db) and warning.message.startswith("thread index unreadable, listing from rollouts instead")


def _replace_with(db: Path, ddl: str) -> None:
    db.unlink()
    conn = sqlite3.connect(db)
    conn.execute(ddl)
    conn.commit()
    conn.close()


def test_a_locked_index_falls_back_to_the_rollouts(isolated_home: Path) -> None:
    codex, paths = _home(isolated_home)
    without, _ = _list(isolated_home)
    db = write_state_db(codex / "state_5.sqlite", [index_row(A, paths[A], created=at(0), updated=at(9999), title="index")])
    locker = sqlite3.connect(db, isolation_level=None)
    try:
        locker.execute("BEGIN EXCLUSIVE")
        rows, scanner = _list(isolated_home)
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    assert rows == without
    assert "locked" in scanner.warnings[0].message


@pytest.mark.parametrize("wal", [True, False])
def test_opening_the_index_creates_nothing_next_to_it(isolated_home: Path, wal: bool) -> None:
    codex, paths = _home(isolated_home)
    write_state_db(codex / "state_5.sqlite", [index_row(A, paths[A], created=at(0), updated=at(5))], wal=wal)
    before = sorted(os.listdir(codex))
    rows, scanner = _list(isolated_home)
    assert len(rows) == 2 and scanner.warnings == []
    assert sorted(os.listdir(codex)) == before


def test_the_highest_generation_is_used(isolated_home: Path) -> None:
    codex, paths = _home(isolated_home)
    write_state_db(codex / "state_3.sqlite", [index_row(A, paths[A], created=at(0), updated=at(5), title="", cwd="/old")])
    write_state_db(codex / "state_11.sqlite", [index_row(A, paths[A], created=at(0), updated=at(10_000), cwd="/new")])
    rows, _ = _list(isolated_home)
    assert rows[0]["native_id"] == A and rows[0]["cwd"] == "/new"


def test_an_index_row_newer_than_its_rollout_wins_ordering_and_values(isolated_home: Path) -> None:
    codex, paths = _home(isolated_home)
    # A's rollout is older than B's, but the index saw A updated after both
    # (e.g. renamed, or written before the rollout was flushed).
    write_state_db(
        codex / "state_5.sqlite",
        [
            index_row(A, paths[A], created=at(0), updated=at(1000), title="Renamed in the app", model="gpt-5.1-codex", cwd="/work/renamed"),
            # B's index row is older than B's rollout: the rollout's values win.
            index_row(B, paths[B], created=at(100), updated=at(101), title="stale title", model="stale-model", cwd="/stale"),
        ],
    )
    rows, _ = _list(isolated_home)
    assert [row["native_id"] for row in rows] == [A, B]
    first, second = rows
    # The model is the one most calls ran on, which only the rollout tells: the index's
    # names the latest turn's (docs/providers/codex.md).
    assert (first["title"], first["model"], first["cwd"]) == ("Renamed in the app", "gpt-5-codex", "/work/renamed")
    assert first["updated_at"] == "2026-03-02T09:16:40.000Z"  # T0 + 1000 s, from the index
    assert first["tokens"]["total"] == 110  # token breakdowns always come from the rollout
    assert (second["title"], second["model"], second["cwd"]) == ("second", "gpt-5-codex", "/work/project")


def test_index_fills_what_the_rollout_lacks(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    path = _rollout(codex, A, 0, title=None)
    # An old lineage with epoch-second times and only a few columns.
    columns = ("id TEXT PRIMARY KEY", "rollout_path TEXT", "created_at INTEGER", "updated_at INTEGER", "first_user_message TEXT")
    row = {"id": A, "rollout_path": str(path), "created_at": int(at(0).timestamp()), "updated_at": int(at(2).timestamp()),
           "first_user_message": "<environment_context>x</environment_context>"}
    write_state_db(codex / "state_5.sqlite", [row], columns=columns)
    rows, scanner = _list(isolated_home)
    assert rows[0]["title"] is None  # injected text is no title, from the index either
    write_state_db(codex / "state_6.sqlite", [dict(row, first_user_message="Refactor the parser")], columns=columns)
    rows, scanner = _list(isolated_home)
    assert rows[0]["title"] == "Refactor the parser" and scanner.warnings == []


def test_spawn_edges_in_the_index_roll_a_child_into_its_parent(isolated_home: Path) -> None:
    codex, paths = _home(isolated_home)
    child = _rollout(codex, C, 50, title="child work", source="exec")  # its meta names no parent
    write_state_db(
        codex / "state_5.sqlite",
        [
            index_row(A, paths[A], created=at(0), updated=at(5)),
            index_row(B, paths[B], created=at(100), updated=at(105)),
            index_row(C, child, created=at(50), updated=at(55), source="exec"),
        ],
        edges=[(A, C)],
    )
    scanner = Scanner(home=isolated_home, env={}, provider_names=["codex"])
    rows = {row.native_id: row for row in scanner.list_sessions()}
    assert set(rows) == {A, B} and rows[A].subagents == 1 and rows[A].tokens.total == 220
    report = {row.key: row for row in token_report(scanner).rows}
    assert [(sub, tokens.total) for sub, tokens in report[f"codex:{A}"].subagents] == [(C, 110)]


def test_codex_sqlite_home_index(isolated_home: Path, tmp_path: Path) -> None:
    codex, paths = _home(isolated_home)
    write_state_db(tmp_path / "db" / "state_5.sqlite", [index_row(A, paths[A], created=at(0), updated=at(9000), title="from the db home")])
    rows, _ = _list(isolated_home, {"CODEX_SQLITE_HOME": str(tmp_path / "db")})
    assert rows[0]["title"] == "from the db home"


def test_index_source_names_the_parent(isolated_home: Path) -> None:
    codex, paths = _home(isolated_home)
    child = _rollout(codex, C, 50, title="child work", source="exec")  # its meta names no parent
    spawn = '{"subagent":{"thread_spawn":{"parent_thread_id":"%s","depth":1}}}' % A
    write_state_db(
        codex / "state_5.sqlite",
        [index_row(A, paths[A], created=at(0), updated=at(5)), index_row(C, child, created=at(50), updated=at(55), source=spawn)],
    )
    rows = {row.native_id: row for row in Scanner(home=isolated_home, env={}, provider_names=["codex"]).list_sessions()}
    assert set(rows) == {A, B} and rows[A].subagents == 1


def test_index_says_subagent_without_a_parent_so_the_meta_is_read(isolated_home: Path) -> None:
    codex, paths = _home(isolated_home)
    child = _rollout(codex, C, 50, title="child work", spawn_parent=B)
    write_state_db(
        codex / "state_5.sqlite",
        [
            index_row(B, paths[B], created=at(100), updated=at(105)),
            index_row(C, child, created=at(50), updated=at(55), source='{"subagent":"review"}'),
        ],
    )
    rows = {row.native_id: row for row in Scanner(home=isolated_home, env={}, provider_names=["codex"]).list_sessions()}
    assert set(rows) == {A, B} and rows[B].subagents == 1


def test_an_index_written_while_it_is_being_used_is_read_again_next_time(isolated_home: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Codex writes its index while an agent works: one written after discovery read it
    (here, while the rollouts are walked) must not key the rows built from what was read."""
    codex, paths = _home(isolated_home)
    database = codex / "state_5.sqlite"

    def index(title: str, updated: float) -> None:
        database.unlink(missing_ok=True)
        write_state_db(database, [index_row(A, paths[A], created=at(0), updated=at(updated), title=title)])

    index("Named before", 1000)
    real_walk = codex_discovery._walk

    def written_meanwhile(directory: Path, ctx: ScanContext, depth: int = 0) -> list[Path]:
        if depth == 0 and not written:
            written.append(directory)
            index("Renamed meanwhile", 2000)
        return real_walk(directory, ctx, depth)

    def titles(**options: bool) -> dict[str, str | None]:
        with Scanner(provider_names=["codex"], **options) as scanner:
            return {row.native_id: row.title for row in scanner.list_sessions()}

    written: list[Path] = []
    monkeypatch.setattr(codex_discovery, "_walk", written_meanwhile)
    assert titles(use_cache=True, memo_discovery=True)[A] == "Named before"  # what this run read
    monkeypatch.setattr(codex_discovery, "_walk", real_walk)
    assert written
    assert titles(use_cache=True, memo_discovery=True) == titles() == {A: "Renamed meanwhile", B: "second"}
