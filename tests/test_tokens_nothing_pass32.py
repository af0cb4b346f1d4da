"""``tokens``' table names the sessions that recorded nothing under it, as ``list`` leaves them out.

An empty transcript, one of bad lines, or one of another session's summaries
(the stubs Claude Code leaves) has no usage, no project and no title; its
date is its file's, so its row of dashes topped the table.  The table names
such sessions in one line under it (an empty transcript's warning names it
alone); ``--json`` keeps their ``null`` rows; a patched table says the same
as a fresh one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_session_file, claude_user
from patch_builders import BASE, IDS, append, null_session, session, turn

runner = CliRunner()


def tokens(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, ["tokens", *args])
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def said(made: tuple[str, str]) -> str:
    """A table's rows and the lines naming the sessions in no row: after them on a terminal,
    on stderr in a pipe (pass 42)."""
    return made[0] + made[1]


def stub(home: Path, native_id: str, lines: bytes, mtime: float) -> Path:
    """A Claude transcript of raw ``lines``: no record of the session's own."""
    path = claude_session_file(home, native_id, [], mtime=mtime)
    path.write_bytes(lines)
    import os

    os.utime(path, (mtime, mtime))
    return path


def stubs(home: Path, *, empty: bool = True) -> None:
    """An empty transcript (``empty``: its warning keeps no basis for a patch), one of bad
    lines and one of another session's summary, all newer than the real sessions."""
    if empty:
        stub(home, IDS[3], b"", BASE + 7200)
    stub(home, IDS[4], b"garbage\n", BASE + 7300)
    stub(home, IDS[5], orjson.dumps({"type": "summary", "summary": "Another session", "leafUuid": "u1"}) + b"\n",
         BASE + 7400)


def test_sessions_that_recorded_nothing_are_named_under_the_table_not_as_rows(isolated_home: Path) -> None:
    session(isolated_home, IDS[0], 1, 100)
    null_session(isolated_home, IDS[1], BASE + 180)  # a prompt and no reply: a real session, "not recorded"
    stubs(isolated_home)
    text = said(tokens())
    lines = text.splitlines()
    shown = [line.split()[0] for line in lines[1:] if line.startswith("claude:")]
    assert shown == [f"claude:{IDS[0]}"]  # the stubs are in no row
    # (pass 40: nor is a session that recorded no usage; it is named in a line of its own)
    assert f"(+ 1 session that recorded no usage, not counted: claude:{IDS[1]})" in lines
    named = next(line for line in lines if line.startswith("(+ 2 sessions that recorded nothing: "))
    assert all(f"claude:{native_id}" in named for native_id in IDS[4:6])
    # An empty transcript is named once, by its warning, as ``list`` leaves it out (pass 49:
    # both said it on every run).
    assert f"claude:{IDS[3]}" not in named and "warning: 1 empty file (" in text
    assert "Another session" not in text
    # --json keeps every session's row, null for these.
    document = orjson.loads(tokens("--json")[0])
    rows = {row["key"]: row["tokens"] for row in document["rows"]}
    assert all(rows[f"claude:{native_id}"] is None for native_id in IDS[3:6])
    assert rows[f"claude:{IDS[0]}"]["total"] > 0


def test_a_table_of_nothing_but_such_sessions_names_them(isolated_home: Path) -> None:
    stubs(isolated_home)
    out, err = tokens()
    lines = err.splitlines()
    # No header over a TOTAL of "not recorded": the line naming them is all (pass 40), on
    # stderr in a pipe (pass 42), after why there is no table (pass 58).
    assert out == "" and lines[0].startswith("no usage: none of the 3 Claude Code sessions recorded any")
    assert lines[1].startswith("(+ 2 sessions that recorded nothing: ")
    assert not any(line.startswith(("(+", "ID ", "TOTAL")) for line in lines[2:])  # (then the warnings)


@pytest.mark.parametrize("width", [None, 150])
def test_a_patched_table_names_them_as_a_fresh_one(
        isolated_home: Path, table_ways: list[str], table_splices: list[bool], tty: Callable[..., None],
        width: int | None) -> None:
    if width is not None:
        tty(width)
    paths = [session(isolated_home, native_id, index + 1, 100 * (index + 1)) for index, native_id in enumerate(IDS[:3])]
    stubs(isolated_home, empty=False)
    tokens()
    append(paths[1], turn(IDS[1], 30, 100), BASE + 9000)  # as wide as before: printed from the kept text
    made = tokens()
    assert table_ways[-1] == "patched" and table_splices[-1] is True
    assert made == tokens("--no-cache")
    assert "(+ 2 sessions that recorded nothing" in said(made)
    append(paths[2], turn(IDS[2], 31, 123_456_789), BASE + 9100)  # wider: laid out again
    made = tokens()
    assert table_ways[-1] == "patched" and table_splices[-1] is False
    assert made == tokens("--no-cache")
    assert "(+ 2 sessions that recorded nothing" in said(made)


def test_a_stub_that_starts_recording_gets_its_row_in_a_patched_table(
        isolated_home: Path, table_ways: list[str]) -> None:
    session(isolated_home, IDS[0], 1, 100)
    stubs(isolated_home, empty=False)
    tokens()
    garbage = isolated_home / ".claude" / "projects"
    path = next(garbage.rglob(f"{IDS[4]}.jsonl"))
    append(path, [claude_user(IDS[4], "2026-11-01T12:00:00Z", "now a real prompt"), *turn(IDS[4], 40, 77)],
           BASE + 9500)
    made = tokens()
    assert table_ways[-1] == "patched"
    assert made == tokens("--no-cache")
    assert "(+ 1 session that recorded nothing" in said(made)
    assert any(line.startswith(f"claude:{IDS[4]}") for line in made[0].splitlines())


def _hash_named_meta_only_chat(home: Path) -> None:
    """A Gemini chat of only its meta line, with no times, in the hash folder of ``/work/proj``:
    no usage, no title, no start (``list`` leaves it out); another provider's session that ran
    there no longer gives it a project (pass 46: a chat of its header alone recorded nothing)."""
    from gemini_builders import meta, sha256_hex, write_chat

    project = sha256_hex("/work/proj")
    record = meta("11111111-2222-4333-8444-555555555555", project_hash=project)
    del record["startTime"], record["lastUpdated"]
    write_chat(home, project, "session-2026-05-01T10-00-11111111.jsonl", [record], mtime=BASE + 500)


def test_a_row_whose_project_another_provider_reveals_is_folded_as_fresh(isolated_home: Path) -> None:
    """Whether a session recorded nothing depended on its project, which a Gemini row could
    get with none of its files changed.  Since pass 46 a chat of its header alone recorded
    nothing whatever its project (a start left at once: ``gemini.row.recorded_nothing``),
    so another provider revealing the project folds it all the same, patched or whole."""
    import os

    from gemini_builders import write_claude_transcript

    session(isolated_home, IDS[0], 1, 100)
    _hash_named_meta_only_chat(isolated_home)
    assert "(+ 1 session that recorded nothing" in said(tokens())
    claude = write_claude_transcript(isolated_home, "/work/proj", IDS[2])  # reveals /work/proj
    os.utime(claude, (BASE + 100, BASE + 100))
    made = tokens()
    assert made == tokens("--no-cache")
    assert "/work/proj" in made[0] and "(+ 1 session that recorded nothing" in said(made)


def _tool_calls_only_cursor_session(home: Path) -> str:
    """A Cursor transcript of one reply of two tool calls: no usage, no prompt (no title), and
    a slug that names no folder (no project), yet ``list`` and ``show`` tell its calls."""
    from cursor_builders import assistant, tool, write_transcript

    composer = "eeeeeeee-1111-4222-8333-444444444444"
    write_transcript(home, "unknown-slug", composer,
                     [assistant(None, tool("Read", path="a.py"), tool("Grep", pattern="x"))], mtime=BASE + 8000)
    return f"cursor:{composer}"


@pytest.mark.parametrize("width", [None, 150])
def test_a_session_list_shows_is_named_apart_from_stubs_though_it_has_no_project_or_title(
        isolated_home: Path, table_ways: list[str], tty: Callable[..., None], width: int | None) -> None:
    if width is not None:
        tty(width)
    path = session(isolated_home, IDS[0], 1, 100)
    key = _tool_calls_only_cursor_session(isolated_home)
    listed = orjson.loads(runner.invoke(app, ["list", "--json"]).stdout)
    assert key in [row["id"] for row in listed["sessions"]]
    made = tokens()
    assert "recorded nothing" not in said(made)
    # Named among the sessions that recorded no usage (pass 40: no row of "not recorded").
    named = next(line for line in said(made).splitlines() if line.startswith("(+ 1 session that recorded no usage"))
    assert key[:10] in named
    append(path, turn(IDS[0], 30, 100), BASE + 9000)  # a patched table says the same
    again = tokens()
    assert table_ways[-1] == "patched"
    assert again == tokens("--no-cache")
    assert "recorded nothing" not in said(again) and named in said(again).splitlines()


def test_a_claude_session_of_queue_operations_is_named_apart_from_stubs_as_list_shows_it(
        isolated_home: Path, table_ways: list[str]) -> None:
    """Claude Code writes files of ``queue-operation`` records alone: no usage, project or
    title, yet a start that ``list`` shows.  The table's facts (read from the file's bytes)
    cannot tell it from a stub; its row does."""
    session(isolated_home, IDS[0], 1, 100)
    queued = orjson.dumps({"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-11-01T10:00:00.000Z",
                           "sessionId": IDS[3], "content": "later"}) + b"\n"
    stub(isolated_home, IDS[3], queued, BASE + 7000)
    stubs(isolated_home, empty=False)
    listed = [row["id"] for row in orjson.loads(runner.invoke(app, ["list", "--json"]).stdout)["sessions"]]
    assert f"claude:{IDS[3]}" in listed and f"claude:{IDS[4]}" not in listed
    for made in (tokens(), tokens(), tokens("--no-cache")):
        lines = said(made).splitlines()
        # Among the sessions that recorded no usage (pass 40: no row of "not recorded"), not the stubs.
        assert f"(+ 1 session that recorded no usage, not counted: claude:{IDS[3]})" in lines
        named = next(line for line in lines if line.startswith("(+ 2 sessions that recorded nothing: "))
        assert f"claude:{IDS[3]}" not in named


@pytest.mark.parametrize("width", [None, 150])
def test_empty_transcripts_are_said_once_by_their_warning(isolated_home: Path, tty: Callable[..., None],
                                                          width: int | None) -> None:
    if width is not None:
        tty(width)
    paths = [session(isolated_home, native_id, index + 1, 100 * (index + 1)) for index, native_id in enumerate(IDS[:2])]
    for native_id in IDS[3:6]:
        stub(isolated_home, native_id, b"", BASE + 7200)
    for made in (tokens(), tokens()):  # (cold, then from the kept answer)
        text = said(made)
        assert "recorded nothing" not in text and "warning: 3 empty files (" in text
    append(paths[1], turn(IDS[1], 30, 100), BASE + 9000)
    made = tokens()
    assert made == tokens("--no-cache")
    assert "recorded nothing" not in said(made) and "warning: 3 empty files (" in said(made)
    # Grouped, or in a window, such a session was one "that recorded no usage, not counted".
    bad = "99999999-1111-4222-8333-444444444444"
    stub(isolated_home, bad, b"garbage\n", BASE + 7300)
    for args in (("--by", "day"), ("--since", "2025-01-01")):
        text = said(tokens(*args))
        assert f"(+ 1 session that recorded no usage, not counted: claude:{bad[:8]}" in text, args
        assert "warning: 3 empty files (" in text and not any(f"claude:{native_id[:8]}" in text for native_id in IDS[3:6])
