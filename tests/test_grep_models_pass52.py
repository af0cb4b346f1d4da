"""``list --grep`` finds a session by any model its calls used, a subagent's too (pass 52).

A row names one model (most of its calls'): ``list --grep haiku`` missed a session whose
``Explore`` subagent ran on Haiku, though ``tokens --by model`` counted Haiku in it
(``scan.grepmodels``, docs/cli.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import (cli_json, claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user,
                      invoke)

SONNET = "claude-sonnet-4-5-20250929"
HAIKU = "claude-haiku-4-5-20251001"
MIXED = "aaaa0052-1111-4000-8000-000000000001"
PLAIN = "bbbb0052-1111-4000-8000-000000000002"
QUIET = "cccc0052-1111-4000-8000-000000000003"


def _home(home: Path) -> None:
    for number, session in enumerate((MIXED, PLAIN)):
        claude_session_file(home, session, [
            claude_user(session, f"2026-11-0{number + 1}T10:00:00Z", f"task {number}", uuid="u1"),
            claude_assistant(session, f"2026-11-0{number + 1}T10:00:01Z", msg_id=f"m{number}", request_id=f"r{number}",
                             usage=claude_usage(100, 10), model=SONNET, uuid="a1", parentUuid="u1"),
        ])
    claude_subagent_file(home, MIXED, "a1b2c3d", [
        claude_user(MIXED, "2026-11-01T10:00:02Z", "explore the repo", sidechain=True),
        claude_assistant(MIXED, "2026-11-01T10:00:03Z", msg_id="ms", request_id="rs", usage=claude_usage(50, 5),
                         model=HAIKU, sidechain=True),
    ])
    # (a session without a call: its row names no model, nor do its calls)
    claude_session_file(home, QUIET, [claude_user(QUIET, "2026-11-03T10:00:00Z", "only a question")])


@pytest.mark.parametrize("options", [(), ("--all",), ("--limit", "1")])
def test_grep_finds_a_session_by_its_subagents_model(isolated_home: Path, options: tuple[str, ...]) -> None:
    _home(isolated_home)
    for cache in ((), ("--no-cache",)):
        found = cli_json(*cache, "list", *options, "--grep", "haiku", "--json")["sessions"]
        assert [row["id"] for row in found] == [f"claude:{MIXED}"]
        assert found[0]["model"] == SONNET  # (the row's model stays the one most calls ran on)
    assert [row["id"] for row in cli_json("list", "--grep", "haiku-4.5", "--json")["sessions"]] == [f"claude:{MIXED}"]


def test_a_word_no_model_holds_still_finds_nothing(isolated_home: Path) -> None:
    _home(isolated_home)
    result = invoke("list", "--grep", "gemini")
    assert result.exit_code == 0 and "contains 'gemini' (3 searched)" in result.output, result.output


def test_every_row_takes_the_same_sessions(isolated_home: Path) -> None:
    _home(isolated_home)
    from agentscan.scan.listing import ListFilter
    from agentscan.scan.scanner import Scanner

    with Scanner() as scanner:
        rows = scanner.all_rows(filters=ListFilter(grep="haiku"))
    assert [row.native_id for row in rows] == [MIXED]
