"""Pass 58: a ``relocated`` record (``{"type": "relocated", "sessionId", "relocatedCwd"}``,
Claude Code 2.1.2xx; the schema catalog in ``fixtures/real/claude``, line 27) says the session
moved to another directory: Claude Code goes there when the session is resumed.  The last
one's ``relocatedCwd`` is the session's directory over its first record's ``cwd``, for ``list``,
``show``, ``--cwd`` and ``tokens``' table (``tablefacts``, read from the bytes) alike."""

from __future__ import annotations

from pathlib import Path

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, only_row

from agentscan.model import TableFacts
from agentscan.scan import tablefacts as gathering
from agentscan.scan.scanner import Scanner

S = "5e7ac7ed-5858-4000-8000-00000000000c"
OLD, MOVED, LATER = "/w/old", "/w/repo/worktrees/example", "/w/moved-again"


def _session(home: Path, *relocations: str) -> None:
    claude_session_file(home, S, [
        claude_user(S, "2026-11-20T10:00:00.000Z", "work here", uuid="u1", cwd=OLD),
        claude_assistant(S, "2026-11-20T10:00:05.000Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10),
                         uuid="a1", cwd=OLD),
        *({"type": "relocated", "sessionId": S, "relocatedCwd": where} for where in relocations),
        {"type": "relocated", "sessionId": S, "relocatedCwd": ""},  # (says nothing: not taken)
    ], project="-w-old")


def test_the_last_relocation_is_the_sessions_directory(isolated_home: Path) -> None:
    _session(isolated_home, MOVED, LATER)
    assert only_row()["cwd"] == LATER
    assert cli_json("show", S)["session"]["cwd"] == LATER
    assert [row["native_id"] for row in cli_json("list", "--all", "--cwd", LATER)["sessions"]] == [S]
    assert cli_json("list", "--all", "--cwd", OLD)["sessions"] == []


def test_tokens_table_finds_the_relocation_in_the_bytes(isolated_home: Path) -> None:
    _session(isolated_home, MOVED)
    with Scanner(home=isolated_home, use_cache=True) as scanner:
        refs = list(scanner.provider("claude").discover(scanner.ctx))
        (facts,) = gathering.gather(scanner, refs).values()
        (row,) = scanner.list_sessions()
    assert isinstance(facts, TableFacts)  # found in the bytes, not the row's pass
    assert facts.cwd == row.cwd == MOVED
    assert cli_json("tokens", "--by", "cwd")["rows"][0]["key"] == MOVED


def test_a_session_never_relocated_keeps_its_first_directory(isolated_home: Path) -> None:
    _session(isolated_home)
    assert only_row()["cwd"] == OLD
