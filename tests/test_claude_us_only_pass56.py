"""Pass 56: a Claude call whose ``usage.inference_geo`` is ``"us"`` (US-only inference, Claude
Opus 4.6 and later) is billed at 1.1x every token rate (Anthropic's data residency docs; the
AWS Claude Platform page: "A 1.1x pricing multiplier applies").  genai-prices 0.2.5, the newest
release, has no such price, so agentscan counts the call under ``<model> (us-only)`` and prices
it at its model's rates times 1.1 (``pricing.inferencegeo``); web searches are no tokens and keep
their price.  Known answers from Anthropic's list prices (Opus 4.6 and Opus 5: $5 in, $25 out,
$0.50 cache read, $6.25 five-minute and $10 one-hour cache write per MTok; $10 per 1,000 searches)."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

from agentscan.otlp.semconv import api_model
from agentscan.providers.claude.usage import C_MODEL, Advisors, call_of
from builders import REAL, claude_assistant, claude_session_file, claude_usage, claude_user, cli_json

S = "9e09e09e-5656-4000-8000-000000000001"
OPUS_46 = "claude-opus-4-6"
TOKENS = dict(input=1_000, output=2_000, cache_read=30_000, cache_write=4_000)


def _at(second: int) -> str:
    return f"2026-11-20T10:00:{second:02d}.000Z"


def _call(second: int, geo: str | None, *, model: str = OPUS_46, **usage: Any) -> dict:
    counts = claude_usage(**TOKENS, **usage)
    if geo is not None:
        counts["inference_geo"] = geo
    return claude_assistant(S, _at(second), msg_id=f"msg_{second}", request_id=f"req_{second}", model=model,
                            usage=counts, uuid=f"a{second}")


def _costs(home: Path, *calls: dict) -> dict[str, Decimal]:
    claude_session_file(home, S, [claude_user(S, _at(1), "go"), *calls])
    rows = cli_json("tokens", "--by", "model")["rows"]
    return {row["key"]: Decimal(str(row["cost_usd"])) for row in rows}


def test_only_a_us_call_is_on_the_us_only_model() -> None:
    geos = ["us", "global", "", "not_available", None, "US", "eu"]  # "US": not the API's value
    calls = [call_of(_call(n, geo), None, n) for n, geo in enumerate(geos, 2)]
    assert [call[C_MODEL] for call in calls if call is not None] == ["claude-opus-4-6 (us-only)"] + [OPUS_46] * 6
    fast = call_of(_call(9, "us", model="claude-opus-4-8", speed="fast"), None, 9)
    assert fast is not None and fast[C_MODEL] == "claude-opus-4-8-fast (us-only)"
    # Only Anthropic's own names: the API parameter is the Claude API's (a gateway's model keeps its name).
    other = call_of(_call(10, "us", model="grok-4"), None, 10)
    assert other is not None and other[C_MODEL] == "grok-4"


def test_a_us_call_costs_1_1_times_the_list_price(isolated_home: Path) -> None:
    costs = _costs(isolated_home, _call(2, "us"), _call(3, "global"))
    # 1,000 x $5 + 30,000 x $0.50 + 4,000 x $6.25 + 2,000 x $25 per MTok = $0.095
    assert costs[OPUS_46] == Decimal("0.095")
    assert costs["claude-opus-4-6 (us-only)"] == Decimal("0.1045")


def test_one_hour_writes_are_multiplied_and_web_searches_are_not(isolated_home: Path) -> None:
    call = _call(2, "us", cache_creation={"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 4_000},
                 server_tool_use={"web_search_requests": 2, "web_fetch_requests": 0})
    costs = _costs(isolated_home, call)
    # tokens: $0.005 + $0.015 + 4,000 x $10/MTok = $0.04 + $0.05 = $0.11, x1.1 = $0.121; searches 2 x $0.01
    assert costs == {"claude-opus-4-6 (us-only)": Decimal("0.141")}


def test_an_advisor_s_call_runs_where_its_request_did() -> None:
    record = _call(2, "us", iterations=[
        {"type": "message", "input_tokens": 1_000, "output_tokens": 2_000},
        {"type": "advisor_message", "model": OPUS_46, "input_tokens": 500, "output_tokens": 50},
    ])
    record["advisorModel"] = OPUS_46
    advisors = Advisors()
    call_of(record, None, 2, advisors=advisors)
    assert [call[C_MODEL] for call in advisors] == ["claude-opus-4-6 (us-only)"]


def test_the_derived_catalog_s_us_call(isolated_home: Path) -> None:
    # The one ``"inference_geo": "us"`` call of the derived 2.1.x catalog sample: claude-opus-5,
    # 10 in and 5 out: $0.000175 at list price, $0.0001925 US-only.
    project = isolated_home / ".claude" / "projects" / "p"
    project.mkdir(parents=True)
    shutil.copyfile(REAL / "claude" / "derived-agent-sessions-schema-catalog-v2.1.x.jsonl",
                    project / "ses_stage0_small.jsonl")
    rows = {row["key"]: row for row in cli_json("tokens", "--by", "model")["rows"]}
    us = rows["claude-opus-5 (us-only)"]
    assert (us["tokens"]["input"], us["tokens"]["output"]) == (10, 5)
    assert Decimal(str(us["cost_usd"])) == Decimal("0.0001925")


def test_prices_and_otlp_name_the_model_the_request_named() -> None:
    found = cli_json("prices", "claude-opus-4-6 (us-only)")["models"][0]
    assert found["model_id"] == OPUS_46
    assert (found["price_fields"]["input_mtok"], found["price_fields"]["output_mtok"]) == (5.5, 27.5)
    assert found["price_fields"]["web_searches_kcount"] == 10.0
    assert api_model("claude-opus-4-8-fast (us-only)", "claude") == ("claude-opus-4-8", "fast")
    assert api_model("claude-opus-4-6 (us-only)", "claude") == (OPUS_46, None)
