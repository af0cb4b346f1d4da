"""``--strict``'s error counts the warnings a run met: a file's "N more" is N of them, not one
entry (8 files of 10,050 bad lines said ``168 warnings (--strict)`` for 80,400).  Exit 1 still."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

BAD = '{"type": "assistant", "message": {"usage": {not json'


def _bad_lines(home: Path, session: str, bad: int) -> Path:
    path = claude_session_file(home, session, [
        claude_user(session, "2026-11-07T10:00:00.000Z", "work"),
        claude_assistant(session, "2026-11-07T10:00:01.000Z", msg_id=f"{session}-m1", request_id=f"{session}-r1",
                         usage=claude_usage(100, 10)),
    ], project=f"-home-{session}")
    path.write_bytes(path.read_bytes() + b"".join(b"%s %d\n" % (BAD.encode(), n) for n in range(bad)))
    return path


def _settled(*paths: Path) -> None:  # (not a file still being written: every line counts)
    old = time.time() - 3600
    for path in paths:
        os.utime(path, (old, old))


@pytest.mark.parametrize("command", [("tokens",), ("list", "--all"), ("otlp", "-o", "{tmp}/t.jsonl")])
def test_strict_counts_the_warnings_past_those_listed(isolated_home: Path, tmp_path: Path,
                                                       command: tuple[str, ...]) -> None:
    command = tuple(arg.format(tmp=tmp_path) for arg in command)  # (``otlp`` ends --strict its own way)
    _settled(_bad_lines(isolated_home, "c1", 50), _bad_lines(isolated_home, "c2", 25))
    result = invoke("--strict", *command)
    assert result.exit_code == 1
    # 20 listed of each file, then "30 more" and "5 more": 75 met (42 entries)
    assert "error: 75 warnings (--strict)\n" in result.stderr, result.stderr
    verbose = invoke("--strict", "--verbose", *command)
    assert "30 more warnings for this file were not listed" in verbose.stderr
    assert "error: 75 warnings (--strict)\n" in verbose.stderr


def test_strict_without_a_count_past_the_listed_says_the_count_alone(isolated_home: Path) -> None:
    _settled(_bad_lines(isolated_home, "c1", 3))
    result = invoke("--strict", "tokens")
    assert result.exit_code == 1
    assert "error: 3 warnings (--strict)\n" in result.stderr, result.stderr
