"""Claude Code's own ``<synthetic>`` words ("No response requested." after the user
interrupted) are no model's reply: not a response in ``list``'s counts nor ``show``'s
replies, read forward or from the end, and its tokens (none) count as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.model import TokenUsage
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from claude_events import forward_and_from_end

S = "e5555555-0000-4000-8000-000000000001"


def _at(second: int) -> str:
    return f"2026-03-01T10:00:{second:02d}.000Z"


def _interrupted() -> list[dict]:
    return [
        claude_user(S, _at(1), "refactor the parser", uuid="u1"),
        claude_assistant(S, _at(2), msg_id="m1", request_id="r1", usage=claude_usage(input=10, output=5),
                         blocks=[{"type": "text", "text": "Starting on it."}], uuid="a1", parentUuid="u1"),
        claude_user(S, _at(3), "[Request interrupted by user]", uuid="u2", parentUuid="a1"),
        claude_assistant(S, _at(4), msg_id="local-1", request_id=None, usage=claude_usage(),
                         blocks=[{"type": "text", "text": "No response requested."}], model="<synthetic>",
                         uuid="a2", parentUuid="u2"),
        claude_user(S, _at(5), "now the tests", uuid="u3", parentUuid="a2"),
        claude_assistant(S, _at(6), msg_id="m2", request_id="r2", usage=claude_usage(input=20, output=7),
                         blocks=[{"type": "text", "text": "Tests next."}], uuid="a3", parentUuid="u3"),
    ]


def test_a_synthetic_reply_is_no_response(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, _interrupted())
    (row,) = Scanner(home=isolated_home, provider_names=["claude"]).list_sessions()
    detail = Scanner(home=isolated_home, provider_names=["claude"]).show(S)
    assert [r.text for r in detail.responses] == ["Starting on it.", "Tests next."]
    assert detail.row.counts == row.counts and row.counts.responses == 2
    assert row.tokens == TokenUsage(input=30, output=12)
    assert row.model == "claude-sonnet-4-5-20250929"


def test_read_from_the_end_it_is_none_either(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.claude import provider

    monkeypatch.setattr(provider, "TAIL_MIN_BYTES", 0)  # shown from its end, as a huge one is
    home = tmp_path / "home"
    claude_session_file(home, S, _interrupted())
    forward, from_end, row = forward_and_from_end(home)
    assert from_end is not None
    assert [r.text for r in from_end.responses] == [r.text for r in forward.responses] == ["Starting on it.", "Tests next."]
    assert row.counts.responses == 2
