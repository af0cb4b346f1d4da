"""``show ID`` with a root named by an env var that cannot be read (a typo in
``CLAUDE_CONFIG_DIR``) says so under its "no session matches": the session may be there."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import claude_session_file, claude_user, invoke

#: the last line of every "no session matches": what to do next
HINT = "hint: `agentscan list --grep TEXT` finds it by title, cwd, model or path (`--all` lists every id)"

NATIVE = "7d1e5c3b-2a4f-4b6c-8d9e-0f1a2b3c4d5e"


@pytest.mark.parametrize("command", ["show", "tokens"])
def test_not_found_names_the_named_root_it_could_not_read(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                          command: str) -> None:
    claude_session_file(isolated_home, NATIVE, [claude_user(NATIVE, "2026-11-01T10:00:00Z", "hello", cwd="/w")])
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(isolated_home / "no-such-claude"))
    result = invoke(command, NATIVE[:8])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0] == f"error: no session matches '{NATIVE[:8]}'"
    assert lines[1] == "it may be under a root that was named but could not be read:"
    assert lines[2].startswith("  Claude Code: no readable root among ") and "CLAUDE_CONFIG_DIR" in lines[2]
    assert lines[3:] == [HINT]  # what to do next, last


@pytest.mark.parametrize("prefix", ["claude:", "CLAUDE:"])
def test_an_id_that_names_the_provider_is_told_of_its_root(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                           prefix: str) -> None:
    """``show claude:<id>`` kept the roots whose message began ``claude:``; the message names
    the agent as sentences do (``Claude Code: no readable root``), and the hint was lost."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(isolated_home / "no-such-claude"))
    query = f"{prefix}{NATIVE[:8]}"
    result = invoke("show", query)
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[:2] == [f"error: no session matches '{query}'",
                         "it may be under a root that was named but could not be read:"], lines
    assert lines[2].startswith("  Claude Code: no readable root among ") and "CLAUDE_CONFIG_DIR" in lines[2]
    assert lines[3:] == [HINT]


def test_with_the_root_readable_a_typo_says_nothing_more(isolated_home: Path) -> None:
    claude_session_file(isolated_home, NATIVE, [claude_user(NATIVE, "2026-11-01T10:00:00Z", "hello", cwd="/w")])
    result = invoke("show", "ffffffff")
    assert result.exit_code == 1 and result.stderr == f"error: no session matches 'ffffffff'\n{HINT}\n"


def test_an_id_that_names_another_provider_is_not_told_of_claude_s_root(isolated_home: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(isolated_home / "no-such-claude"))
    result = invoke("show", "codex:ffffffff")
    assert result.exit_code == 1 and result.stderr.splitlines() == ["error: no session matches 'codex:ffffffff'", HINT]
