"""A session a bug in agentscan cost (``context.internal_error``: "skipped: agentscan could not
read this session") is not named under a ``tokens`` table as one "that recorded no usage": its
warning says why it has none, and the note said the opposite (that the agent recorded none).
A provider raising mid-read, as the review's wrapper did."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.providers.claude.provider import ClaudeProvider
from builders import claude_one_call, invoke

READ = "1aaa0000-0000-4000-8000-000000000001"
BUG = "2bbb0000-0000-4000-8000-000000000002"


@pytest.fixture
def bug(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    claude_one_call(isolated_home, READ)
    path = claude_one_call(isolated_home, BUG)
    real = ClaudeProvider.session_usage

    def raising(self, ref, ctx, *args, **kwargs):  # type: ignore[no-untyped-def]
        found = real(self, ref, ctx, *args, **kwargs)
        if BUG in ref.id:
            raise KeyError("bug")
        return found

    monkeypatch.setattr(ClaudeProvider, "session_usage", raising)
    return path


@pytest.mark.parametrize("run", ["cold", "warm"])
@pytest.mark.parametrize("by", ["session", "day", "model"])
def test_a_skipped_session_is_not_said_to_have_recorded_no_usage(bug: Path, by: str, run: str) -> None:
    if run == "warm":
        assert invoke("tokens", "--by", by).exit_code == 0
    result = invoke("tokens", "--by", by)
    assert result.exit_code == 0, result.output
    said = result.stdout + result.stderr
    assert "recorded no usage" not in said, said
    assert f"{bug}: skipped: agentscan could not read this session (KeyError); please report it" in result.stderr
    assert "110" in result.stdout  # (the other session's, counted)
