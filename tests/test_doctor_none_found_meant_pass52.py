"""Plain ``doctor`` with a setting one level off ends by pointing at the finding that names
the fix (pass 52).

Its last line said "set the variable that moves them" though the variable was set, a level
too deep, and a finding above named the exact setting meant."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import invoke
from gemini_builders import meta, user, write_chat

NONE_FOUND = "no sessions found for any agent here"


def test_the_last_line_points_at_the_setting_meant(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = isolated_home / "elsewhere"
    write_chat(elsewhere, "api", "session-2026-05-01T10-00-9e9e9e9e.jsonl",
               [meta("9e9e9e9e-1111-4222-8333-444444444444"), user("u1", "2026-05-01T10:00:00.000Z", "hi")])
    monkeypatch.setenv("GEMINI_CLI_HOME", str(elsewhere / ".gemini"))
    result = invoke("doctor")
    last = result.stdout.rstrip("\n").split("\n\n")[-1]
    assert last == f"{NONE_FOUND}: see the finding above (did you mean GEMINI_CLI_HOME={elsewhere}?)", last
    assert "set the variable that moves them" not in result.stdout


def test_with_no_finding_the_last_line_says_where_to_look(isolated_home: Path) -> None:
    last = invoke("doctor").stdout.rstrip("\n").split("\n\n")[-1]
    assert last.startswith(NONE_FOUND) and "set the variable that moves them" in last
