"""A token count from a provider's file is a non-negative whole number; anything else is
unknown (0), the same rule for every provider: a fraction was truncated by Claude's, Codex's
and Cursor's readers (3.7 tokens counted 3) and taken as 0 by Gemini's."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.bounds import token_count
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json

S = "c0a70000-0000-4000-8000-000000000001"


@pytest.mark.parametrize("value, counted", [
    (5, 5), (100.0, 100), (3.7, 0), (-1.0, 0), (float("nan"), 0), (float("inf"), 0), (1e308, 0), ("5", 0), (True, 0),
])
def test_a_count_is_a_whole_number_or_unknown(value: object, counted: int) -> None:
    assert token_count(value) == counted


def test_a_claude_call_with_a_fractional_count_counts_the_rest(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00Z", "go"),
        claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1",
                         usage=claude_usage(input=10, output=3.7, cache_read=100.0)),  # type: ignore[arg-type]
    ])
    total = cli_json("tokens")["total"]
    assert (total["input"], total["output"], total["cache_read"]) == (10, 0, 100)
