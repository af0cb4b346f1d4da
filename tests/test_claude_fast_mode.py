"""Claude Code's fast mode (2.1.36 on): ``message.usage.speed`` says the speed a call ran at,
``"fast"`` or ``"standard"``, and the model id stays the base model's.  A fast call is counted
on ``<model>-fast`` and priced at genai-prices' fast-mode price of its model (the price variant
``when == {"speed": "fast"}``); a model the library has no fast-mode price for (Opus 4.6 and
4.7) has none at all, never the standard one."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.context import ScanContext
from agentscan.pricing import PriceBook, library, source
from agentscan.providers.claude.usage import C_MODEL, HAS_SPEED, Advisors, call_of
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke

S = "fa570000-0000-4000-8000-000000000001"
OPUS_48, OPUS_46 = "claude-opus-4-8", "claude-opus-4-6"
CURSOR_FAST = "claude-4.6-opus-high-thinking-fast"
WHEN = datetime(2026, 8, 1, 10, 0, tzinfo=UTC)
TOKENS = dict(input=1_000, output=2_000, cache_read=30_000, cache_write=4_000)


def _at(second: int) -> str:
    return f"2026-08-01T10:00:{second:02d}.000Z"


def _usage(speed: str | None, **extra: Any) -> dict:
    usage = claude_usage(**TOKENS, **extra)
    if speed is not None:
        usage["speed"] = speed
    return usage


def _call(second: int, speed: str | None, *, model: str = OPUS_48, msg: str | None = None,
          request: str | None = None, usage: dict | None = None, **extra: Any) -> dict:
    return claude_assistant(S, _at(second), msg_id=msg or f"msg_{second}", request_id=request or f"req_{second}",
                            model=model, usage=_usage(speed) if usage is None else usage, uuid=f"a{second}", **extra)


def _session(home: Path, *calls: dict) -> None:
    claude_session_file(home, S, [claude_user(S, _at(1), "go"), *calls])


def _genai(model: str, speed: str | None) -> Decimal:
    """genai-prices' own price of one call of ``TOKENS``."""
    from genai_prices import Usage, calc_price

    usage = Usage(input_tokens=TOKENS["input"] + TOKENS["cache_read"] + TOKENS["cache_write"],
                  cache_read_tokens=TOKENS["cache_read"], cache_write_tokens=TOKENS["cache_write"],
                  output_tokens=TOKENS["output"])
    context = {"speed": speed} if speed is not None else None
    return calc_price(usage, model, provider_id="anthropic", genai_request_timestamp=WHEN,
                      price_context=context).total_price


def _by_model(*args: str) -> dict[str, dict]:
    return {row["key"]: row for row in cli_json("tokens", "--by", "model", *args)["rows"]}


# -- what a call is counted on ---------------------------------------------------------

def test_only_a_fast_call_is_on_the_fast_mode_model() -> None:
    speeds = ["fast", "standard", None, "FAST", "turbo"]  # None: builds before 2.1.36; "FAST": not the API's value
    calls = [call_of(_call(n, speed), None, n) for n, speed in enumerate(speeds, 2)]
    assert [call[C_MODEL] for call in calls if call is not None] == ["claude-opus-4-8-fast"] + [OPUS_48] * 4
    assert [call[HAS_SPEED] for call in calls if call is not None] == [True, True, False, True, True]


def test_only_a_claude_model_has_a_fast_mode_name() -> None:
    # A gateway's model with ``speed: fast`` keeps its name: ``grok-4-fast`` is another model.
    for model, counted in (("grok-4", "grok-4"), ("claude-opus-4-8-fast", "claude-opus-4-8-fast")):
        call = call_of(_call(2, "fast", model=model), None, 2)
        assert call is not None and call[C_MODEL] == counted


def test_the_fast_mode_model_is_one_string() -> None:
    first, second = (call_of(_call(n, "fast"), None, n) for n in (2, 3))
    assert first is not None and second is not None
    assert first[C_MODEL] == "claude-opus-4-8-fast" and first[C_MODEL] is second[C_MODEL]


# -- prices ------------------------------------------------------------------------------

def test_a_fast_call_costs_the_librarys_fast_mode_price(isolated_home: Path) -> None:
    _session(isolated_home, _call(2, "fast"), _call(3, "standard"), _call(4, None))
    rows = _by_model()
    assert set(rows) == {"claude-opus-4-8-fast", OPUS_48}  # fast spend on a row of its own
    fast, standard = rows["claude-opus-4-8-fast"], rows[OPUS_48]
    assert fast["tokens"]["total"] * 2 == standard["tokens"]["total"]
    assert Decimal(str(fast["cost_usd"])) == _genai(OPUS_48, "fast") == 2 * _genai(OPUS_48, None)
    assert Decimal(str(standard["cost_usd"])) == 2 * _genai(OPUS_48, None)
    report = cli_json("tokens")
    assert report["warnings"] == [] and report["unpriced_models"] == []


def test_a_fast_call_of_a_model_with_no_fast_mode_price_has_no_price(isolated_home: Path) -> None:
    _session(isolated_home, _call(2, "fast", model=OPUS_46), _call(3, "standard", model=OPUS_46))
    report = cli_json("tokens", "--by", "model")
    rows = {row["key"]: row for row in report["rows"]}
    assert rows["claude-opus-4-6-fast"]["cost_usd"] is None  # never the standard price (6x too low)
    assert Decimal(str(rows[OPUS_46]["cost_usd"])) == _genai(OPUS_46, None)
    assert report["cost_usd"] is None and report["unpriced_models"] == ["claude-opus-4-6-fast"]
    assert Decimal(str(report["cost_usd_priced"])) == _genai(OPUS_46, None)
    (warning,) = report["warnings"]
    assert warning["path"] == "model:claude/claude-opus-4-6-fast"
    assert "no fast-mode price for 'claude-opus-4-6'" in warning["message"]
    table = invoke("tokens").stdout
    assert "≥$" in table


@pytest.mark.parametrize("model", ["claude-opus-4-6-fast", "claude-opus-4-7-fast"])
def test_opus_4_6_and_4_7_have_no_fast_mode_price(model: str) -> None:
    book = PriceBook(ScanContext.create(env={"AGENTSCAN_DATA_DIR": "/nonexistent"}))
    key = book.key("claude", model, WHEN.timestamp(), 10_000)
    assert key < 0 and book.unpriced[-key - 1][2].startswith("genai-prices has no fast-mode price for 'claude-opus-4-")
    assert book.key("claude", model.removesuffix("-fast"), WHEN.timestamp(), 10_000) >= 0


def test_prices_shows_the_fast_mode_price() -> None:
    found = cli_json("prices", "claude-opus-4-8-fast")["models"]
    assert found[0]["model_id"] == OPUS_48 and found[0]["price_fields"]["input_mtok"] == 10
    assert cli_json("prices", "claude-opus-4-8")["models"][0]["price_fields"]["input_mtok"] == 5
    assert cli_json("prices", "-p", "claude", "claude-opus-4-6-fast")["models"][0]["model_id"] is None


def test_cursor_s_fast_variant_stays_unpriced() -> None:
    """Cursor's ``-fast`` is a display name's word, not Claude Code's fast-mode name: no price."""
    book = PriceBook(ScanContext.create(env={"AGENTSCAN_DATA_DIR": "/nonexistent"}))
    assert book.key("cursor", CURSOR_FAST, WHEN.timestamp(), 10_000) < 0
    with pytest.raises(library.NotPriceable, match="fast variant"):
        library.find(source.current({}), None, CURSOR_FAST)


def test_an_answer_remembered_before_fast_mode_was_priced_is_asked_again(isolated_home: Path) -> None:
    """The index keeps each name's answer per price data version: "no price" for a fast-mode
    name (the variant rule's, from before it was priced) must not outlive this change."""
    from agentscan.scan.cache import Cache

    _session(isolated_home, _call(2, "fast"))
    ctx = ScanContext.create(home=isolated_home)
    data = source.current(ctx.env)
    cache = Cache.open(ctx)
    assert cache is not None
    cache.put_price(data.key, "claude", "claude-opus-4-8-fast", {
        "unpriced": "genai-prices has no price for 'claude-opus-4-8-fast', a fast variant (billed at other rates "
                    "than 'claude-opus-4-8', whose name it starts with)", "variants": 1})
    cache.commit()
    cache.close()
    rows = _by_model()
    assert Decimal(str(rows["claude-opus-4-8-fast"]["cost_usd"])) == _genai(OPUS_48, "fast")
    assert cli_json("tokens")["warnings"] == []


# -- copies and advisors ---------------------------------------------------------------

def test_of_two_copies_of_a_call_the_one_with_speed_is_counted(isolated_home: Path) -> None:
    # Equal totals: the copy without ``speed`` comes first, and would win a tie on file order.
    _session(isolated_home, _call(2, None, msg="msg_1", request="req_1"),
             _call(3, "fast", msg="msg_1", request="req_1"))
    rows = _by_model()
    assert set(rows) == {"claude-opus-4-8-fast"}
    assert rows["claude-opus-4-8-fast"]["tokens"]["total"] == sum(TOKENS.values())  # once
    assert Decimal(str(rows["claude-opus-4-8-fast"]["cost_usd"])) == _genai(OPUS_48, "fast")


def _advisor(speed: str | None) -> dict:
    entry: dict[str, Any] = {"type": "advisor_message", "model": OPUS_48, "input_tokens": 700, "output_tokens": 70,
                             "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    if speed is not None:
        entry["speed"] = speed
    return entry


def test_an_advisor_call_has_its_own_speed() -> None:
    main = {"type": "message", "input_tokens": 1, "output_tokens": 1}
    usage = _usage("fast", iterations=[main, _advisor(None), main, _advisor("fast"), main, _advisor("standard")])
    advisors = Advisors()
    call = call_of(_call(2, "fast", model="claude-sonnet-4-6", usage=usage), None, 0, advisors=advisors)
    assert call is not None and call[C_MODEL] == "claude-sonnet-4-6-fast"
    found: list = []
    advisors.drain(found.append)
    assert [c[C_MODEL] for c in found] == [OPUS_48, "claude-opus-4-8-fast", OPUS_48]


def test_a_standard_call_s_advisor_in_fast_mode_is_fast(isolated_home: Path) -> None:
    main = {"type": "message", "input_tokens": 1, "output_tokens": 1}
    usage = _usage("standard", iterations=[main, _advisor("fast"), main])
    _session(isolated_home, _call(2, "standard", usage=usage))
    rows = _by_model()
    assert rows["claude-opus-4-8-fast"]["tokens"]["input"] == 700
    assert rows[OPUS_48]["tokens"]["input"] == TOKENS["input"]


# -- OTLP ----------------------------------------------------------------------------------

def test_an_otlp_chat_span_names_the_api_model_and_the_speed(isolated_home: Path, tmp_path: Path) -> None:
    from otlp_builders import otlp, read_otlp_file

    _session(isolated_home, _call(2, "fast"), _call(3, "standard"))
    out = tmp_path / "traces.jsonl"
    result = otlp("--output", str(out), "--json")
    assert result.exit_code == 0, result.output
    (spans,) = read_otlp_file(out)
    chats = sorted((s for s in spans if s.name.startswith("chat")), key=lambda s: s.end)
    assert [s.name for s in chats] == [f"chat {OPUS_48}"] * 2
    assert [s.attrs.get("agentscan.request.speed") for s in chats] == ["fast", None]
    assert [s.attrs["gen_ai.request.model"] for s in chats] == [OPUS_48] * 2
    fast_cost = chats[0].attrs["agentscan.cost_usd"]
    assert fast_cost == pytest.approx(float(_genai(OPUS_48, "fast")), abs=1e-12)  # priced as fast
    root = next(s for s in spans if not s.parent)
    assert root.attrs["gen_ai.request.model"] == OPUS_48
    assert orjson.loads(result.stdout)["warnings"] == []


@pytest.mark.parametrize("model", ["grok-4-fast", "composer-2.5-fast"])
def test_another_vendor_s_model_named_fast_keeps_its_own_price(model: str) -> None:
    """A Claude Code session routed to a model whose own name ends in ``-fast`` is no fast-mode
    call of a Claude model: it is priced as the library prices that name."""
    from agentscan.otlp.semconv import api_model

    book = PriceBook(ScanContext.create(env={"AGENTSCAN_DATA_DIR": "/nonexistent"}))
    assert book.key("claude", model, WHEN.timestamp(), 10_000) >= 0
    assert api_model(model, "claude") == (model, None)
    assert api_model("claude-opus-4-8-fast", "claude") == (OPUS_48, "fast")
