"""``state.vscdb`` enrichment: read-only, bounded, and never fatal."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest

from agentscan.toolkit import sqlite_ro
from agentscan.scan.scanner import Scanner
from agentscan.providers.cursor import statedb_reader
from agentscan.providers.cursor.statedb import close_state_db
from agentscan.providers.cursor.statedb_reader import key_range
from agentscan.scan.tokens import token_report
from cursor_builders import (
    assistant,
    bubble,
    composer_data,
    listing,
    make_state_db,
    state_db_path,
    tool,
    user,
    write_transcript,
)

S = "5e551011-0000-4000-8000-000000000001"
IDE = "1de00000-0000-4000-8000-000000000002"
IDE_UNNAMED = "1de00000-0000-4000-8000-000000000003"
EMPTY = "e0000000-0000-4000-8000-000000000004"
T0 = 1_785_000_000_000  # 2026-07-25T17:20:00Z
UTC = timezone.utc


def _scanner(home: Path) -> Scanner:
    return Scanner(home=home, provider_names=["cursor"])


def _ide_home(home: Path) -> None:
    make_state_db(
        state_db_path(home),
        composers=[
            composer_data(IDE, name="Fix the login bug", created=T0, updated=T0 + 120_000,
                          model="gpt-5", fs_path="/home/me/site", bubbles=["u1", "a1", "u2", "a2"],
                          todos=[{"id": "1", "content": "reproduce", "status": "completed"}]),
            composer_data(IDE_UNNAMED, created=T0 - 86_400_000, updated=T0 - 86_000_000, bubbles=["q"]),
            composer_data(EMPTY, created=T0, updated=T0 + 999_000),  # a new, never used chat tab
        ],
        bubbles={
            IDE: [
                bubble("u1", 1, "why does login fail?", created="2026-07-25T17:20:01Z"),
                bubble("a1", 2, "Reading the handler.", tokens=(300, 20), created="2026-07-25T17:20:05Z",
                       model="gpt-5",
                       toolFormerData={"name": "read_file", "params": orjson.dumps({"path": "/home/me/site/login.py"}).decode(),
                                       "status": "completed"}),
                bubble("old", 2, "an answer the user regenerated", tokens=(40, 4)),
                bubble("u2", 1, "and the fix?", created="2026-07-25T17:21:00Z"),
                bubble("a2", 2, "Patched it.", tokens=(500, 60), created="2026-07-25T17:21:30Z",
                       toolFormerData={"name": "run_terminal_cmd", "rawArgs": '{"command": "pytest"}', "status": "error"}),
            ],
            IDE_UNNAMED: [bubble("q", 1, "what is a monad", created="2026-07-24T17:20:00Z")],
        },
    )


def test_ide_only_composers_are_sessions(isolated_home: Path) -> None:
    _ide_home(isolated_home)
    scanner = _scanner(isolated_home)
    rows = scanner.list_sessions()
    assert [r.native_id for r in rows] == [IDE, IDE_UNNAMED]  # the empty tab is not a session
    row = rows[0]
    assert row.title == "Fix the login bug"
    assert (row.cwd, row.model, row.path) == ("/home/me/site", "gpt-5", str(state_db_path(isolated_home)))
    assert row.started_at == datetime(2026, 7, 25, 17, 20, tzinfo=UTC)
    assert row.updated_at == datetime(2026, 7, 25, 17, 22, tzinfo=UTC)
    assert (row.counts.prompts, row.counts.responses, row.counts.tool_calls) == (2, 2, 2)
    # 300+20 + 500+60 + the regenerated orphan's 40+4
    assert (row.tokens.input, row.tokens.output) == (840, 84)
    assert rows[1].title == "what is a monad"
    assert rows[1].tokens is None


def test_ide_only_detail_follows_the_header_order(isolated_home: Path) -> None:
    _ide_home(isolated_home)
    detail = _scanner(isolated_home).show(IDE)
    assert [(p.text, p.timestamp) for p in detail.prompts] == [
        ("why does login fail?", datetime(2026, 7, 25, 17, 20, 1, tzinfo=UTC)),
        ("and the fix?", datetime(2026, 7, 25, 17, 21, tzinfo=UTC)),
    ]
    # The second bubble names no model: none is invented for it (the composer's is the current one).
    assert [(r.text, r.model) for r in detail.responses] == [("Reading the handler.", "gpt-5"), ("Patched it.", None)]
    assert [(t.name, t.summary, t.status, t.paths) for t in detail.tools] == [
        ("read_file", "/home/me/site/login.py", "ok", ("/home/me/site/login.py",)),
        ("run_terminal_cmd", "pytest", "error", ()),
    ]
    assert [(p.step, p.status) for p in detail.plan] == [("reproduce", "completed")]


def test_composer_headers_table_gives_the_times_and_marks_subagents(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("hi")], mtime=T0 / 1000 - 3600)
    hidden = "5ub00000-0000-4000-8000-000000000009"
    make_state_db(
        state_db_path(isolated_home),
        composers=[composer_data(S, created=T0 + 5, updated=T0 + 6), composer_data(hidden, bubbles=["x"])],
        headers_table=[(S, T0, T0 + 600_000, 0), (hidden, T0, T0, 1)],
    )
    rows = {row.native_id: row for row in _scanner(isolated_home).list_sessions()}
    assert rows[S].started_at == datetime(2026, 7, 25, 17, 20, tzinfo=UTC)
    assert rows[S].updated_at == datetime(2026, 7, 25, 17, 30, tzinfo=UTC)
    # A subagent run no parent lists or names is listed on its own: its tokens are never lost.
    assert set(rows) == {S, hidden}


def test_composer_headers_item_table_key_in_newer_builds(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("hi")], mtime=T0 / 1000 - 3600)
    make_state_db(
        state_db_path(isolated_home),
        headers_item=[{"composerId": S, "name": "Named in the headers", "createdAt": T0, "lastUpdatedAt": T0 + 60_000}],
    )
    (row,) = _scanner(isolated_home).list_sessions()
    assert (row.title, row.started_at, row.updated_at) == (
        "Named in the headers", datetime(2026, 7, 25, 17, 20, tzinfo=UTC), datetime(2026, 7, 25, 17, 21, tzinfo=UTC),
    )


def test_composer_data_enriches_a_transcript(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("hi"), assistant(None, tool("Shell", command="ls", working_directory="/tmp/x"))])
    make_state_db(state_db_path(isolated_home), as_text=True, composers=[
        composer_data(S, name="Named chat", model="claude-4.5-opus-high-thinking", fs_path="/home/me/proj"),
    ])
    (row,) = _scanner(isolated_home).list_sessions()
    assert (row.title, row.model, row.cwd) == ("Named chat", "claude-4.5-opus-high-thinking", "/home/me/proj")


def test_default_model_means_auto_and_is_ignored(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("hi")])
    make_state_db(
        state_db_path(isolated_home),
        composers=[composer_data(S, model="default")],
        bubbles={S: [bubble("a", 2, "x", model="default"), bubble("b", 2, "y", model="claude-4-sonnet")]},
    )
    (row,) = _scanner(isolated_home).list_sessions()
    assert row.model == "claude-4-sonnet"  # from the bubbles, since the composer said "auto"


def test_newline_keys_and_null_values_are_ignored(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("hi")])
    make_state_db(
        state_db_path(isolated_home),
        composers=[composer_data(S)],
        bubbles={S: [bubble("a", 2, "x", tokens=(5, 1))]},
        raw_rows=[
            ("composerData:task-call_1\nfc_2", orjson.dumps(composer_data("task-call_1\nfc_2", bubbles=["z"]))),
            ("bubbleId:task-call_1\nfc_2:z", orjson.dumps(bubble("z", 2, "tool run", tokens=(999, 999)))),
            (f"bubbleId:{S}:nullbubble", None),
            ("composerData:0000nul0-0000-4000-8000-000000000000", None),
        ],
    )
    scanner = _scanner(isolated_home)
    rows = scanner.list_sessions()
    assert [(r.native_id, r.tokens.total) for r in rows] == [(S, 6)]
    assert scanner.warnings == []


def test_invalid_json_values_are_warnings(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("hi")])
    make_state_db(
        state_db_path(isolated_home),
        composers=[composer_data(S)],
        raw_rows=[(f"bubbleId:{S}:bad", b"{torn"), (f"bubbleId:{S}:ok", orjson.dumps(bubble("ok", 2, "x", tokens=(2, 3))))],
    )
    scanner = _scanner(isolated_home)
    (row,) = scanner.list_sessions()
    assert row.tokens.total == 5
    assert [(w.path, w.message) for w in scanner.warnings] == [
        (str(state_db_path(isolated_home)), f"invalid JSON skipped: bubbleId:{S}:bad"),
    ]


def test_key_range_is_the_prefix_and_the_next_byte() -> None:
    assert key_range("bubbleId:abc:") == ("bubbleId:abc:", "bubbleId:abc;")
    assert key_range("composerData:") == ("composerData:", "composerData;")


def test_queries_are_exact_keys_or_bounded_ranges_served_by_the_index(isolated_home: Path, monkeypatch) -> None:
    _ide_home(isolated_home)
    write_transcript(isolated_home, "p", S, [user("hi")])
    statements: list[str] = []
    original = statedb_reader.connect_readonly

    def traced(path: Path, **kwargs):
        conn = original(path, **kwargs)
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(statedb_reader, "connect_readonly", traced)
    scanner = _scanner(isolated_home)
    scanner.list_sessions()
    scanner.show(IDE)
    token_report(scanner)
    close_state_db(scanner.ctx)
    kv = [s for s in statements if "cursorDiskKV" in s and "sqlite_master" not in s]
    assert kv, statements
    assert not any("LIKE" in s.upper() for s in statements)
    for sql in kv:
        assert "key = " in sql or ("key >= " in sql and "key < " in sql), sql
    item = [s for s in statements if "ItemTable" in s and "sqlite_master" not in s]
    assert all("key = 'composer.composerHeaders'" in s for s in item), item
    with closing(sqlite3.connect(state_db_path(isolated_home))) as conn:
        for sql in kv:
            plan = " ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql))
            assert "USING INDEX" in plan and "SCAN cursorDiskKV" not in plan.replace("USING INDEX", ""), (sql, plan)


def test_reads_while_a_writer_holds_begin_immediate_in_wal_mode(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("hi")])
    db_path = make_state_db(
        state_db_path(isolated_home), wal=True,
        composers=[composer_data(S, name="committed name")],
        bubbles={S: [bubble("a", 2, "x", tokens=(100, 40))]},
    )
    writer = sqlite3.connect(db_path, isolation_level=None)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("INSERT INTO cursorDiskKV VALUES (?, ?)",
                       (f"bubbleId:{S}:uncommitted", orjson.dumps(bubble("uncommitted", 2, "y", tokens=(1, 1)))))
        before = listing(db_path.parent)
        assert f"{db_path.name}-wal" in before  # the writer's own files
        scanner = _scanner(isolated_home)
        (row,) = scanner.list_sessions()
        detail = scanner.show(S)
        report = token_report(scanner)
        close_state_db(scanner.ctx)
        assert (row.title, row.tokens.total) == ("committed name", 140)
        assert detail.row.tokens.total == 140 and report.total.total == 140
        # The only warning: the bubble names no model, so its cost is unknown.
        assert [w.path for w in scanner.warnings] == ["model:cursor/unknown"]
        assert listing(db_path.parent) == before
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_wal_db_whose_writer_is_gone_is_read_without_creating_files(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("hi")])
    db_path = make_state_db(state_db_path(isolated_home), wal=True, composers=[composer_data(S, name="n")],
                            bubbles={S: [bubble("a", 2, "x", tokens=(1, 2))]})
    before = listing(db_path.parent)
    assert before == ["state.vscdb"]
    scanner = _scanner(isolated_home)
    (row,) = scanner.list_sessions()
    close_state_db(scanner.ctx)
    assert (row.title, row.tokens.total) == ("n", 3)
    assert listing(db_path.parent) == before
    uris = [u for u in sqlite_ro.OPENED_URIS if "state.vscdb" in u]
    assert uris and all("mode=ro" in u for u in uris)


@pytest.mark.parametrize(
    "content",
    [
        b"this is not a database at all",
        b"SQLite format 3\x00" + b"\x00" * 84 + b"\xff" * 4000,  # right magic, garbage pages
    ],
)
def test_a_corrupt_db_is_a_warning_and_transcripts_are_still_listed(isolated_home: Path, content: bytes) -> None:
    write_transcript(isolated_home, "p", S, [user("still here")])
    db_path = state_db_path(isolated_home)
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(content)
    scanner = _scanner(isolated_home)
    (row,) = scanner.list_sessions()
    assert (row.title, row.tokens) == ("still here", None)
    assert scanner.show(S).row.title == "still here"
    # its usage is the DB's: not known, so named apart, not a row "recorded no usage" (pass 52)
    report = token_report(scanner)
    assert report.rows == () and report.unreadable == (f"cursor:{S}",)
    messages = [w.message for w in scanner.warnings if w.path == str(db_path)]
    assert len(messages) == 1 and messages[0].startswith("Cursor state DB not used")
    assert listing(db_path.parent) == ["state.vscdb"]


def test_a_missing_default_db_is_silent(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("cli only")])
    scanner = _scanner(isolated_home)
    assert [r.title for r in scanner.list_sessions()] == ["cli only"]
    assert scanner.warnings == []
    assert not (isolated_home / ".config").exists()


def test_a_missing_explicit_db_is_a_warning(isolated_home: Path, monkeypatch) -> None:
    write_transcript(isolated_home, "p", S, [user("cli only")])
    missing = isolated_home / "nowhere" / "state.vscdb"
    monkeypatch.setenv("CURSOR_STATE_DB", str(missing))
    scanner = _scanner(isolated_home)
    assert [r.title for r in scanner.list_sessions()] == ["cli only"]
    assert [(w.path, "not found" in w.message) for w in scanner.warnings] == [(str(missing), True)]
    assert not missing.parent.exists()


def test_cursor_state_db_env_points_anywhere(isolated_home: Path, monkeypatch, tmp_path: Path) -> None:
    elsewhere = make_state_db(tmp_path / "backup" / "state.vscdb", composers=[
        composer_data(IDE, name="from the backup", updated=T0, bubbles=["b"])])
    make_state_db(state_db_path(isolated_home), composers=[composer_data(IDE_UNNAMED, name="default", bubbles=["b"])])
    monkeypatch.setenv("CURSOR_STATE_DB", str(elsewhere))
    assert [r.title for r in _scanner(isolated_home).list_sessions()] == ["from the backup"]


def test_a_db_without_cursor_tables(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("hi")])
    db_path = state_db_path(isolated_home)
    db_path.parent.mkdir(parents=True)
    with closing(sqlite3.connect(db_path)) as conn:
        conn.execute("CREATE TABLE other (x)")
        conn.commit()
    scanner = _scanner(isolated_home)
    assert [r.title for r in scanner.list_sessions()] == ["hi"]
    assert [w.message for w in scanner.warnings] == [
        "no cursorDiskKV table (not a Cursor state DB?); composers not read",
    ]


def test_legacy_inline_conversation(isolated_home: Path) -> None:
    legacy = composer_data(IDE, name="old build", updated=T0)
    del legacy["fullConversationHeadersOnly"]
    legacy["conversation"] = [bubble("u", 1, "old question"), bubble("a", 2, "old answer", tokens=(11, 7))]
    make_state_db(state_db_path(isolated_home), composers=[legacy])
    scanner = _scanner(isolated_home)
    (row,) = scanner.list_sessions()
    assert (row.title, row.tokens.total, row.counts.prompts) == ("old build", 18, 1)
    detail = scanner.show(IDE)
    assert [p.text for p in detail.prompts] == ["old question"]
    assert [r.text for r in detail.responses] == ["old answer"]


def test_corrupt_pages_found_mid_query_are_one_warning(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("still here")])
    db_path = make_state_db(state_db_path(isolated_home), composers=[composer_data(S, name="n")],
                            bubbles={S: [bubble(f"b{i}", 2, "x" * 500, tokens=(1, 1)) for i in range(50)]})
    data = bytearray(db_path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page:] = b"\xff" * (len(data) - page)  # keep page 1 (the schema) readable
    db_path.write_bytes(bytes(data))
    scanner = _scanner(isolated_home)
    (row,) = scanner.list_sessions()
    assert (row.title, row.tokens) == ("still here", None)
    scanner.show(S)
    token_report(scanner)
    messages = [w.message for w in scanner.warnings]
    assert len(messages) == 1 and messages[0].startswith("Cursor state DB not used"), messages


def test_the_connection_is_closed_with_the_scan(isolated_home: Path) -> None:
    import gc

    write_transcript(isolated_home, "p", S, [user("hi")])
    make_state_db(state_db_path(isolated_home), composers=[composer_data(S, name="n")])
    scanner = _scanner(isolated_home)
    scanner.list_sessions()
    handle = scanner.ctx.memo["cursor.state_db"]._handle
    assert handle.conn is not None  # one connection, kept for the whole scan
    del scanner
    gc.collect()
    assert handle.conn is None


def test_one_connection_per_scan(isolated_home: Path) -> None:
    _ide_home(isolated_home)
    write_transcript(isolated_home, "p", S, [user("hi")])
    db_uri_count = lambda: sum("state.vscdb" in uri for uri in sqlite_ro.OPENED_URIS)  # noqa: E731
    before = db_uri_count()
    scanner = _scanner(isolated_home)
    scanner.list_sessions()
    scanner.show(IDE)
    scanner.show(S)
    token_report(scanner)
    close_state_db(scanner.ctx)
    assert db_uri_count() - before == 1
