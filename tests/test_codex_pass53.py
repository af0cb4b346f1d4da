"""Codex service tiers and archived threads, as a per-token payer reads them (pass 53).

- a ``service_tier`` that is no string (a number, an object) read as the standard tier, priced at
  the standard rate without a word; a string that is no word was ``?`` (no price, a warning): now
  any value that is neither ``null`` nor a string is ``?`` too (``aliases.recorded_tier``).
- ``prices "gpt-5.5 (turbo)"``, ``turbo`` no tier agentscan knows nor one a session recorded,
  answered "did you mean gpt-3.5-turbo?": now it says the word is no service tier, and offers the
  model's priced tiers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from builders import cli_json, invoke
from codex_builders import line, rollout_path, write_rollout
from test_codex_tier_reset_pass52 import LATE, T, _calls, _context, _thread


def _raw_settings(tier: object) -> dict[str, Any]:
    settings = {"cwd": "/work/project", "model": "gpt-5.5", "service_tier": tier}
    return line(LATE, "event_msg", {"type": "thread_settings_applied", "thread_settings": settings})


def test_a_tier_that_is_no_string_is_an_unnamed_tier() -> None:
    for odd in (2, {"name": "priority"}, ["flex"], True):
        assert _calls(_thread(LATE, [_context(LATE, odd), None])) == ["gpt-5.5 (? tier)"], odd
        assert _calls(_thread(LATE, [_raw_settings(odd), None])) == ["gpt-5.5 (? tier)"], odd
    # ``null`` stays the standard tier; a string is read as before
    assert _calls(_thread(LATE, [_context(LATE, "flex"), None, _context(LATE, None), None])) == [
        "gpt-5.5 (flex)", "gpt-5.5"]


def test_a_numeric_tier_has_no_price_in_tokens(isolated_home: Path) -> None:
    write_rollout(rollout_path(isolated_home / ".codex", T, LATE), _thread(LATE, [_raw_settings(1), None]))
    doc = cli_json("tokens", "--by", "model")
    (row,) = doc["rows"]
    assert row["key"] == "gpt-5.5 (? tier)" and row["cost_usd"] is None, row
    assert any("not a plain word" in warning["message"] for warning in doc["warnings"]), doc["warnings"]
    assert cli_json("show", T)["session"]["service_tiers"] == {"?": 1}


def test_prices_says_a_word_is_no_tier(isolated_home: Path) -> None:
    doc = cli_json("prices", "gpt-5.5 (turbo)", "--at", "2026-11-02")
    (found,) = doc["models"]
    assert found["model_id"] is None
    assert found["suggestions"] == ["gpt-5.5", "gpt-5.5 (priority)", "gpt-5.5 (flex)"]
    (warning,) = doc["warnings"]
    assert "'turbo' is not a service tier agentscan knows" in warning["message"]
    assert "genai-prices" not in warning["message"]  # (no update gives it a price)
    text = invoke("prices", "gpt-5.5 (turbo)", "--at", "2026-11-02")
    assert "gpt-3.5-turbo" not in text.stderr and "did you mean gpt-5.5, 'gpt-5.5 (priority)'" in text.stderr, text.stderr
    # a model that is not OpenAI's keeps the guesses of its whole name
    other = cli_json("prices", "nosuchmodel (turbo)")["warnings"]
    assert "service tier" not in other[0]["message"]


A = "019d1000-0000-7000-8000-0000000000a1"


def _two_threads(home: Path) -> None:
    from datetime import timedelta

    from test_codex_tier_reset_pass52 import _thread as thread

    write_rollout(rollout_path(home / ".codex", T, LATE), thread(LATE, [None]))
    archived = [dict(record) for record in thread(LATE - timedelta(days=1), [None])]
    archived[0] = {**archived[0], "payload": {**archived[0]["payload"], "id": A}}
    write_rollout(rollout_path(home / ".codex", A, LATE - timedelta(days=1), archived=True), archived)


def test_list_filters_archived_threads(isolated_home: Path) -> None:
    """``list`` marks an archived thread ``(archived)`` and keeps it (``tokens`` counts it):
    ``--archived`` lists those alone, ``--no-archived`` the others."""
    _two_threads(isolated_home)
    every = [row["id"] for row in cli_json("list")["sessions"]]
    assert every == [f"codex:{T}", f"codex:{A}"]  # (not hidden by default: tokens counts it)
    assert [row["id"] for row in cli_json("list", "--archived")["sessions"]] == [f"codex:{A}"]
    assert [row["id"] for row in cli_json("list", "--no-archived")["sessions"]] == [f"codex:{T}"]
    text = invoke("list", "--no-archived")
    assert A not in text.stdout and T in text.stdout and "(archived)" not in text.stdout, text.stdout
    # each answer kept for its own options: asked again, the same
    assert [row["id"] for row in cli_json("list", "--archived")["sessions"]] == [f"codex:{A}"]
    both = invoke("list", "--archived", "--no-archived")
    assert both.exit_code == 2 and "cannot be used together" in both.stderr
    empty = invoke("list", "--archived", "-p", "claude")
    assert empty.exit_code == 0


def test_list_says_why_no_session_is_archived(isolated_home: Path) -> None:
    write_rollout(rollout_path(isolated_home / ".codex", T, LATE), _thread(LATE, [None]))
    result = invoke("list", "--archived")
    assert result.exit_code == 0 and "no archived sessions (1 session, none archived)" in result.stderr, result.stderr


def test_list_filter_takes_archived() -> None:
    import pytest

    from agentscan import ListFilter
    from agentscan.errors import UsageProblem

    assert ListFilter(archived=True).active_stages == ("archived",)
    with pytest.raises(UsageProblem):
        ListFilter(archived="yes")  # type: ignore[arg-type]
