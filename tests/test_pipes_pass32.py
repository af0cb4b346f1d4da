"""What a script meets in a pipe: paths printed as recorded, a pipe closed early exits 0
whatever the output's size (an export to stdout cut so: 1), and the empty-result hint names
the newest recorded update."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()
SPACED = "/home/me/two  spaces"
OLD = "aaaaaaaa-1111-4111-8111-111111111111"
NEW = "bbbbbbbb-1111-4111-8111-111111111111"


def _sessions(home: Path) -> None:
    # A reply with usage: the table names a session that recorded none in a line under it,
    # without its path.
    claude_session_file(home, OLD, [claude_user(OLD, "2026-11-30T12:00:00Z", "old", cwd=SPACED),
                                    claude_assistant(OLD, "2026-11-30T12:00:01Z", msg_id="m-old", request_id="r-old",
                                                     usage=claude_usage(10, 1), cwd=SPACED)],
                        project="-home-me-two--spaces")
    claude_session_file(home, NEW, [claude_user(NEW, "2026-12-04T12:00:00Z", "new", cwd="/home/me/app")],
                        project="-home-me-app", mtime=1_796_385_600)  # 2026-12-04 12:00 UTC: that day in any zone


def test_a_path_keeps_its_runs_of_spaces_in_a_pipe(isolated_home: Path) -> None:
    _sessions(isolated_home)
    listed = runner.invoke(app, ["list"])
    assert listed.exit_code == 0 and SPACED in listed.stdout
    table = runner.invoke(app, ["tokens"])
    assert table.exit_code == 0 and SPACED in table.stdout
    # The path printed finds the session again.
    again = runner.invoke(app, ["list", "--cwd", SPACED])
    assert again.exit_code == 0 and OLD in again.stdout


def test_the_empty_result_hint_names_the_newest_update_not_the_newest_file(isolated_home: Path) -> None:
    _sessions(isolated_home)
    # The old session's file touched now (a copy, an editor): its mtime is the newest.
    old = next(isolated_home.rglob(f"{OLD}.jsonl"))
    os.utime(old, None)
    result = runner.invoke(app, ["list", "--since", "1s"])
    assert result.exit_code == 0 and result.stdout == ""
    assert "the newest was updated 2026-12-04" in result.stderr, result.stderr


def test_the_hint_s_reading_fails_no_strict_list_another_filter_emptied(isolated_home: Path) -> None:
    """``--since`` with ``--grep`` or ``--cwd``: the rows read to name the newest are not listed,
    and what they warn of is not the list's (a bad line in another project's transcript)."""
    import time

    now = time.time() - 600
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))
    path = claude_session_file(isolated_home, NEW, [claude_user(NEW, stamp, "new", cwd="/y")], project="-y")
    with path.open("ab") as handle:
        handle.write(b"{bad json\n")
    os.utime(path, (now, now))
    for args in (["--grep", "zzz"], ["--cwd", "/nowhere"]):
        for _ in range(2):  # cold, then warm
            result = runner.invoke(app, ["--strict", "list", "--since", "1d", *args])
            assert result.exit_code == 0, (args, result.stderr)
    # --since alone that left nothing: the newest is named, and no row it read fails the list.
    result = runner.invoke(app, ["--strict", "list", "--since", "1m"])
    assert result.exit_code == 0, result.stderr
    assert "the newest was updated" in result.stderr


def _closed_early(args: list[str], env: dict[str, str]) -> tuple[int, bytes]:
    """``agentscan ARGS | head -c 100``: the reader reads 100 bytes and closes; the exit
    code and what was said on stderr."""
    process = subprocess.Popen([sys.executable, "-c", "from agentscan.entry import main; main()", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(100)
    process.stdout.close()
    with process.stderr:
        said = process.stderr.read()
    return process.wait(timeout=120), said


def test_a_large_table_whose_reader_closes_early_exits_0_as_its_json_does(isolated_home: Path) -> None:
    # 700 sessions: the table is past a pipe's 64 KiB buffer, and written in one piece.
    for n in range(700):
        native_id = f"{n:08x}-1111-4111-8111-111111111111"
        claude_session_file(isolated_home, native_id, [claude_user(native_id, "2026-11-01T10:00:00Z", f"prompt {n} " * 8)])
    env = dict(os.environ)
    # A report its reader stopped reading is no failure (exit 1 is the contract's), and says nothing.
    assert _closed_early(["list", "--all"], env) == (0, b"")
    assert _closed_early(["list", "--all"], env) == (0, b"")  # the remembered page, printed again
    assert _closed_early(["list", "--all", "--json"], env) == (0, b"")
    code, said = _closed_early(["tokens"], env)
    # (What is in no row is named on stderr in a pipe: no word of the closed reader.)
    # (pass 58: led by why no table, as for sessions asked for by id)
    # (pass 60: that line alone; the "(+ 700 sessions that recorded no usage …)" line said it again)
    first, _, rest = said.partition(b"\n")
    assert code == 0 and first.startswith(b"no usage: none of the 700 Claude Code sessions recorded any")
    assert rest == b"", said
    # An export to stdout was not written whole: that fails, and says why.
    for fmt in ("csv", "jsonl"):
        code, said = _closed_early(["export", "-f", fmt, "-o", "-"], env)
        assert code == 1 and said == b"error: stdout was closed before the export was written whole (its reader stopped reading)\n", said


def test_write_out_raises_on_a_pipe_closed_in_the_middle_of_one_write() -> None:
    """CPython's buffered stdout gives up the rest of such a write and says nothing."""
    code = "from agentscan.cli.term import write_out; write_out('x' * 400_000)"
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(100)
    process.stdout.close()
    with process.stderr:
        said = process.stderr.read()
    assert process.wait(timeout=60) != 0
    assert b"BrokenPipeError" in said
