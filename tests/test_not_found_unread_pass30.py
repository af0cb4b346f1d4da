"""``show ID`` of a session in a folder agentscan could not list says so under its error:
"no session matches" alone sends the user looking for a typo."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, deny_access, invoke

#: the last line of every "no session matches": what to do next
HINT = "hint: `agentscan list --grep TEXT` finds it by title, cwd, model or path (`--all` lists every id)"

HIDDEN = "7d1e5c3b-2a4f-4b6c-8d9e-0f1a2b3c4d5e"
SEEN = "0a9b8c7d-6e5f-4a3b-9c1d-2e3f4a5b6c7d"


def _session(home: Path, native: str, project: str) -> Path:
    ts = "2026-11-01T10:00:00Z"
    return claude_session_file(home, native, [
        claude_user(native, ts, "hello", cwd="/w"),
        claude_assistant(native, ts, msg_id=f"m-{native}", request_id=f"r-{native}", usage=claude_usage(3, 2)),
    ], project=project)


@pytest.fixture
def denied(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder listing it raises EACCES (tests run as root, where chmod 000 denies nothing)."""
    _session(isolated_home, SEEN, "-w")
    folder = _session(isolated_home, HIDDEN, "-denied").parent
    deny_access(monkeypatch, folder)
    return folder


@pytest.mark.parametrize("command", ["show", "tokens"])
def test_not_found_names_the_folder_it_could_not_list(denied: Path, command: str) -> None:
    result = invoke(command, HIDDEN[:8])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0] == f"error: no session matches '{HIDDEN[:8]}'"
    assert lines[1:] == ["it may be in a folder agentscan could not list (1):",
                         f"  {denied}: cannot list directory: Permission denied", HINT]


def test_a_plain_typo_says_nothing_more(isolated_home: Path) -> None:
    _session(isolated_home, SEEN, "-w")
    result = invoke("show", "ffffffff")
    assert result.exit_code == 1 and result.stderr == f"error: no session matches 'ffffffff'\n{HINT}\n"


def test_a_session_found_elsewhere_is_shown_though_a_folder_was_not_read(denied: Path) -> None:
    assert invoke("show", SEEN[:8]).exit_code == 0
