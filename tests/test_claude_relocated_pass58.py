"""Pass 58: a ``relocated`` record (``{"type": "relocated", "sessionId", "relocatedCwd"}``,
Claude Code 2.1.2xx; the schema catalog in ``fixtures/real/claude``, line 27) says the session
moved to another directory: Claude Code goes there when the session is resumed.  The last
one's ``relocatedCwd`` is the session's directory over its first record's ``cwd``, for ``list``,
``show``, ``--cwd`` and ``tokens``' table (``tablefacts``, read from the bytes) alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, only_row
from typer.testing import CliRunner

from agentscan.bounds import Bounds
from agentscan.cli import app
from agentscan.context import ScanContext
from agentscan.model import TableFacts
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude.provider import ClaudeProvider
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


def test_a_resumed_files_copied_relocation_is_not_its_own(isolated_home: Path) -> None:
    """A resumed session's transcript copies the earlier session's records, its ``relocated``
    one too: the row's pass skips the copy (``resumes.is_copy``), and so does the table's
    read of the bytes; a cached ``tokens --by cwd`` equals ``--no-cache``."""
    a, b = "aaaaaaaa-5858-4000-8000-00000000000a", "bbbbbbbb-5858-4000-8000-00000000000b"
    claude_session_file(isolated_home, b, [
        claude_user(a, "2026-12-01T10:00:00.000Z", "old prompt", uuid="u1", cwd="/w/a"),
        claude_assistant(a, "2026-12-01T10:00:01.000Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10),
                         uuid="a1", cwd="/w/a"),
        {"type": "relocated", "sessionId": a, "relocatedCwd": "/w/a-moved"},
        claude_user(b, "2026-12-02T10:00:00.000Z", "new prompt", uuid="u2", cwd="/w/b", parentUuid="a1"),
        claude_assistant(b, "2026-12-02T10:00:01.000Z", msg_id="m2", request_id="r2", usage=claude_usage(200, 20),
                         uuid="a2", cwd="/w/b"),
    ], project="-w-b")
    with Scanner(home=isolated_home, use_cache=True) as scanner:
        refs = list(scanner.provider("claude").discover(scanner.ctx))
        (facts,) = gathering.gather(scanner, refs).values()
    assert isinstance(facts, TableFacts) and facts.cwd == "/w/b"
    uncached = cli_json("tokens", "--by", "cwd", "--no-cache")["rows"]
    assert [row["key"] for row in uncached] == ["/w/b"]
    assert cli_json("tokens", "--by", "cwd")["rows"] == uncached


def test_show_says_where_a_moved_session_started(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted whole where it moved (as Claude Code and ccusage count it), a moved session's
    card says the directory it started in (``moved_from``), read forward or from its end."""
    _session(isolated_home, MOVED)
    shown = cli_json("show", S)["session"]
    assert (shown["cwd"], shown["moved_from"]) == (MOVED, OLD)
    card = CliRunner().invoke(app, ["show", S]).output.splitlines()
    assert card[card.index(f"  cwd      {MOVED}") + 1] == f"  moved    from {OLD}"
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)  # a huge transcript's read from its end
    provider = ClaudeProvider()
    ctx = ScanContext.create(home=isolated_home, env={})
    [ref] = provider.discover(ctx)
    assert provider.shows_from_row(ref, ctx)
    tail = provider.detail_with_row(ref, ctx, Bounds(), provider.row(ref, ctx))
    assert tail is not None and tail.extra["moved_from"] == OLD


def test_a_session_never_moved_says_no_move(isolated_home: Path) -> None:
    _session(isolated_home)
    assert "moved_from" not in cli_json("show", S)["session"]
    assert not any(line.startswith("  moved") for line in CliRunner().invoke(app, ["show", S]).output.splitlines())
