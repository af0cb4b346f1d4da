"""What a Codex thread index row says of a rollout, when it names that rollout.

- A home copied, restored or moved keeps an index whose rows name the old place
  (``/old/home/.codex/sessions/…``): a thread the index marks archived, at the same place
  under the new home, lost its ``(archived)`` mark, and ``list --archived`` left it out
  (a rollout that cannot be read showed it most: the file's own place said nothing).
- A row naming another file (another copy, a stale row) made the session start at the
  row's ``created_at``, earlier than the file's own start: it is taken only from a row
  that names this thread's file.
"""

from __future__ import annotations

from pathlib import Path

from builders import cli_json
from codex_builders import Calls, at, index_row, meta, rollout_path, turn_context, user_message, write_rollout, write_state_db

MOVED = "019c5353-0000-7000-8000-0000000000a1"  # archived by its row, which names the old home's place
BROKEN = "019c5353-0000-7000-8000-0000000000a2"  # the same, its .zst unreadable
STALE = "019c5353-0000-7000-8000-0000000000a3"  # the row names archived_sessions/ of the old home: stale
LIVE = "019c5353-0000-7000-8000-0000000000a4"  # not archived
OTHER = "019c5353-0000-7000-8000-0000000000a5"  # its row names another file, with an earlier created_at


def _thread(codex: Path, thread: str, start: float, title: str) -> Path:
    calls = Calls()
    return write_rollout(rollout_path(codex, thread, at(start)), [
        meta(thread, at(start)), turn_context(at(start + 1)), user_message(at(start + 1), title),
        calls.call(at(start + 10), 100, 0, 10)])


def _old(path: Path, home: Path) -> Path:
    """Where ``path`` was under the home the index was written in."""
    return Path("/old/home") / path.relative_to(home)


def _moved_home(home: Path) -> None:
    codex = home / ".codex"
    moved = _thread(codex, MOVED, 0, "moved and archived")
    broken = rollout_path(codex, BROKEN, at(100), compressed=True)
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 40)  # a zstd magic number, then garbage
    stale = _thread(codex, STALE, 200, "unarchived since")
    live = _thread(codex, LIVE, 300, "live one")
    write_state_db(codex / "state_5.sqlite", [
        index_row(MOVED, _old(moved, home), created=at(0), updated=at(20), archived=1),
        index_row(BROKEN, _old(broken, home), created=at(100), updated=at(120), archived=1, title="broken one"),
        index_row(STALE, _old(rollout_path(codex, STALE, at(200), archived=True), home),
                  created=at(200), updated=at(220), archived=1),
        index_row(LIVE, _old(live, home), created=at(300), updated=at(320), archived=0),
    ])
    assert stale.exists()


def test_a_moved_home_keeps_its_archived_marks(isolated_home: Path) -> None:
    _moved_home(isolated_home)
    rows = {row["native_id"]: row for row in cli_json("list", "--all")["sessions"]}
    assert rows[MOVED].get("archived") is True
    assert rows[BROKEN].get("archived") is True
    assert "archived" not in rows[STALE] and "archived" not in rows[LIVE]
    archived = {row["native_id"] for row in cli_json("list", "--all", "--archived")["sessions"]}
    assert archived == {MOVED, BROKEN}


def test_created_at_only_from_a_row_naming_this_file(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    own = _thread(codex, OTHER, 1000, "started late")
    elsewhere = rollout_path(codex, OTHER, at(0), archived=True)  # a copy no longer there
    write_state_db(codex / "state_5.sqlite", [index_row(OTHER, elsewhere, created=at(0), updated=at(1010))])
    row = cli_json("list", "--all")["sessions"][0]
    assert row["started_at"].startswith(at(1000).strftime("%Y-%m-%dT%H:%M:%S")), row["started_at"]
    # A row naming the file itself is believed: its thread started then (a resumed rollout's
    # header may be later than the thread's creation).
    write_state_db(codex / "state_6.sqlite", [index_row(OTHER, own, created=at(500), updated=at(1010))])
    row = cli_json("list", "--all")["sessions"][0]
    assert row["started_at"].startswith(at(500).strftime("%Y-%m-%dT%H:%M:%S")), row["started_at"]


def test_list_archived_reads_no_session_of_an_agent_that_archives_nothing(isolated_home: Path, monkeypatch) -> None:
    """A cold ``list --archived`` read every session to find the few archived (3.4 s of a
    1,500-session home): another agent's sessions cannot be (``Provider.can_archive``), and are
    left out unread, counted as its rows would be.  A small file is still read: a session that
    recorded nothing is no session (``SessionPage.blank``), as ``list`` counts it."""
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user
    from spies import record_calls

    from agentscan.providers.claude.provider import ClaudeProvider
    from agentscan.toolkit import cores

    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 1)  # every row read here, seen
    for number in range(3):
        native = f"{number:08x}-5353-4000-8000-000000000000"
        claude_session_file(isolated_home, native, [
            claude_user(native, "2026-11-02T09:00:00.000Z", f"task {number} " + "x" * 70_000),
            claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id=f"msg-{number}", request_id=f"req-{number}",
                             usage=claude_usage(100, 10))])
    claude_session_file(isolated_home, "0000000e-5353-4000-8000-000000000000", [])  # an aborted start
    _moved_home(isolated_home)
    read = record_calls(monkeypatch, ClaudeProvider, "row", lambda self, ref, ctx: ref.native_id)
    archived = {row["native_id"] for row in cli_json("list", "--all", "--archived")["sessions"]}
    assert archived == {MOVED, BROKEN}
    assert read == ["0000000e-5353-4000-8000-000000000000"]  # the small one alone
    monkeypatch.setattr(ClaudeProvider, "can_archive", True)  # as if Claude Code archived: read
    from builders import forget_remembered_answers

    forget_remembered_answers()
    read.clear()
    cli_json("list", "--all", "--archived")
    assert sorted(read) == [f"{number:08x}-5353-4000-8000-000000000000" for number in range(3)]  # (the small one's row is kept)


def test_what_a_list_archived_found_none_of_says_the_same_count(isolated_home: Path) -> None:
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

    for number in range(2):
        native = f"{number:08x}-5353-4000-8000-000000000001"
        claude_session_file(isolated_home, native, [
            claude_user(native, "2026-11-02T09:00:00.000Z", f"task {number} " + "x" * 70_000),
            claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id=f"msg-{number}", request_id=f"req-{number}",
                             usage=claude_usage(100, 10))])
    claude_session_file(isolated_home, "0000000e-5353-4000-8000-000000000001", [])
    _thread(isolated_home / ".codex", LIVE, 0, "live one")
    result = invoke("list", "--archived")
    assert "no archived sessions (3 sessions, none archived)" in result.output, result.output
