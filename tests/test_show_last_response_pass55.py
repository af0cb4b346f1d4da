"""The card's ``last response`` when the newest prompt has none after it (interrupted, or the
agent still at work): it answered an earlier prompt, and the card said nothing of it, so it
read as the newest prompt's answer (the real sample ``spotter-tool-heavy-v2.1.38``: a question
about xterm.js "answered" by "Phoenix server is starting in the background") (pass 55)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

S = "c0c0c0c0-0000-4000-8000-000000000155"


def _reply(ts: str, n: int) -> dict:
    return claude_assistant(S, ts, msg_id=f"m{n}", request_id=f"r{n}", usage=claude_usage(10, 5), uuid=f"a{n}",
                            blocks=[{"type": "text", "text": f"answer {n}"}])


@pytest.mark.parametrize(("answered", "heading"), [(True, "last response"),
                                                    (False, "last response (before the newest prompt)")])
def test_the_last_response_says_when_it_came_before_the_newest_prompt(isolated_home: Path, answered: bool,
                                                                       heading: str) -> None:
    records = [claude_user(S, "2026-05-01T10:00:00.000Z", "start the server", uuid="u1"),
               _reply("2026-05-01T10:00:05.000Z", 1),
               claude_user(S, "2026-05-01T10:05:00.000Z", "why does scrolling not work?", uuid="u2")]
    if answered:
        records.append(_reply("2026-05-01T10:05:05.000Z", 2))
    claude_session_file(isolated_home, S, records)
    lines = invoke("show", S).stdout.splitlines()
    assert heading in lines
    at = lines.index(heading)
    assert lines[at + 1] == f"  answer {2 if answered else 1}"


def test_a_prompt_of_no_time_is_told_by_where_it_was_read(isolated_home: Path) -> None:
    late = claude_user(S, "2026-05-01T10:05:00.000Z", "and now?", uuid="u2")
    del late["timestamp"]
    claude_session_file(isolated_home, S, [claude_user(S, "2026-05-01T10:00:00.000Z", "start", uuid="u1"),
                                           _reply("2026-05-01T10:00:05.000Z", 1), late])
    assert "last response (before the newest prompt)" in invoke("show", S).stdout.splitlines()
