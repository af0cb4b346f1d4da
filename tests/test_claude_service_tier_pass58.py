"""Pass 58: a Claude call on a service tier other than the standard one (``usage.service_tier``
``priority``, ``batch``; Claude Code writes ``standard`` on every call of an ordinary account) is
priced at the standard rates, as ccusage prices it, and every view says so once a file
(``valuewarnings.note_tier``): Anthropic bills a Priority Tier call against an organisation's
capacity commitment, whose price no price list has, and Claude Code sends no Message Batches
request (docs/pricing.md, "Service tiers")."""

from __future__ import annotations

from pathlib import Path

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json

S = "5e7ac7ed-5858-4000-8000-0000000000e1"
MODEL = "claude-sonnet-4-5-20250929"


def _call(second: int, tier: object, request: str) -> dict:
    usage = {**claude_usage(1000, 100), "service_tier": tier}
    return claude_assistant(S, f"2026-11-20T10:00:{second:02d}.000Z", msg_id=f"msg_{request}", request_id=request,
                            usage=usage, model=MODEL, uuid=f"a{second}")


def _session(home: Path, *tiers: object) -> None:
    claude_session_file(home, S, [claude_user(S, "2026-11-20T10:00:00.000Z", "go", uuid="u0"),
                                  *(_call(1 + n, tier, f"req_{n}") for n, tier in enumerate(tiers))])


def _tier_warnings(warnings: list[dict]) -> list[tuple[str, int | None]]:
    return [(w["message"], w["line"]) for w in warnings if "service tier" in w["message"]]


def test_a_priority_call_is_priced_at_the_standard_rates_and_said(isolated_home: Path) -> None:
    _session(isolated_home, "standard", "standard")
    standard = cli_json("tokens")["cost_usd"]
    _session(isolated_home, "standard", "priority", "priority")
    # (each call is the same: three at the standard price)
    report = cli_json("tokens", "--no-cache")
    assert report["cost_usd"] == round(standard * 3 / 2, 6) and report["unpriced_models"] == []
    (said,) = _tier_warnings(report["warnings"])
    assert said[1] == 3  # the first such call's line
    assert "service_tier is 'priority'" in said[0] and "priced at the standard rates" in said[0]
    assert "the first of 2 such values in this file" in said[0]
    # cached and warm runs say it again, and the row's views say the same warning
    assert _tier_warnings(cli_json("tokens")["warnings"]) == [said]
    assert _tier_warnings(cli_json("tokens")["warnings"]) == [said]
    assert _tier_warnings(cli_json("list", "--all", "--no-cache")["warnings"]) == [said]
    assert _tier_warnings(cli_json("list", "--all")["warnings"]) == [said]
    assert _tier_warnings(cli_json("show", S)["warnings"]) == [said]


def test_batch_and_an_unknown_tier_are_said_too_standard_is_not(isolated_home: Path) -> None:
    _session(isolated_home, "batch", "standard", None, "mystery")
    said = _tier_warnings(cli_json("tokens")["warnings"])
    assert [line for _, line in said] == [2]  # once a file: the first one's
    assert "service_tier is 'batch'" in said[0][0] and "Message Batches" in said[0][0]
    _session(isolated_home, "standard", None)
    assert _tier_warnings(cli_json("tokens", "--no-cache")["warnings"]) == []


def test_text_that_names_no_tier_is_not_said(isolated_home: Path) -> None:
    # a shared sample's trimmed value (fixtures/real/claude has one) says nothing of the rates
    _session(isolated_home, "standard", "[trimmed for fixture]", "priority flex?")
    assert _tier_warnings(cli_json("tokens", "--no-cache")["warnings"]) == []
    _session(isolated_home, "standard", "[trimmed for fixture]", "flex")
    assert [line for _, line in _tier_warnings(cli_json("tokens", "--no-cache")["warnings"])] == [4]


def test_a_value_that_is_no_string_is_not_said(isolated_home: Path) -> None:
    # a number, an object, true: no tier's name, as free text is none (docs/pricing.md)
    _session(isolated_home, "standard", 7, {"tier": "priority"}, True, ["priority"])
    assert _tier_warnings(cli_json("tokens", "--no-cache")["warnings"]) == []
    _session(isolated_home, "standard", 7, "priority")
    assert [line for _, line in _tier_warnings(cli_json("tokens", "--no-cache")["warnings"])] == [4]

