"""A model whose own name ends in a service tier's word (genai-prices' Fireworks router
``…-flash-1017-ultrafast``, ``gemini-2.5-pro-flex``) is that model, priced and named as written
everywhere (``list``, ``show``, ``tokens``, ``otlp``, ``prices``): only a name agentscan built
from a tier Codex recorded (``<model> (<tier>)``, ``aliases.service_tier_name``) is read as a
tier.  And a tier call made before the data's tier prices start is said to be so."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson

from builders import cli_json, invoke
from codex_builders import Calls, line, meta, rollout_path, task_started, turn_context, user_message, write_rollout

T = "019d1000-0000-7000-8000-000000000054"
LATE = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
EARLY = datetime(2026, 8, 3, 9, 0, tzinfo=UTC)
ROUTER = "accounts/fireworks/routers/deepseek-v4p1-flash-1017-ultrafast"


def _thread(start: datetime, model: str, tiers: list[str]) -> list[dict[str, Any]]:
    """One call of 10,000 input (4,000 cached) and 1,000 output tokens per tier, in order."""
    calls = Calls()
    lines = [meta(T, start), task_started(start + timedelta(seconds=1)),
             turn_context(start + timedelta(seconds=1), model=model), user_message(start, "go")]
    for index, tier in enumerate(tiers):
        moment = start + timedelta(seconds=10 * (index + 1))
        lines += [line(moment, "event_msg", {"type": "thread_settings_applied", "thread_settings": {
                      "cwd": "/work/project", "model": model, "model_provider_id": "openai", "service_tier": tier}}),
                  calls.call(moment + timedelta(seconds=5), 10_000, 4_000, 1_000)]
    return lines


def _genai(model: str) -> Decimal:
    from genai_prices import Usage, calc_price

    usage = Usage(input_tokens=10_000, cache_read_tokens=4_000, output_tokens=1_000)
    return calc_price(usage, model, genai_request_timestamp=LATE).total_price


def test_a_model_named_with_a_tier_word_is_priced_and_named_as_written(isolated_home: Path, tmp_path: Path) -> None:
    write_rollout(rollout_path(isolated_home / ".codex", T, LATE), _thread(LATE, ROUTER, ["default", "default"]))
    price = _genai(ROUTER)
    (row,) = cli_json("list", "--all")["sessions"]
    assert row["model"] == ROUTER
    assert Decimal(str(row["cost_usd"])) == 2 * price
    shown = cli_json("show", T)
    assert shown["session"]["model"] == ROUTER and "service_tiers" not in shown["session"]
    assert "tier" not in next(text for text in invoke("show", T).stdout.splitlines() if text.startswith("  cost"))
    doc = cli_json("tokens", "--by", "model")
    assert [(each["key"], Decimal(str(each["cost_usd"]))) for each in doc["rows"]] == [(ROUTER, 2 * price)]
    assert not doc["warnings"]
    out = tmp_path / "spans.jsonl"
    assert invoke("otlp", T, "-o", str(out)).exit_code == 0
    chats = [{a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}
             for raw in out.read_bytes().splitlines() for resource in orjson.loads(raw)["resourceSpans"]
             for scope in resource["scopeSpans"] for span in scope["spans"] if span["name"].startswith("chat")]
    assert [(chat["gen_ai.request.model"], chat.get("openai.request.service_tier")) for chat in chats] == [
        (ROUTER, None), (ROUTER, None)]


def test_a_tier_call_of_such_a_model_keeps_the_model_s_name(isolated_home: Path) -> None:
    write_rollout(rollout_path(isolated_home / ".codex", T, LATE), _thread(LATE, ROUTER, ["default", "priority"]))
    (row,) = cli_json("list", "--all")["sessions"]
    assert row["model"] == ROUTER
    keys = [each["key"] for each in cli_json("tokens", "--by", "model")["rows"]]
    assert sorted(keys) == sorted([ROUTER, f"{ROUTER} (priority)"])
    assert cli_json("show", T)["session"]["service_tiers"] == {"default": 1, "priority": 1}


def test_prices_names_ending_in_a_tier_word_as_written(isolated_home: Path) -> None:
    doc = cli_json("prices", ROUTER, "gemini-2.5-pro-flex", "--at", "2026-11-02")
    router, gemini = doc["models"]
    assert (router["provider"], router["model_id"]) == ("fireworks", "deepseek-v4p1-flash-1017-ultrafast")
    assert not router["name"].endswith(" tier")
    assert (gemini["provider"], gemini["model_id"], gemini["name"]) == ("google", "gemini-2.5-pro", "Gemini 2.5 Pro")
    assert not doc["warnings"]
    table = invoke("prices", ROUTER, "--at", "2026-11-02").stdout
    assert "ultrafast tier" not in table


def test_the_tier_names_are_read_in_one_place() -> None:
    from agentscan.pricing.aliases import service_tier_name, service_tier_of

    assert service_tier_of(service_tier_name("gpt-5.5", "fast")) == ("gpt-5.5", "priority")
    assert service_tier_of(service_tier_name(ROUTER, "flex")) == (ROUTER, "flex")
    for name in (ROUTER, "gemini-2.5-pro-flex", "gpt-5.5-priority", "gpt-5.5", "x (fast)"):
        assert service_tier_of(name) == (name, None)
    assert service_tier_name("gpt-5.5", "default") == service_tier_name("gpt-5.5", None) == "gpt-5.5"


def test_a_tier_call_before_the_tier_prices_start_says_the_date(isolated_home: Path) -> None:
    """Not the hint for a model newer than the data: an update prices no call the tier had
    no price for then."""
    write_rollout(rollout_path(isolated_home / ".codex", T, EARLY), _thread(EARLY, "gpt-5.5", ["priority"]))
    (warning,) = [w["message"] for w in cli_json("tokens", "--by", "model")["warnings"] if "tier" in w["message"]]
    assert "no priority-tier price for 'gpt-5.5' before 2026-10-12" in warning, warning
    assert "prices --update" not in warning and "newer" not in warning, warning


def test_a_tier_spelt_with_a_dash_is_pointed_at_its_name(isolated_home: Path) -> None:
    """``prices`` prices a name as written; an OpenAI model's name ending in a tier's word is
    pointed at the name a tier call is counted under (quoted, as a shell takes it back), or has
    its tier's gap said, never another model's tier offered."""
    said = invoke("prices", "gpt-5.5-priority", "--at", "2026-11-02").stderr
    assert "gpt-5.5-priority: did you mean 'gpt-5.5 (priority)'?" in said, said
    mini = invoke("prices", "gpt-5.1-codex-mini-priority", "--at", "2026-11-02").stderr
    assert "no priority-tier price for gpt-5.1-codex-mini" in " ".join(mini.split()) and "did you mean" not in mini
    # genai-prices matches ``gpt-5-nano`` by its start: the standard price, and said so
    nano = invoke("prices", "gpt-5-nano-flex", "--at", "2026-11-02")
    assert "openai/gpt-5-nano " in nano.stdout and "flex tier" not in nano.stdout
    assert ("gpt-5-nano-flex is priced as written, at openai/gpt-5-nano's standard price; a Codex call on the"
            " flex tier is 'gpt-5-nano (flex)'") in " ".join(nano.stderr.split())
    assert "priced as written" not in invoke("prices", "gemini-2.5-pro-flex").stderr  # (no OpenAI name)


def test_codex_s_own_alias_on_a_tier_is_still_said_to_be_one(isolated_home: Path) -> None:
    write_rollout(rollout_path(isolated_home / ".codex", T, LATE), _thread(LATE, "codex-auto-review", ["priority"]))
    (warning,) = [w["message"] for w in cli_json("tokens", "--by", "model")["warnings"]]
    assert "codex-auto-review (priority) is an alias Codex uses for its own review runs" in warning, warning


def test_prices_at_a_time_before_the_tier_s_prices_is_no_price(isolated_home: Path) -> None:
    """Not the standard rates said to be the priority tier's (``tokens`` leaves such a call
    unpriced): no price, and the date the tier's prices start."""
    (found,) = cli_json("prices", "gpt-5.5 (priority)", "--at", "2026-08-01")["models"]
    assert found["model_id"] is None and found["suggestions"] == []
    said = " ".join(invoke("prices", "gpt-5.5 (priority)", "--at", "2026-08-01").stderr.split())
    assert "its priority-tier prices for gpt-5.5 start 2026-10-12, after that time" in said, said


def test_a_price_remembered_at_a_tier_for_a_name_ending_in_its_word_is_asked_again(isolated_home: Path) -> None:
    """Price rule 5 priced ``gpt-5-nano-flex`` (as any agent recorded it) at ``gpt-5-nano``'s
    flex rate; the index's answer from then does not outlive this change."""
    from agentscan.context import ScanContext
    from agentscan.pricing import periods, source
    from agentscan.scan.cache import Cache

    write_rollout(rollout_path(isolated_home / ".codex", T, LATE), _thread(LATE, "gpt-5-nano-flex", ["default"]))
    ctx = ScanContext.create(home=isolated_home)
    cache = Cache.open(ctx)
    assert cache is not None
    stale = periods.Period(None, None, (), (tuple(Decimal(1) for _ in periods.PARTS),))  # type: ignore[arg-type]
    cache.put_price(source.current(ctx.env).key, "codex", "gpt-5-nano-flex", {
        "ref": "gpt-5-nano-flex", "provider_id": "openai", "model_id": "gpt-5-nano", "periods": [stale.to_json()],
        "variants": 5})
    cache.commit()
    cache.close()
    (row,) = cli_json("tokens", "--by", "model")["rows"]
    assert Decimal(str(row["cost_usd"])) == _genai("gpt-5-nano-flex")
