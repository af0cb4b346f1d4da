"""Claude Code on Amazon Bedrock records Bedrock's name of the model it ran
(``us.anthropic.claude-sonnet-4-20250514-v1:0``, or the inference profile a user set, such as
``eu.anthropic.claude-opus-4-7``).  Anthropic's price list has no such name: those calls are
priced at Bedrock's own rates, which genai-prices lists under its ``aws`` provider."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentscan.context import ScanContext
from agentscan.pricing import PriceBook, aliases, source
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json

S = "bed70000-0000-4000-8000-000000000001"
WHEN = datetime(2026, 8, 1, 10, 0, tzinfo=UTC)
TOKENS = dict(input=1_000, output=2_000, cache_read=30_000, cache_write=4_000)
BEDROCK = "us.anthropic.claude-sonnet-4-20250514-v1:0"
PROFILE = "eu.anthropic.claude-opus-4-7"


def _genai(model: str) -> Decimal:
    """genai-prices' own price of one call of ``TOKENS`` on Bedrock."""
    from genai_prices import Usage, calc_price

    usage = Usage(input_tokens=TOKENS["input"] + TOKENS["cache_read"] + TOKENS["cache_write"],
                  cache_read_tokens=TOKENS["cache_read"], cache_write_tokens=TOKENS["cache_write"],
                  output_tokens=TOKENS["output"])
    return calc_price(usage, model, provider_id="aws", genai_request_timestamp=WHEN).total_price


def _session(home: Path, *models: str) -> None:
    calls = [claude_assistant(S, f"2026-08-01T10:00:{n:02d}.000Z", msg_id=f"msg_{n}", request_id=f"req_{n}",
                              model=model, usage=claude_usage(**TOKENS), uuid=f"a{n}")
             for n, model in enumerate(models, 2)]
    claude_session_file(home, S, [claude_user(S, "2026-08-01T10:00:01.000Z", "go"), *calls])


@pytest.mark.parametrize("name, bedrock", [
    ("anthropic.claude-3-7-sonnet-20250219-v1:0", True),
    (BEDROCK, True),
    ("global.anthropic.claude-sonnet-4-5-20250929-v1:0", True),
    ("apac.anthropic.claude-sonnet-4-20250514-v1:0", True),
    ("us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0", True),  # GovCloud
    ("arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-20250514-v1:0", True),
    ("bedrock/us.anthropic.claude-sonnet-4-20250514-v1:0", True),  # LiteLLM's
    (PROFILE, True),
    ("claude-sonnet-4-5-20250929", False),
    ("claude-sonnet-4-5@20250929", False),  # Vertex AI's name: Anthropic's price
    ("anthropic/claude-sonnet-4.5", False),  # a gateway's
    ("us.amazon.nova-pro-v1:0", False),
])
def test_a_bedrock_name_is_told_by_its_shape(name: str, bedrock: bool) -> None:
    assert (aliases.bedrock_ref(name) is not None) is bedrock


@pytest.mark.parametrize("model", [BEDROCK, PROFILE, "global.anthropic.claude-haiku-4-5-20251001-v1:0"])
def test_a_bedrock_call_costs_bedrock_s_price(isolated_home: Path, model: str) -> None:
    _session(isolated_home, model)
    report = cli_json("tokens", "--by", "model")
    (row,) = report["rows"]
    assert row["key"] == model  # counted under the name recorded
    assert Decimal(str(row["cost_usd"])) == _genai(model) > 0
    assert report["warnings"] == [] and report["unpriced_models"] == []


def test_a_regional_profile_pays_bedrock_s_premium() -> None:
    """A regional profile is dearer than Anthropic's own price: Bedrock's, not Anthropic's, is used."""
    from genai_prices import Usage, calc_price

    book = PriceBook(ScanContext.create(env={"AGENTSCAN_DATA_DIR": "/nonexistent"}))
    million_in = [1_000_000, 0, 0, 0, 0, 0, 0, 0]
    bedrock = book.cost({book.key("claude", PROFILE, WHEN.timestamp(), 10_000): million_in})
    anthropic = book.cost({book.key("claude", "claude-opus-4-7", WHEN.timestamp(), 10_000): million_in})
    usage = Usage(input_tokens=1_000_000)
    assert bedrock == calc_price(usage, PROFILE, provider_id="aws", genai_request_timestamp=WHEN).total_price
    assert anthropic == calc_price(usage, "claude-opus-4-7", provider_id="anthropic",
                                   genai_request_timestamp=WHEN).total_price
    assert bedrock is not None and anthropic is not None and bedrock > anthropic


def test_prices_names_the_bedrock_price() -> None:
    (found,) = cli_json("prices", "-p", "claude", BEDROCK)["models"]
    assert found["provider"] == "aws" and found["model_id"].endswith("anthropic.claude-sonnet-4-20250514-v1:0")


def test_a_no_price_remembered_under_an_older_rule_is_asked_again(isolated_home: Path) -> None:
    """The index keeps each name's answer per price data version: "no price" for a Bedrock
    id, remembered before Bedrock's names were priced, must not outlive this change."""
    from agentscan.scan.cache import Cache

    _session(isolated_home, BEDROCK)
    ctx = ScanContext.create(home=isolated_home)
    cache = Cache.open(ctx)
    assert cache is not None
    cache.put_price(source.current(ctx.env).key, "claude", BEDROCK,
                    {"unpriced": f"genai-prices has no model matching {BEDROCK!r}", "variants": 3})
    cache.commit()
    cache.close()
    report = cli_json("tokens")
    assert report["warnings"] == [] and Decimal(str(report["cost_usd"])) == _genai(BEDROCK)


@pytest.mark.parametrize("name, profile", [
    ("arn:aws:bedrock:us-east-1:123456789012:inference-profile/" + BEDROCK, BEDROCK),
    ("bedrock/" + BEDROCK, BEDROCK),
])
def test_an_arn_or_a_gateway_s_path_before_a_profile_is_priced_as_the_profile(name: str, profile: str) -> None:
    book = PriceBook(ScanContext.create(env={"AGENTSCAN_DATA_DIR": "/nonexistent"}))
    million_in = [1_000_000, 0, 0, 0, 0, 0, 0, 0]
    assert book.cost({book.key("claude", name, WHEN.timestamp(), 10_000): million_in}) == \
        book.cost({book.key("claude", profile, WHEN.timestamp(), 10_000): million_in}) is not None


def test_a_bedrock_call_in_fast_mode_has_no_price_never_the_standard_one(isolated_home: Path) -> None:
    """Fast mode bills more; the library has no Bedrock fast-mode price: unpriced, as Opus 4.6's."""
    usage = claude_usage(**TOKENS)
    usage["speed"] = "fast"
    calls = [claude_assistant(S, "2026-08-01T10:00:02.000Z", msg_id="msg_f", request_id="req_f", model=BEDROCK,
                              usage=usage, uuid="af"),
             claude_assistant(S, "2026-08-01T10:00:03.000Z", msg_id="msg_s", request_id="req_s", model=BEDROCK,
                              usage=claude_usage(**TOKENS), uuid="as")]
    claude_session_file(isolated_home, S, [claude_user(S, "2026-08-01T10:00:01.000Z", "go"), *calls])
    report = cli_json("tokens", "--by", "model")
    rows = {row["key"]: row for row in report["rows"]}
    assert set(rows) == {BEDROCK, BEDROCK + "-fast"}
    assert rows[BEDROCK + "-fast"]["cost_usd"] is None
    assert Decimal(str(rows[BEDROCK]["cost_usd"])) == _genai(BEDROCK)
    assert report["unpriced_models"] == [BEDROCK + "-fast"]
    assert aliases.fast_mode_base(BEDROCK + "-fast") == BEDROCK
