"""A robustness tester's findings (pass 40): a locked Cursor DB said by ``show``'s "no session
matches", a nested Cursor transcript that is no file warned of, a ``.project_root`` of junk
ignored, the real reason of a chat head or meta that gives no id, and file names that make
no usable id skipped (docs/security.md, docs/providers/*.md)."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest

from agentscan.errors import SessionNotFound
from agentscan.scan.scanner import Scanner
from agentscan.toolkit import sqlite_ro
from bad_corpus import LiveWriter
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke, write_jsonl
from codex_builders import meta as codex_meta
from codex_builders import rollout_path, write_rollout
from cursor_builders import (
    assistant,
    bubble,
    composer_data,
    cursor_only,
    make_state_db,
    state_db_path,
    transcripts_dir,
    turn_ended,
    user,
    write_chat_store,
    write_transcript,
)
from gemini_builders import chats_dir, gemini, meta, tokens, write_chat
from gemini_builders import user as gemini_user

A = "a4000000-0000-4000-8000-000000000001"
B = "b4000000-0000-4000-8000-000000000002"
SLUG = "home-me-shop"
T0 = 1_785_000_000_000
HINT = "hint: `agentscan list --grep TEXT` finds it by title, cwd, model or path (`--all` lists every id)"
#: a JSON text nested far past orjson's limit (1,024)
DEEP = b"[" * 100_000 + b"]" * 100_000


def _deep_column(line: bytes) -> int:
    """Where orjson gives up on ``line`` (its column, as the warnings say it)."""
    with pytest.raises(orjson.JSONDecodeError) as refused:
        orjson.loads(line)
    assert str(refused.value).startswith("depth limit exceeded")
    return refused.value.pos + 1


def _warnings(document: dict) -> list[tuple[str, str]]:
    return [(Path(w["path"]).name, w["message"]) for w in document["warnings"]]


# -- 1: a locked state DB is said under "no session matches" --------------------------


def test_show_of_a_session_only_the_locked_state_db_holds_says_the_lock(isolated_home: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    cursor_only(monkeypatch)
    monkeypatch.setattr(sqlite_ro, "BUSY_TIMEOUT_MS", 250)
    db = make_state_db(state_db_path(isolated_home), composers=[
        composer_data(A, name="only in the DB", updated=T0, model="gpt-5", bubbles=["u", "a"])],
        bubbles={A: [bubble("u", 1, "hi"), bubble("a", 2, "yo", tokens=(4, 2))]})
    assert invoke("show", f"cursor:{A}").exit_code == 0  # the id index now names it
    with LiveWriter("exclusive", db):
        results = [invoke(*args) for args in (("show", f"cursor:{A}"), ("-v", "show", A), ("show", A[:8]))]
        scanner = Scanner(provider_names=["cursor"])  # a library caller's, with no index: nothing kept
        with pytest.raises(SessionNotFound) as caught:
            scanner.show(A)
    # Pass 56: a chat only the DB holds is kept at its last read under a lock (``keptfamily``),
    # so ``show`` answers from what was kept, and says the lock and what it could not read.
    lock = f"{db}: Cursor state DB not used (database is locked by Cursor or another program)"
    for result in results:
        assert result.exit_code == 0, result.stderr
        assert result.stdout.splitlines()[0] == f"cursor:{A}"
        assert "model    gpt-5" in result.stdout
        assert "tokens   6 total = 4 input" in result.stdout
        assert "prompts and responses not known (could not be read)" in result.stdout
        assert lock in " ".join(result.stderr.split())
    assert list(caught.value.details) == [
        "it may be in a database agentscan could not read:",
        f"  {lock}; try again in a moment, or close Cursor"]


def test_not_found_names_no_database_of_another_provider(isolated_home: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_ro, "BUSY_TIMEOUT_MS", 250)
    db = make_state_db(state_db_path(isolated_home), composers=[composer_data(A, updated=T0, bubbles=["u"])],
                       bubbles={A: [bubble("u", 1, "hi")]})
    with LiveWriter("exclusive", db):
        scanner = Scanner(provider_names=["claude", "cursor"])
        scanner.refs()  # Cursor's discovery met the lock
        with pytest.raises(SessionNotFound) as caught:
            scanner.show(f"claude:{B}")
    assert caught.value.details == ()


# -- 2: a nested Cursor transcript that is no file -------------------------------------


def test_a_nested_transcript_that_is_no_file_is_skipped_with_a_warning(isolated_home: Path) -> None:
    write_transcript(isolated_home, SLUG, A, [user("fine"), assistant("ok"), turn_ended()])
    base = transcripts_dir(isolated_home, SLUG)
    names = {"fifo": "c4000000-0000-4000-8000-000000000003", "zero": "d4000000-0000-4000-8000-000000000004",
             "loop": "e4000000-0000-4000-8000-000000000005"}
    for kind, composer in names.items():
        (base / composer).mkdir(parents=True)
        target = base / composer / f"{composer}.jsonl"
        if kind == "fifo":
            os.mkfifo(target)
        elif kind == "zero":
            target.symlink_to("/dev/zero")
        else:
            target.symlink_to(target)
    listed = cli_json("list", "--provider", "cursor")
    assert [row["id"] for row in listed["sessions"]] == [f"cursor:{A}"]
    assert sorted(_warnings(listed)) == sorted([
        (f"{names['fifo']}.jsonl", "not a regular file (a FIFO); skipped"),
        (f"{names['zero']}.jsonl", "points outside the provider's root; skipped"),
        (f"{names['loop']}.jsonl", "symlink cannot be followed (Too many levels of symbolic links); skipped"),
    ])


# -- 3: a .project_root of junk --------------------------------------------------------


def _gemini_project(home: Path, project: str, session: str, marker: bytes | None) -> Path:
    write_chat(home, project, f"session-2026-05-01T10-00-{session[:8]}.jsonl", [
        meta(session), gemini_user("u1", "2026-05-01T10:00:00.000Z", "hello"),
        gemini("g1", "2026-05-01T10:00:05.000Z", "hi", usage=tokens(10, 5))])
    path = chats_dir(home, project).parent / ".project_root"
    if marker is not None:
        path.write_bytes(marker)
    return path


@pytest.mark.parametrize(("marker", "fault"), [
    (b"\x00\xff/not/utf8\n/second/line\n", "it is not valid UTF-8: byte 0xff at offset 1"),
    (b"\x00/work/app\n", "it holds a NUL byte"),
    (b"/work/app\n/work/other\n", "it holds several lines"),
    (b"/work/\x1b[31mapp", "it holds a control character"),
    (b"work/app\n", "it is a relative path"),
])
def test_a_project_root_of_junk_is_ignored_with_a_warning(isolated_home: Path, marker: bytes, fault: str) -> None:
    _gemini_project(isolated_home, "junk", A, marker)
    _gemini_project(isolated_home, "registered", B, marker)
    (isolated_home / ".gemini" / "projects.json").write_bytes(orjson.dumps({"projects": {"/work/known": "registered"}}))
    listed = cli_json("list", "--provider", "gemini")
    assert {row["id"]: row["cwd"] for row in listed["sessions"]} == {f"gemini:{A}": None, f"gemini:{B}": "/work/known"}
    message = f"not one absolute path on one line ({fault}); ignored"
    assert sorted((Path(w["path"]).parent.name, w["message"]) for w in listed["warnings"]) == [
        ("junk", message), ("registered", message)]


@pytest.mark.parametrize("marker", [b"/work/app\n", b"  /work/app  \n", "C:\\Users\\me\\app".encode()])
def test_a_project_root_of_one_absolute_path_is_the_cwd(isolated_home: Path, marker: bytes) -> None:
    _gemini_project(isolated_home, "app", A, marker)
    listed = cli_json("list", "--provider", "gemini")
    assert [row["cwd"] for row in listed["sessions"]] == [marker.decode().strip()]
    assert listed["warnings"] == []


# -- 4: the real reason of a head or meta that gives no id ----------------------------


@pytest.mark.parametrize(("content", "message"), [
    (b"[1, 2, 3]", "chat file's JSON is an array, not an object; skipped"),
    (b"42", "chat file's JSON is a number, not an object; skipped"),
    (b"null", "chat file's JSON is null, not an object; skipped"),
    (b'"str"', "chat file's JSON is a string, not an object; skipped"),
    (DEEP, "invalid JSON: nested too deeply at column 1026; skipped"),
    (b"\xff\xfe{\x00}\x00", "invalid JSON: not valid UTF-8 (byte 0xff at column 1); skipped"),
    (b'{"messages": []}', "no sessionId in the file's header; skipped"),
])
def test_a_legacy_chat_without_a_session_id_says_why(isolated_home: Path, content: bytes, message: str) -> None:
    path = chats_dir(isolated_home, "p") / "session-2026-05-01T10-00-deadbeef.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    listed = cli_json("list", "--provider", "gemini")
    assert listed["sessions"] == []
    assert _warnings(listed) == [(path.name, message)]


@pytest.mark.parametrize(("first", "message"), [
    (b"[1]", "no sessionId: its first line is an array, not an object; skipped"),
    (DEEP, "no sessionId: its first line is invalid JSON (nested too deeply at column 1026); skipped"),
])
def test_a_jsonl_chat_whose_header_is_no_record_says_why(isolated_home: Path, first: bytes, message: str) -> None:
    path = chats_dir(isolated_home, "p") / "session-2026-05-01T10-00-deadbeef.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(first + b"\n" + orjson.dumps(gemini_user("u1", "2026-05-01T10:00:00.000Z", "hello")) + b"\n")
    listed = cli_json("list", "--provider", "gemini")
    assert listed["sessions"] == []
    assert _warnings(listed) == [(path.name, message)]


def test_a_jsonl_header_with_a_field_nested_too_deep_keeps_its_session(isolated_home: Path) -> None:
    """Its ``sessionId`` is found as a legacy head's is; the line's reader says what is wrong."""
    header = orjson.dumps(meta(A))[:-1] + b', "deep": ' + DEEP + b"}"
    path = chats_dir(isolated_home, "p") / "session-2026-05-01T10-00-a4000000.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(header + b"\n" + b"".join(orjson.dumps(record) + b"\n" for record in (
        gemini_user("u1", "2026-05-01T10:00:00.000Z", "hello"),
        gemini("g1", "2026-05-01T10:00:05.000Z", "hi", usage=tokens(10, 5)))))
    listed = cli_json("list", "--provider", "gemini")
    assert [row["id"] for row in listed["sessions"]] == [f"gemini:{A}"]
    assert cli_json("tokens", "--provider", "gemini")["total"]["total"] == 15
    assert [(w["line"], w["message"]) for w in listed["warnings"]] == [
        (1, f"invalid JSON skipped: nested too deeply at column {_deep_column(header)}")]


def test_a_codex_meta_nested_too_deep_is_said_so(isolated_home: Path) -> None:
    started = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
    path = rollout_path(isolated_home / ".codex", A, started)
    line = orjson.dumps(codex_meta(A, started))[:-2] + b', "deep": ' + DEEP + b"}}"
    write_rollout(path, [])
    path.write_bytes(line + b"\n")
    listed = cli_json("list", "--provider", "codex")
    assert (path.name, f"no session_meta with id {A} in the first 64 KiB "
            f"(line 1: invalid JSON (nested too deeply at column {_deep_column(line)})): listed by the id in its name, "
            "without its start, working directory, branch or parent thread; look at the file's first line: "
            "Codex writes the meta there") in _warnings(listed)


@pytest.mark.parametrize(("value", "message"), [
    (orjson.dumps({"name": "x"}).hex() + "zz", "meta key 0 is not hex-encoded JSON; skipped"),
    (DEEP.hex(), "meta key 0 is not valid JSON (nested too deeply at column 1026); skipped"),
    (b"[1]".hex(), "meta key 0 is an array, not an object; skipped"),
    (None, "meta key 0 is NULL, not hex-encoded JSON; skipped"),
])
def test_a_store_meta_that_cannot_be_used_says_why(isolated_home: Path, value: object, message: str) -> None:
    write_transcript(isolated_home, SLUG, A, [user("first prompt")])
    directory = write_chat_store(isolated_home, "/home/me/shop", A, store={"name": "x"})
    with closing(sqlite3.connect(directory / "store.db")) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = '0'", (value,))
        conn.commit()
    scanner = Scanner(provider_names=["cursor"])
    (row,) = scanner.list_sessions()
    assert row.title == "first prompt"
    assert [w.message for w in scanner.warnings] == [message]


def test_a_store_meta_of_an_empty_object_says_nothing(isolated_home: Path) -> None:
    write_transcript(isolated_home, SLUG, A, [user("first prompt")])
    write_chat_store(isolated_home, "/home/me/shop", A, store={})
    scanner = Scanner(provider_names=["cursor"])
    assert [row.title for row in scanner.list_sessions()] == ["first prompt"]
    assert scanner.warnings == []


# -- 5: names that make no usable id ---------------------------------------------------


def _claude(home: Path, name: str) -> Path:
    ts = "2026-11-01T10:00:00Z"
    path = claude_session_file(home, A, [
        claude_user(A, ts, "hello", cwd="/w"),
        claude_assistant(A, ts, msg_id="m1", request_id="r1", usage=claude_usage(3, 2))], project="-w")
    return path.rename(path.with_name(name))


@pytest.mark.parametrize(("name", "message"), [
    (".jsonl", "session id is empty; skipped"),
    ("agent-.jsonl", "session id is empty; skipped"),
])
def test_a_claude_transcript_named_with_no_usable_id_is_skipped(isolated_home: Path, name: str, message: str) -> None:
    path = _claude(isolated_home, name)
    _claude(isolated_home, f"{B}.jsonl")
    listed = cli_json("list", "--provider", "claude")
    assert [row["id"] for row in listed["sessions"]] == [f"claude:{B}"]
    assert [(w["path"], w["message"]) for w in listed["warnings"]] == [(str(path), message)]
    refused = invoke("show", "claude:")  # it opened the session of the empty id
    assert (refused.exit_code, refused.stderr.splitlines()[0]) == (
        1, "error: 'claude:' is a provider, not a session id")


def test_a_claude_subagent_named_with_no_id_is_skipped(isolated_home: Path) -> None:
    _claude(isolated_home, f"{B}.jsonl")
    ts = "2026-11-01T10:00:05Z"
    child = write_jsonl(isolated_home / ".claude" / "projects" / "-w" / B / "subagents" / "agent-.jsonl", [
        claude_assistant(B, ts, msg_id="m9", request_id="r9", usage=claude_usage(100, 50), sidechain=True)])
    listed = cli_json("list", "--provider", "claude")
    assert [(w["path"], w["message"]) for w in listed["warnings"]] == [(str(child), "session id is empty; skipped")]
    assert cli_json("tokens", "--provider", "claude")["total"]["total"] == 5


def test_an_id_with_a_control_character_is_kept_and_counted(isolated_home: Path) -> None:
    """Its tokens count and every table shows it cleaned (tests/test_terminal_escapes_pass34.py);
    ``show`` opens it by a prefix or by its transcript's path: skipped, its tokens were lost."""
    # Cursor: a flat transcript named with a newline.
    write_transcript(isolated_home, SLUG, "x\ny", [user("hi")], flat=True)
    # Gemini: a sessionId (from the header) holding a newline (and a prompt: a chat of its header
    # alone recorded nothing, and ``list`` leaves it out, pass 46).
    write_chat(isolated_home, "p", "session-2026-05-01T10-00-deadbeef.jsonl",
               [meta("g\nh"), gemini_user("u1", "2026-05-01T10:00:01.000Z", "hi")])
    # Codex: a rollout with no uuid in its name, whose meta id holds an escape.
    started = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
    write_rollout(isolated_home / ".codex" / "sessions" / "rollout-odd.jsonl", [codex_meta("c\x1bd", started)])
    # Claude: a transcript named with an escape, with a billed call.
    _claude(isolated_home, "a\x1bb.jsonl")
    listed = cli_json("list", "--all")
    ids = {row["id"] for row in listed["sessions"]}
    assert {"gemini:g\nh", "codex:c\x1bd", "claude:a\x1bb", "cursor:x\ny"} <= ids
    rows = {row["key"]: row["tokens"] for row in cli_json("tokens")["rows"]}
    assert rows["claude:a\x1bb"]["total"] == 5  # its call counted
