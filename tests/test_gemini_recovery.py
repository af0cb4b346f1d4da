"""Gemini: the cwd from paths inside the chats (verified by hash, never
guessed), re-resolved when cached as unknown, the same whatever --provider
filter; function responses are not prompts (issue 17)."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan.scanner import Scanner
from gemini_builders import (
    call,
    gemini,
    lay_out_real_gemini,
    meta,
    sha256_hex,
    tokens,
    user,
    write_chat,
    write_claude_transcript,
    write_legacy,
)

S1 = "11111111-aaaa-4bbb-8ccc-000000000001"
CHAT = "session-2026-05-01T10-00-11111111.jsonl"
CWD = "/home/dev/src/pantry"
HASH = sha256_hex(CWD)


def _rows(home: Path, **kwargs) -> dict[str, object]:
    return {row.native_id: row for row in Scanner(home=home, **kwargs).list_sessions()}


def test_real_chats_name_their_project_root(isolated_home: Path) -> None:
    # All three real samples sit in hash-named dirs that nothing else names.
    # 0ab84937: write_file's resultDisplay.filePath /home/wei/repo/discordbot/GEMINI.md
    #   (line 14); sha256("/home/wei/repo/discordbot") = its projectHash 9da8b3df….
    # 8a20078e: write_file's resultDisplay.filePath /home/wei/repo/VibeCodingTracker/README.md
    #   (message d4581b9c); sha256 of the parent = its projectHash ab14fe39….
    # eefc44a3 names no path, but shares projectHash ab14fe39… (and so the
    #   project dir) with 8a20078e, which does.
    lay_out_real_gemini(isolated_home)
    cwds = {native_id[:8]: row.cwd for native_id, row in _rows(isolated_home).items()}
    assert cwds == {
        "0ab84937": "/home/wei/repo/discordbot",
        "8a20078e": "/home/wei/repo/VibeCodingTracker",
        "eefc44a3": "/home/wei/repo/VibeCodingTracker",
    }


def _chat_naming(path: str, project_hash: str = HASH) -> list[dict]:
    return [
        meta(S1, project_hash=project_hash),
        user("u1", "2026-05-01T10:00:01.000Z", "read the config"),
        gemini("g1", "2026-05-01T10:00:05.000Z", "", usage=tokens(100, 10),
               calls=[call("c1", "read_file", {"absolute_path": path, "limit": 20})]),
    ]


def test_a_parent_of_a_tool_argument_matches_the_hash(isolated_home: Path) -> None:
    write_chat(isolated_home, HASH, CHAT, _chat_naming(f"{CWD}/config/app.toml"))
    (row,) = _rows(isolated_home).values()
    assert row.cwd == CWD


def test_a_path_whose_hash_does_not_match_is_never_taken(isolated_home: Path) -> None:
    # The chat names /home/dev/src/other/app.toml; none of its parents hashes to HASH.
    write_chat(isolated_home, HASH, CHAT, _chat_naming("/home/dev/src/other/app.toml"))
    (row,) = _rows(isolated_home).values()
    assert row.cwd is None


def test_a_slug_dir_without_marker_uses_the_chat_project_hash(isolated_home: Path) -> None:
    write_chat(isolated_home, "pantry", CHAT, _chat_naming(f"{CWD}/README.md"))
    (row,) = _rows(isolated_home).values()
    assert row.cwd == CWD


def test_cached_unknown_cwd_is_resolved_when_another_provider_reveals_it(isolated_home: Path) -> None:
    write_chat(isolated_home, HASH, CHAT, _chat_naming("relative/path.py"))
    with Scanner(home=isolated_home, use_cache=True) as first:
        (row,) = first.list_sessions()
        assert row.cwd is None and first.parses == 1
    write_claude_transcript(isolated_home, CWD, "cccccccc-1111-4222-8333-444444444444")
    with Scanner(home=isolated_home, use_cache=True) as second:
        rows = {r.provider: r for r in second.list_sessions()}
    assert rows["gemini"].cwd == CWD


def test_cwd_is_the_same_whatever_the_provider_filter(isolated_home: Path) -> None:
    write_chat(isolated_home, HASH, CHAT, _chat_naming("relative/path.py"))
    write_claude_transcript(isolated_home, CWD, "cccccccc-1111-4222-8333-444444444444")
    runner = CliRunner()
    every = orjson.loads(runner.invoke(app, ["--no-cache", "list", "--json"]).stdout)["sessions"]
    only = orjson.loads(runner.invoke(app, ["--no-cache", "list", "--json", "-p", "gemini"]).stdout)["sessions"]
    cached = orjson.loads(runner.invoke(app, ["list", "--json", "-p", "gemini"]).stdout)["sessions"]
    gemini_row = next(s for s in every if s["provider"] == "gemini")
    assert gemini_row["cwd"] == CWD
    assert [s["cwd"] for s in only] == [CWD] and [s["cwd"] for s in cached] == [CWD]
    shown = orjson.loads(runner.invoke(app, ["show", "--json", f"gemini:{S1}"]).stdout)["session"]
    assert shown["cwd"] == CWD


def test_legacy_function_responses_are_not_prompts(isolated_home: Path) -> None:
    # Hand-made from the documented format (no public legacy chat with a
    # function response was found): Gemini CLI's partToString records a tool
    # result as a user message "[Function Response: <name>]…".  One typed
    # prompt, one tool result: prompts = 1; the result names
    # "--- /home/dev/src/pantry/notes.md ---", whose parent hashes to HASH.
    document = {
        "sessionId": S1, "projectHash": HASH, "startTime": "2026-05-01T10:00:00.000Z",
        "lastUpdated": "2026-05-01T10:00:09.000Z",
        "messages": [
            {"id": "u1", "timestamp": "2026-05-01T10:00:01.000Z", "type": "user", "content": "summarize my notes"},
            {"id": "g1", "timestamp": "2026-05-01T10:00:03.000Z", "type": "gemini", "content": "",
             "tokens": tokens(50, 5), "model": "gemini-2.5-pro",
             "toolCalls": [{"id": "c1", "name": "read_many_files", "args": {"paths": ["notes.md"]}, "status": "success"}]},
            {"id": "u2", "timestamp": "2026-05-01T10:00:04.000Z", "type": "user",
             "content": "[Function Response: read_many_files]--- /home/dev/src/pantry/notes.md ---\n\nbuy milk\n"},
            {"id": "g2", "timestamp": "2026-05-01T10:00:08.000Z", "type": "gemini", "content": "You need milk.",
             "tokens": tokens(80, 6), "model": "gemini-2.5-pro"},
        ],
    }
    write_legacy(isolated_home, HASH, "session-2026-05-01T10-00-11111111.json", document)
    scanner = Scanner(home=isolated_home)
    detail = scanner.show(S1)
    assert detail.row.counts.prompts == 1
    assert [p.text for p in detail.prompts] == ["summarize my notes"]
    assert detail.row.title == "summarize my notes"
    assert detail.row.cwd == CWD
