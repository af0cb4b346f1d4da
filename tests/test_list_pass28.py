"""``list`` as a user meets it: sessions that recorded nothing, and what an empty
``--since`` says of the newest session.  Each test fails without its fix."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

REAL = "5a5a5a5a-0000-4000-8000-00000000000a"
EMPTY = "5a5a5a5a-0000-4000-8000-00000000000b"
GARBAGE = "5a5a5a5a-0000-4000-8000-00000000000c"


def real_session(home: Path, session: str = REAL, *, ts: str = "2026-11-20T10:00:00.000Z",
                 mtime: float | None = None) -> Path:
    return claude_session_file(home, session, [
        claude_user(session, ts, "Fix the flaky test"),
        claude_assistant(session, ts, msg_id=f"msg-{session}", request_id=f"req-{session}",
                         usage=claude_usage(input=10, output=5)),
    ], mtime=mtime)


def nothing_recorded(home: Path) -> tuple[Path, Path]:
    """An empty transcript and one of nothing but bad lines, both written just now."""
    folder = home / ".claude" / "projects" / "-home-dev-project"
    folder.mkdir(parents=True, exist_ok=True)
    empty = folder / f"{EMPTY}.jsonl"
    empty.write_bytes(b"")
    garbage = folder / f"{GARBAGE}.jsonl"
    garbage.write_bytes(b"not json at all\n{\"truncat")
    return empty, garbage


def test_list_leaves_out_a_session_that_recorded_nothing_and_warns(isolated_home: Path) -> None:
    real_session(isolated_home, mtime=time.time() - 3600)
    empty, garbage = nothing_recorded(isolated_home)
    result = invoke("list")
    assert result.exit_code == 0, result.output
    assert REAL in result.stdout
    assert EMPTY not in result.stdout and GARBAGE not in result.stdout
    # Not lost: the bad file is named, with what was wrong with it; the empty one is
    # counted in one note (pass 44), and named with --verbose.
    assert "warning: 1 empty file" in result.stderr and str(empty) not in result.stderr
    assert str(garbage) in result.stderr
    verbose = invoke("list", "--verbose")
    assert f"{empty}: empty file" in verbose.stderr and str(garbage) in verbose.stderr

    listed = orjson.loads(invoke("list", "--json").stdout)
    assert [row["native_id"] for row in listed["sessions"]] == [REAL]
    assert {warning["path"] for warning in listed["warnings"]} >= {str(empty), str(garbage)}


def test_a_home_of_nothing_but_empty_transcripts_says_so(isolated_home: Path) -> None:
    nothing_recorded(isolated_home)
    result = invoke("list")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "no session recorded anything: 2 session files hold no conversation" in result.stderr
    assert "no sessions found" not in result.stderr


def test_the_count_of_sessions_leaves_out_those_that_recorded_nothing(isolated_home: Path) -> None:
    """"N of M sessions" and whether there are more count only sessions ``list`` could show."""
    from agentscan.scan.scanner import Scanner

    real_session(isolated_home, mtime=time.time() - 3600)
    nothing_recorded(isolated_home)
    with Scanner() as scanner:
        page = scanner.list_page(limit=1)
    assert [row.native_id for row in page.rows] == [REAL]
    assert (page.discovered, page.blank, page.more) == (1, 2, False)


def test_show_says_why_a_session_is_all_dashes(isolated_home: Path) -> None:
    nothing_recorded(isolated_home)
    result = invoke("show", f"claude:{EMPTY}")
    assert result.exit_code == 0, result.output
    assert "nothing recorded: the transcript holds no conversation" in result.stdout
    real_session(isolated_home)
    assert "nothing recorded" not in invoke("show", f"claude:{REAL}").stdout


def test_an_empty_since_names_the_newest_session_of_a_copied_home(isolated_home: Path) -> None:
    """A copied home gives every file the copy's time: the newest session is not the one
    whose file happens to sort first, so every session of that time is read."""
    copied_at = time.time() - 30 * 86400
    sessions = [f"5a5a5a5a-0000-4000-8000-0000000001{n:02d}" for n in range(12)]
    for n, session in enumerate(sessions):
        day = 1 + (n * 7) % 12  # the newest (day 12) is written neither first nor last
        real_session(isolated_home, session, ts=f"2026-10-{day:02d}T09:00:00.000Z", mtime=copied_at)
    result = invoke("list", "--since", "1d")
    assert result.exit_code == 0
    assert "the newest was updated 2026-10-12" in result.stderr, result.stderr


def test_an_empty_since_says_nothing_of_the_newest_when_too_many_share_a_time(
        isolated_home: Path, monkeypatch) -> None:  # noqa: ANN001 - pytest's fixture
    from agentscan.scan import listing

    monkeypatch.setattr(listing, "NEWEST_READS", 3)
    copied_at = time.time() - 30 * 86400
    for n in range(5):
        real_session(isolated_home, f"5a5a5a5a-0000-4000-8000-0000000002{n:02d}",
                     ts=f"2026-10-0{n + 1}T09:00:00.000Z", mtime=copied_at)
    result = invoke("list", "--since", "1d")
    assert "no sessions updated since" in result.stderr
    assert "the newest was updated" not in result.stderr


def test_an_empty_since_on_a_live_home_reads_only_the_newest_file(isolated_home: Path) -> None:
    now = time.time()
    real_session(isolated_home, REAL, ts="2026-10-20T09:00:00.000Z", mtime=now - 40 * 86400)
    older = real_session(isolated_home, EMPTY, ts="2026-09-01T09:00:00.000Z", mtime=now - 90 * 86400)
    os.utime(older, (now - 90 * 86400, now - 90 * 86400))
    result = invoke("list", "--since", "1d")
    assert "the newest was updated 2026-10-20" in result.stderr, result.stderr


@pytest.mark.parametrize(("width", "headers"), [
    (56, ["ID", "UPDATED", "TOKENS", "TITLE"]),
    (80, ["ID", "UPDATED", "TOKENS", "COST", "TITLE"]),
    (100, ["ID", "UPDATED", "TOKENS", "COST", "CWD", "TITLE"]),
])
def test_a_narrow_terminal_keeps_the_cost_and_the_title_before_the_model(tty, width: int, headers: list[str]) -> None:
    """At 80 columns, the width most terminals open at, the cost stays beside the tokens
    (MODEL goes first: ``show`` has it, then CWD: the title keeps 25 characters), and at 56
    a title a dozen characters wide still tells sessions apart."""
    tty(width, color=False)
    result = invoke("--demo", "list", "-n", "3")
    lines = result.stdout.splitlines()
    assert lines[0].split() == headers, lines
    assert all(len(line) <= width for line in lines)
    assert all(line.split()[-1] not in ("-", "") for line in lines[1:])  # a title, cut or whole


def test_a_large_session_that_yielded_nothing_keeps_its_row(isolated_home: Path) -> None:
    """64 KiB of lines none of which could be read is no empty transcript: it may be real
    work agentscan failed to read, so it stays, a row of dashes beside its warning."""
    folder = isolated_home / ".claude" / "projects" / "-home-dev-project"
    folder.mkdir(parents=True)
    (folder / f"{GARBAGE}.jsonl").write_bytes(b"not json\n" * 8000)
    listed = orjson.loads(invoke("list", "--json").stdout)
    assert [row["native_id"] for row in listed["sessions"]] == [GARBAGE]


def test_an_empty_since_on_a_live_home_reads_one_row(isolated_home: Path, monkeypatch) -> None:  # noqa: ANN001
    """The newest file's row settles how old the newest session is: not 64 read ahead."""
    from agentscan.scan.scanner import Scanner

    from datetime import datetime, timezone

    for n in range(6):  # a live home: each file last written when its last record was
        day = datetime(2026, 10, n + 1, 9, tzinfo=timezone.utc)
        real_session(isolated_home, f"5a5a5a5a-0000-4000-8000-0000000003{n:02d}",
                     ts=day.strftime("%Y-%m-%dT%H:%M:%S.000Z"), mtime=day.timestamp())
    read: list[str] = []
    original = Scanner.row

    def counting(self, ref):  # noqa: ANN001, ANN202
        read.append(ref.native_id)
        return original(self, ref)

    monkeypatch.setattr(Scanner, "row", counting)
    monkeypatch.setattr(Scanner, "prefetch_rows", lambda self, refs, every=False: read.extend(
        ref.native_id for ref in refs) if every and len(refs) > 1 else None)
    result = invoke("--no-cache", "list", "--since", "1d")
    assert "the newest was updated 2026-10-06" in result.stderr, result.stderr
    assert read == ["5a5a5a5a-0000-4000-8000-000000000305"], read


def test_a_file_of_nothing_but_other_sessions_summaries_is_no_session(isolated_home: Path) -> None:
    # Claude Code can leave a file holding only summaries of other sessions (claude-code
    # issue 2597; their leafUuid is in no record of the file).  Its newest mtime put it
    # at the top of `list`, titled after work it never did.
    real_session(isolated_home, mtime=time.time() - 3600)
    stub = "5a5a5a5a-0000-4000-8000-00000000000d"
    claude_session_file(isolated_home, stub, [
        {"type": "summary", "summary": "Refactor the billing module", "leafUuid": "not-in-this-file-1"},
        {"type": "summary", "summary": "Fix the login redirect", "leafUuid": "not-in-this-file-2"},
    ])
    listed = orjson.loads(invoke("list", "--json").stdout)
    assert [row["native_id"] for row in listed["sessions"]] == [REAL]
    # Beside records of its own, such a summary still names a session nothing else names.
    named = "5a5a5a5a-0000-4000-8000-00000000000e"
    claude_session_file(isolated_home, named, [
        {"type": "summary", "summary": "Refactor the billing module", "leafUuid": "not-in-this-file-1"},
        {"type": "user", "sessionId": named, "uuid": "u1", "timestamp": "2026-11-21T10:00:00.000Z", "cwd": "/w",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}},
        # A reply with usage: tokens' table gives a row (and its title) only to a session
        # that recorded some (pass 40: the others are named under it).
        claude_assistant(named, "2026-11-21T10:00:01.000Z", msg_id="m-named", request_id="r-named",
                         usage=claude_usage(10, 1), cwd="/w"),
    ])
    rows = {row["native_id"]: row["title"] for row in orjson.loads(invoke("list", "--json").stdout)["sessions"]}
    assert rows[named] == "Refactor the billing module" and stub not in rows
    # tokens' table finds titles its own way (``tablefacts``), by the same rule.
    table = invoke("tokens").stdout
    assert "Refactor the billing module" in table and "Fix the login redirect" not in table
