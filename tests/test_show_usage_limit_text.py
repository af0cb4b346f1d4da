"""``show`` says Claude Code's usage limit in words, with when it resets, not its machine text.

Claude Code records a usage limit as ``Claude AI usage limit reached|1765000000``: the
number is when the limit resets (Unix seconds).  The card and ``--full`` print it as
``… (resets 2025-12-06 06:46 CET)``, in the zone of the card's times; ``--json`` keeps it as recorded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.cli.show_errors import error_words
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, ran

SESSION = "f1000000-2222-4000-8000-000000000001"
RAW = "Claude AI usage limit reached|1765000000"


def _limited(home: Path) -> None:
    limit = claude_assistant(SESSION, "2026-12-05T10:00:02.000Z", msg_id="m1", request_id=None,
                             usage=claude_usage(0, 0), model="<synthetic>", blocks=[{"type": "text", "text": RAW}],
                             isApiErrorMessage=True, error="rate_limit", uuid="a1", parentUuid="u1")
    claude_session_file(home, SESSION, [claude_user(SESSION, "2026-12-05T10:00:00.000Z", "refactor it", uuid="u1"), limit])


@pytest.mark.parametrize(("zone", "said"), [("UTC", "2025-12-06 05:46"), ("Europe/Paris", "2025-12-06 06:46 CET")])
def test_the_limit_says_when_it_resets(isolated_home: Path, zone: str, said: str) -> None:
    _limited(isolated_home)
    words = f"Claude AI usage limit reached (resets {said})"
    card, _ = ran("show", SESSION, "--tz", zone)
    assert words in card and "|1765000000" not in card
    full, _ = ran("show", SESSION, "--full", "--tz", zone)
    assert words in full and "|1765000000" not in full
    (error,) = cli_json("show", SESSION)["session"]["errors"]
    assert error["text"] == RAW


@pytest.mark.parametrize("text", ["a|b", "pipe | 1765000000 apart", "limit reached|99999999999999", "plain words"])
def test_other_texts_stay_as_they_are(text: str) -> None:
    assert error_words(text, None) == text
