"""Codex's service tier, as a cost-watcher reads it.

- openai/codex's ``ThreadSettingsSnapshot`` (``thread_settings_applied``) is the thread's whole
  settings, its ``service_tier`` left out when there is none (``/fast`` turned off): a snapshot
  without one puts the calls after it back on the standard tier.  A ``turn_context`` that writes
  ``service_tier: null`` (openai/codex's ``TurnContextItem`` writes no tier; a build that does
  writes the turn's whole context) says the same.  Both kept the tier before: the standard calls
  after ``/fast`` was turned off were priced at 2.5x.
- a tier agentscan does not know (``turbo``) or the API's ``scale`` (committed units, no per-token
  price) was priced at the standard rate without a word; now such a call has no price and a
  warning, in ``tokens``, ``list``, ``show`` and ``export`` alike; ``auto`` is the standard tier.
- ``prices --json``'s ``query`` is the name as typed (``gpt-5.5  (Priority)``), not as read.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from agentscan.providers.codex.callscan import FileUsageScanner
from builders import cli_json
from codex_builders import Calls, line, meta, rollout_path, task_started, turn_context, user_message, write_rollout

T = "019d1000-0000-7000-8000-000000000052"
#: after genai-prices' tier variants of ``gpt-5.5`` start (2026-10-12)
LATE = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def _settings(moment: datetime, tier: str | None) -> dict[str, Any]:
    settings: dict[str, Any] = {"cwd": "/work/project", "model": "gpt-5.5", "model_provider_id": "openai",
                                "approval_policy": "never"}
    if tier is not None:  # (Codex leaves the key out when the thread has no tier)
        settings["service_tier"] = tier
    return line(moment, "event_msg", {"type": "thread_settings_applied", "thread_settings": settings})


def _context(moment: datetime, tier: object) -> dict[str, Any]:
    record = turn_context(moment, model="gpt-5.5")
    record["payload"]["service_tier"] = tier
    return record


def _calls(records: list[dict[str, Any]]) -> list[str | None]:
    scanner = FileUsageScanner()
    for record in records:
        scanner.feed(record)
    return [event.model for event in scanner.events]


def _thread(start: datetime, steps: list[dict[str, Any] | None]) -> list[dict[str, Any]]:
    """A thread whose records are ``steps``, each ``None`` a call (10,000 input, 4,000 cached, 1,000 output)."""
    calls = Calls()
    lines = [meta(T, start), task_started(start + timedelta(seconds=1)),
             turn_context(start + timedelta(seconds=1), model="gpt-5.5"), user_message(start, "go")]
    for index, step in enumerate(steps):
        moment = start + timedelta(seconds=10 * (index + 1))
        lines.append(calls.call(moment, 10_000, 4_000, 1_000) if step is None else step)
    return lines


def test_settings_without_a_tier_put_the_calls_back_on_the_standard_tier() -> None:
    moment = LATE
    assert _calls(_thread(moment, [_settings(moment, "fast"), None, _settings(moment, None), None])) == [
        "gpt-5.5 (priority)", "gpt-5.5"]


def test_a_turn_context_null_tier_is_the_standard_tier() -> None:
    moment = LATE
    assert _calls(_thread(moment, [_context(moment, "priority"), None, _context(moment, None), None])) == [
        "gpt-5.5 (priority)", "gpt-5.5"]
    # a turn context without the key (every openai/codex build): the thread's tier stands
    plain = turn_context(moment, model="gpt-5.5")
    assert _calls(_thread(moment, [_settings(moment, "flex"), None, plain, None])) == [
        "gpt-5.5 (flex)", "gpt-5.5 (flex)"]


def test_tier_names() -> None:
    from agentscan.pricing.aliases import service_tier_name, service_tier_of

    assert service_tier_name("gpt-5.5", "auto") == "gpt-5.5"
    assert service_tier_name("gpt-5.5", "Default") == "gpt-5.5"
    assert service_tier_name("gpt-5.5", "standard") == "gpt-5.5"  # (openai/codex's ``ServiceTier::Standard``)
    assert service_tier_name("gpt-5.5", "scale") == "gpt-5.5 (scale)"
    assert service_tier_name("gpt-5.5", "turbo") == "gpt-5.5 (turbo tier)"
    assert service_tier_name("gpt-5.5", "no such tier!") == "gpt-5.5 (? tier)"  # (``UNNAMED_TIER``)
    assert service_tier_of("gpt-5.5 (turbo tier)") == ("gpt-5.5", "turbo")
    assert service_tier_of("sonnet-4.5 (cursor)") == ("sonnet-4.5 (cursor)", None)  # (``tokens``' agent suffix)


def test_an_unknown_or_scale_tier_is_unpriced_and_said_everywhere(isolated_home: Path, tmp_path: Path) -> None:
    from builders import invoke

    steps: list[dict[str, Any] | None] = [_settings(LATE, "default"), None, _settings(LATE, "turbo"), None,
                                          _settings(LATE, "scale"), None, _settings(LATE, "auto"), None]
    write_rollout(rollout_path(isolated_home / ".codex", T, LATE), _thread(LATE, steps))
    doc = cli_json("tokens", "--by", "model")
    rows = {row["key"]: row for row in doc["rows"]}
    assert set(rows) == {"gpt-5.5", "gpt-5.5 (turbo tier)", "gpt-5.5 (scale)"}
    assert rows["gpt-5.5"]["cost_usd"] is not None  # default and auto: the standard tier
    assert rows["gpt-5.5 (turbo tier)"]["cost_usd"] is None
    assert rows["gpt-5.5 (scale)"]["cost_usd"] is None
    said = " ".join(warning["message"] for warning in doc["warnings"])
    assert "'turbo'" in said and "scale tier, paid for by committed units" in said, said
    # list and show: the session's cost is partial, and said so
    listed = cli_json("list", "--all")
    (session,) = listed["sessions"]
    assert session["cost_usd"] is None  # (a lower bound: ``cost_usd_priced``)
    assert Decimal(str(session["cost_usd_priced"])) == Decimal(str(rows["gpt-5.5"]["cost_usd"]))
    assert any("'turbo'" in warning["message"] for warning in listed["warnings"])
    shown = cli_json("show", T)
    assert any("scale tier" in warning["message"] for warning in shown["warnings"]), shown["warnings"]
    assert shown["session"]["service_tiers"] == {"default": 2, "turbo": 1, "scale": 1}  # (``auto``: the standard tier)
    # export: the same calls unpriced, day by day
    out = tmp_path / "out.db"
    result = invoke("export", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    import sqlite3

    with sqlite3.connect(out) as db:
        costs = dict(db.execute("select model, cost_usd from token_days"))
    assert costs["gpt-5.5 (turbo tier)"] is None and costs["gpt-5.5 (scale)"] is None
    assert costs["gpt-5.5"] == rows["gpt-5.5"]["cost_usd"]


def test_prices_json_echoes_the_name_as_typed(isolated_home: Path) -> None:
    typed = ["gpt-5.5  (Priority)", "gpt-5.5 (fast)", "gpt-5.5 (default)"]
    doc = cli_json("prices", *typed, "--at", "2026-11-02")
    assert [found["query"] for found in doc["models"]] == typed
    assert [found["model_id"] for found in doc["models"]] == ["gpt-5.5"] * 3
    assert doc["models"][0]["name"].endswith(", priority tier")


def test_prices_of_one_s_sessions_says_what_a_tier_lacks(isolated_home: Path) -> None:
    """``agentscan prices`` (the models one's sessions recorded) says why a tier's name has no
    price, as ``prices MODEL`` does: its model is priced, the tier is not."""
    steps: list[dict[str, Any] | None] = [_settings(LATE, "scale"), None]
    write_rollout(rollout_path(isolated_home / ".codex", T, LATE), _thread(LATE, steps))
    doc = cli_json("prices")
    assert [found["query"] for found in doc["models"]] == ["gpt-5.5 (scale)"]
    (warning,) = doc["warnings"]
    assert warning["message"] == ("no price for 'gpt-5.5 (scale)': a call on the scale tier, paid for by committed"
                                  " units, not by the token, has no price per token: it is not priced at the standard"
                                  " one"), warning  # (``aliases.unpriced_tier``, as ``tokens`` says it)


def test_a_tier_typed_as_show_and_tokens_say_it() -> None:
    """``show`` says "2 on the priority tier", ``tokens`` keys ``gpt-5.5 (turbo tier)``: either,
    typed back to ``prices`` in any case, is that tier's name."""
    from agentscan.pricing.aliases import typed_tier_name

    assert typed_tier_name("gpt-5.5 (Turbo Tier)") == "gpt-5.5 (turbo tier)"
    assert typed_tier_name("gpt-5.5 (priority tier)") == "gpt-5.5 (priority)"
    assert typed_tier_name("gpt-5.5 (default tier)") == "gpt-5.5"
    assert typed_tier_name("gpt-5.5 (preview)") == "gpt-5.5 (preview)"  # (no tier's name: as written)
