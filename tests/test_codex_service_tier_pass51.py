"""Codex's service tiers: Codex 0.146+ writes the thread's settings as an ``event_msg`` of type
``thread_settings_applied`` whose ``thread_settings.service_tier`` is ``"default"``, or
``"priority"``/``"fast"``/``"flex"`` when the user chose one (``/fast``, ``service_tier`` in
config.toml).  OpenAI bills those tiers at other rates (genai-prices 0.2.5: ``gpt-5.5``'s
priority tier 2.5x, flex half, from 2026-10-12).  A call on one is counted under
``<model> (<tier>)`` and priced at the tier's price variant; with no such price (before the
variant starts, or a model the data gives none) it has no price and a warning, never the
standard rate."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from agentscan.providers.codex.callscan import FileUsageScanner
from builders import cli_json
from codex_builders import Calls, line, meta, rollout_path, task_started, turn_context, user_message, write_rollout

T = "019d1000-0000-7000-8000-000000000051"
#: after genai-prices 0.2.5's tier variants of ``gpt-5.5`` start (2026-10-12)
LATE = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
#: before them: the data has no tier price at that time
EARLY = datetime(2026, 8, 3, 9, 0, tzinfo=UTC)


def _settings(moment: datetime, tier: str) -> dict[str, Any]:
    return line(moment, "event_msg", {"type": "thread_settings_applied", "thread_settings": {
        "cwd": "/work/project", "model": "gpt-5.5", "model_provider_id": "openai", "service_tier": tier}})


def _thread(start: datetime, tiers: list[str]) -> list[dict[str, Any]]:
    """One call of 10,000 input (4,000 cached) and 1,000 output tokens per tier, in order."""
    calls = Calls()
    lines = [meta(T, start), task_started(start + timedelta(seconds=1)),
             turn_context(start + timedelta(seconds=1), model="gpt-5.5"), user_message(start, "go")]
    for index, tier in enumerate(tiers):
        moment = start + timedelta(seconds=10 * (index + 1))
        lines += [_settings(moment, tier), calls.call(moment + timedelta(seconds=5), 10_000, 4_000, 1_000)]
    return lines


def _genai(moment: datetime, tier: str | None) -> Decimal:
    from genai_prices import Usage, calc_price

    usage = Usage(input_tokens=10_000, cache_read_tokens=4_000, output_tokens=1_000)
    return calc_price(usage, "gpt-5.5", provider_id="openai", genai_request_timestamp=moment,
                      price_context={"service_tier": tier} if tier else None).total_price


def test_a_call_is_named_by_its_tier() -> None:
    scanner = FileUsageScanner()
    for record in _thread(LATE, ["default", "priority", "flex", "fast"]):
        scanner.feed(record)
    # Codex sends its older "fast" as the priority tier
    assert [event.model for event in scanner.events] == ["gpt-5.5", "gpt-5.5 (priority)", "gpt-5.5 (flex)",
                                                         "gpt-5.5 (priority)"]
    assert scanner.model_use().calls == (("gpt-5.5", 4),)  # a row's MODEL: the model


def test_tokens_prices_each_tier_at_its_rate(isolated_home: Path) -> None:
    write_rollout(rollout_path(isolated_home / ".codex", T, LATE), _thread(LATE, ["default", "priority", "flex"]))
    doc = cli_json("tokens", "--by", "model")
    rows = {row["key"]: row for row in doc["rows"]}
    assert set(rows) == {"gpt-5.5", "gpt-5.5 (priority)", "gpt-5.5 (flex)"}
    assert Decimal(str(rows["gpt-5.5"]["cost_usd"])) == _genai(LATE, None)
    priority = Decimal(str(rows["gpt-5.5 (priority)"]["cost_usd"]))
    flex = Decimal(str(rows["gpt-5.5 (flex)"]["cost_usd"]))
    assert priority == _genai(LATE, "priority") == _genai(LATE, None) * Decimal("2.5")
    assert flex == _genai(LATE, "flex") < _genai(LATE, None)
    assert not doc["warnings"]


def test_a_tier_the_data_has_no_price_for_is_unpriced_and_said(isolated_home: Path) -> None:
    write_rollout(rollout_path(isolated_home / ".codex", T, EARLY), _thread(EARLY, ["priority"]))
    doc = cli_json("tokens", "--by", "model")
    (row,) = doc["rows"]
    assert row["key"] == "gpt-5.5 (priority)"
    assert row["cost_usd"] is None  # not the standard rate: priority bills more
    assert any("priority-tier price" in warning["message"] for warning in doc["warnings"]), doc["warnings"]


def test_prices_names_the_tier(isolated_home: Path) -> None:
    doc = cli_json("prices", "gpt-5.5 (priority)", "--at", "2026-11-02")
    (found,) = doc["models"]
    assert (found["provider"], found["model_id"]) == ("openai", "gpt-5.5")
    assert found["name"].endswith(", priority tier")
    assert found["price_fields"]["input_mtok"] == 12.5


def test_a_row_names_the_model_and_costs_the_tiers(isolated_home: Path) -> None:
    write_rollout(rollout_path(isolated_home / ".codex", T, LATE), _thread(LATE, ["priority", "priority", "default"]))
    (row,) = cli_json("list", "--all")["sessions"]
    assert row["model"] == "gpt-5.5"  # the model it ran, whatever tier billed it
    assert Decimal(str(row["cost_usd"])) == 2 * _genai(LATE, "priority") + _genai(LATE, None)


def test_otlp_names_the_api_model_and_its_tier() -> None:
    from agentscan.otlp import semconv

    assert semconv.api_tier("gpt-5.5 (priority)", "codex") == ("gpt-5.5", "priority")
    assert semconv.api_tier("gpt-5.5 (flex)", "codex") == ("gpt-5.5", "flex")
    assert semconv.api_tier("gpt-5.5", "codex") == ("gpt-5.5", None)
    assert semconv.api_tier("some-priority", "cursor") == ("some-priority", None)


def test_a_tier_name_is_never_its_model_s_standard_price(isolated_home: Path) -> None:
    """``gpt-5-nano`` has a flex price but no priority one: its priority-tier name has no price,
    the warning says what is missing, and no other model's priority price is offered in its
    place (``gpt-5-mini (priority)`` bills at other rates than ``gpt-5-nano``'s would)."""
    from builders import invoke

    doc = cli_json("prices", "gpt-5-nano (priority)", "gpt-5-nano (flex)", "--at", "2026-11-02")
    priority, flex = doc["models"]
    assert priority["model_id"] is None
    assert priority["suggestions"] == []
    assert (flex["model_id"], flex["name"].rpartition(", ")[2]) == ("gpt-5-nano", "flex tier")
    said = invoke("prices", "gpt-5-nano (priority)")
    assert "did you mean" not in said.stderr
    assert ("it has no priority-tier price for gpt-5-nano (a priority-tier call is not billed at its standard price)"
            in " ".join(said.stderr.split()))


def test_a_mistyped_tier_name_is_offered_that_tier_s_names(isolated_home: Path) -> None:
    """A tier name whose model has no price at all (``gpt-5.9``) is offered that tier's names."""
    offered = cli_json("prices", "gpt-5.9 (priority)", "--at", "2026-11-02")["models"][0]["suggestions"]
    assert offered and all(name.endswith(" (priority)") for name in offered), offered


def test_otlp_chat_spans_carry_the_tier(isolated_home: Path, tmp_path: Path) -> None:
    import orjson

    from builders import invoke

    write_rollout(rollout_path(isolated_home / ".codex", T, LATE), _thread(LATE, ["priority", "default"]))
    out = tmp_path / "spans.jsonl"
    assert invoke("otlp", T, "-o", str(out)).exit_code == 0
    chats = []
    for raw in out.read_bytes().splitlines():
        for resource in orjson.loads(raw)["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    values = {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}
                    if span["name"].startswith("chat"):
                        chats.append((values["gen_ai.request.model"], values.get("openai.request.service_tier")))
    assert sorted(chats, key=str) == sorted([("gpt-5.5", "priority"), ("gpt-5.5", None)], key=str)


def test_the_ultrafast_tier_is_priced_too(isolated_home: Path) -> None:
    """genai-prices 0.2.5 lists an ``ultrafast`` tier for ``gpt-6.2-sol`` (4x its input rate)."""
    doc = cli_json("prices", "gpt-6.2-sol", "gpt-6.2-sol (ultrafast)", "--at", "2026-11-02")
    standard, ultrafast = doc["models"]
    assert ultrafast["model_id"] == "gpt-6.2-sol" and ultrafast["name"].endswith(", ultrafast tier")
    assert ultrafast["price_fields"]["input_mtok"]["base"] > standard["price_fields"]["input_mtok"]["base"]


def test_show_says_how_many_calls_a_tier_billed(isolated_home: Path) -> None:
    from builders import invoke

    write_rollout(rollout_path(isolated_home / ".codex", T, LATE), _thread(LATE, ["priority", "priority", "default"]))
    shown = cli_json("show", T)["session"]
    assert shown["service_tiers"] == {"priority": 2, "default": 1}
    cost = next(line for line in invoke("show", T).stdout.splitlines() if line.startswith("  cost"))
    assert cost.endswith(" (2 on the priority tier, of its 3 calls)")


def test_show_of_a_standard_tier_session_says_nothing_of_tiers(isolated_home: Path) -> None:
    write_rollout(rollout_path(isolated_home / ".codex", T, LATE), _thread(LATE, ["default"]))
    assert "service_tiers" not in cli_json("show", T)["session"]


def test_a_turn_context_s_tier_counts_and_its_null_is_the_standard_tier() -> None:
    """Codex's own reader of a rollout (``codex_state``'s config baseline) takes a turn
    context's ``service_tier`` whole, ``None`` too: a ``null`` is no tier (pass 52)."""
    scanner = FileUsageScanner()
    calls = Calls()
    context = turn_context(LATE, model="gpt-5.5")
    for record in [meta(T, LATE), _settings(LATE, "priority"), dict(context, payload={**context["payload"],
                                                                                     "service_tier": None}),
                   calls.call(LATE + timedelta(seconds=1), 100),
                   dict(context, payload={**context["payload"], "service_tier": "flex"}),
                   calls.call(LATE + timedelta(seconds=2), 100)]:
        scanner.feed(record)
    assert [event.model for event in scanner.events] == ["gpt-5.5", "gpt-5.5 (flex)"]
