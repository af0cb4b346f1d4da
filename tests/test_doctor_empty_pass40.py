"""``doctor`` on a home where no agent's files are found ends by saying so, and what to do;
with any session it does not."""

from __future__ import annotations

from pathlib import Path

from builders import claude_session_file, claude_user, invoke

NONE_FOUND = "no sessions found for any agent here"


def test_doctor_on_an_empty_home_says_what_its_rows_add_up_to(isolated_home: Path) -> None:
    result = invoke("doctor")
    assert result.exit_code == 0
    last = result.stdout.rstrip("\n").split("\n\n")[-1]
    assert last.startswith(NONE_FOUND) and "--home DIR" in last


def test_doctor_with_a_session_does_not(isolated_home: Path) -> None:
    session = "d0c70000-0000-4000-8000-000000000001"
    claude_session_file(isolated_home, session, [claude_user(session, "2026-11-02T10:00:00Z", "hi")])
    result = invoke("doctor")
    assert result.exit_code == 0 and NONE_FOUND not in result.stdout
