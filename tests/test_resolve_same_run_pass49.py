"""A run id that two sessions both have (Claude's ``aside_question``) is ambiguous for good:
"give more characters of the id" could not help, given the whole id.  The hint says so, and
what does pick one: the run's file (``show`` of it opens the run) or its session's id."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, invoke

OLDER = "b2000000-0000-4000-8000-00000000000a"
NEWER = "b2000000-0000-4000-8000-00000000000b"


def _home(home: Path, runs: tuple[str, str]) -> dict[str, Path]:
    files = {}
    for number, (native, run) in enumerate(zip((OLDER, NEWER), runs)):
        ts = f"2026-12-02T1{number}:00:00.000Z"
        claude_session_file(home, native, [claude_user(native, ts, f"task {number}")], mtime=1_800_000_000 + number)
        files[native] = claude_subagent_file(home, native, run, [claude_assistant(
            native, ts, msg_id=f"m{number}", request_id=f"r{number}", usage=claude_usage(5, 1), sidechain=True)])
        os.utime(files[native], (1_800_000_000 + number,) * 2)
    return files


@pytest.mark.parametrize("query", ["aside_question", "aside_q"])
def test_the_same_run_in_two_sessions_is_picked_by_its_file(isolated_home: Path, query: str) -> None:
    files = _home(isolated_home, ("aside_question", "aside_question"))
    result = invoke("show", query)
    assert result.exit_code == 1
    hint = result.stderr.splitlines()[-1]
    assert "more characters of the id" not in hint
    assert hint == (f"hint: each of these sessions has a run aside_question, which no more characters tell apart: "
                    f"give the file of the one you mean (`{files[NEWER]}`), or its session's id")
    opened = invoke("show", str(files[NEWER]), "--json")
    assert opened.exit_code == 0 and f'"claude:{NEWER}"' in opened.stdout and '"aside_question"' in opened.stdout


def test_runs_of_other_ids_still_ask_for_more_characters(isolated_home: Path) -> None:
    _home(isolated_home, ("aside_question", "aside_quiet"))
    result = invoke("show", "aside_qu")
    assert result.exit_code == 1 and result.stderr.splitlines()[-1] == (
        "hint: give more characters of the id, or one of the ids above in full")
