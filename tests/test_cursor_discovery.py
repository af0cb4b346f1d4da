"""Cursor transcript discovery: layouts, duplicates and freshness."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from agentscan.scan.listing import ListFilter
from agentscan.scan.scanner import Scanner
from cursor_builders import (
    assistant,
    bubble,
    composer_data,
    copy_real_dot_cursor,
    make_state_db,
    state_db_path,
    transcripts_dir,
    user,
    write_jsonl,
    write_subagent,
    write_transcript,
)

A = "aaaaaaaa-1111-4000-8000-00000000000a"
B = "bbbbbbbb-2222-4000-8000-00000000000b"
C = "cccccccc-3333-4000-8000-00000000000c"
CHILD = "dddddddd-4444-4000-8000-00000000000d"
T = 1_780_000_000.0  # 2026-05-28T20:26:40Z


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


def _scanner(home: Path) -> Scanner:
    return Scanner(home=home, provider_names=["cursor"])


def test_nested_and_flat_parents_are_sessions_subagents_are_not(isolated_home: Path) -> None:
    write_transcript(isolated_home, "home-me-web", A, [user("nested ide chat")], mtime=T)
    write_transcript(isolated_home, "home-me-cli", B, [user("flat cli chat")], flat=True, mtime=T + 10)
    write_subagent(isolated_home, "home-me-web", A, CHILD, [user("child work")], mtime=T + 5)
    # Stray files that are not transcripts.
    write_jsonl(isolated_home / ".cursor/projects/home-me-web/canvases/node_modules/x/y.jsonl", [{"role": "user"}])
    (transcripts_dir(isolated_home, "home-me-web") / "notes.txt").write_text("user: hi\n")
    write_jsonl(transcripts_dir(isolated_home, "home-me-web") / "junk" / "other.jsonl", [user("not a parent")])
    rows = _scanner(isolated_home).list_sessions()
    assert [(r.native_id, r.title, r.subagents) for r in rows] == [
        (B, "flat cli chat", 0),
        (A, "nested ide chat", 1),
    ]
    assert rows[0].path == str(transcripts_dir(isolated_home, "home-me-cli") / f"{B}.jsonl")
    assert rows[1].path == str(transcripts_dir(isolated_home, "home-me-web") / A / f"{A}.jsonl")


def test_empty_window_duplicate_is_listed_once_from_the_real_workspace(isolated_home: Path) -> None:
    real = write_transcript(isolated_home, "home-me-shop", A, [user("from the workspace")], mtime=T)
    # The empty-window copy is newer but is a stale fork: it must lose.
    write_transcript(isolated_home, "empty-window", A, [user("stale fork")], mtime=T + 500)
    write_transcript(isolated_home, "empty-window", B, [user("only in empty window")], mtime=T + 100)
    rows = _scanner(isolated_home).list_sessions()
    assert sorted((r.native_id, r.title, r.path) for r in rows) == [
        (A, "from the workspace", str(real)),
        (B, "only in empty window", str(transcripts_dir(isolated_home, "empty-window") / B / f"{B}.jsonl")),
    ]


def test_duplicate_outside_empty_window_prefers_the_newer_copy(isolated_home: Path) -> None:
    write_transcript(isolated_home, "home-me-one", A, [user("older copy")], mtime=T)
    newer = write_transcript(isolated_home, "home-me-two", A, [user("newer copy")], mtime=T + 60)
    (row,) = _scanner(isolated_home).list_sessions()
    assert (row.title, row.path) == ("newer copy", str(newer))


def test_a_subagent_newer_than_its_parent_makes_the_session_fresh(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", A, [user("parent went quiet")], mtime=T)
    write_subagent(isolated_home, "p", A, CHILD, [user("child still busy")], mtime=T + 3600)
    write_transcript(isolated_home, "p", B, [user("middle")], mtime=T + 1800)
    scanner = _scanner(isolated_home)
    refs = scanner.refs()
    assert [(r.native_id, r.recency) for r in refs] == [(A, T + 3600), (B, T + 1800)]
    rows = scanner.list_sessions()
    assert [r.native_id for r in rows] == [A, B]
    assert rows[0].updated_at == _utc("2026-05-28T21:26:40")
    # --since keeps the session whose only recent write is the child's.
    since = _utc("2026-05-28T21:00:00")
    assert [r.native_id for r in scanner.list_sessions(filters=ListFilter(since=since))] == [A]


def test_subagents_without_their_parent_still_count(isolated_home: Path) -> None:
    write_subagent(isolated_home, "p", A, CHILD, [user("orphaned child")], mtime=T)
    make_state_db(
        state_db_path(isolated_home),
        composers=[composer_data(CHILD)],
        bubbles={CHILD: [bubble("x", 2, "done", tokens=(30, 12))]},
    )
    (row,) = _scanner(isolated_home).list_sessions()
    assert row.native_id == A
    assert row.path == str(transcripts_dir(isolated_home, "p") / A)
    assert row.tokens.total == 42
    assert row.subagents == 1


def test_flat_and_nested_copies_in_one_project_are_one_session(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", A, [user("flat")], flat=True, mtime=T)
    nested = write_transcript(isolated_home, "p", A, [user("nested")], mtime=T + 1)
    (row,) = _scanner(isolated_home).list_sessions()
    assert (row.title, row.path) == ("nested", str(nested))


def test_real_dot_cursor_sample(isolated_home: Path) -> None:
    """``synthetic-home-dot-cursor`` (S2thend/cursor-history fixtures): a nested
    IDE transcript with its ``chats/<md5(cwd)>/<id>/meta.json``, and an
    ``empty-window`` chat."""
    copy_real_dot_cursor(isolated_home)
    scanner = _scanner(isolated_home)
    rows = {r.native_id: r for r in scanner.list_sessions()}
    assert set(rows) == {"aaaaaaaa-0000-0000-0000-000000000001", "bbbbbbbb-0000-0000-0000-000000000002"}
    first = rows["aaaaaaaa-0000-0000-0000-000000000001"]
    assert first.title == "Read foo.txt"
    assert first.cwd == "/mnt/d/1_yuyu_proj/cursor-history"  # meta.json beats the tool path /tmp/foo.txt
    # createdAtMs 1783737832293 = 2026-07-11T02:43:52.293Z
    assert first.started_at == datetime(2026, 7, 11, 2, 43, 52, 293000, tzinfo=timezone.utc)
    assert (first.counts.prompts, first.counts.responses, first.counts.tool_calls) == (1, 1, 1)
    assert first.tokens is None
    second = rows["bbbbbbbb-0000-0000-0000-000000000002"]
    assert (second.title, second.cwd, second.started_at) == ("What is 2+2?", None, None)
    assert scanner.warnings == []


def test_unreadable_project_dir_is_a_warning_not_a_crash(isolated_home: Path) -> None:
    write_transcript(isolated_home, "ok", A, [user("fine")], mtime=T)
    locked = transcripts_dir(isolated_home, "locked")
    write_transcript(isolated_home, "locked", B, [user("hidden")], mtime=T)
    os.chmod(locked, 0)
    try:
        scanner = _scanner(isolated_home)
        rows = scanner.list_sessions()
        if os.access(locked, os.R_OK):  # running as root: permissions do not apply
            return
        assert [r.native_id for r in rows] == [A]
        assert any("cannot list directory" in w.message for w in scanner.warnings)
    finally:
        os.chmod(locked, 0o755)


def test_show_resolves_a_prefix(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", A, [user("hello"), assistant("hi there")], mtime=T)
    detail = _scanner(isolated_home).show(A[:8])
    assert detail.row.native_id == A
    assert [p.text for p in detail.prompts] == ["hello"]
    assert [r.text for r in detail.responses] == ["hi there"]
