"""A Codex call on a tier with no price per token, said one way everywhere (pass 52, review).

- ``prices`` said of ``gpt-5.5 (scale)`` "it has no scale-tier price for gpt-5.5", a gap
  ``prices --update`` might seem to fill, where ``tokens``, ``list`` and ``show`` said the scale
  tier is paid for by committed units: now every command gives ``aliases.unpriced_tier``'s reason.
- ``prices "gpt-5.5 (Turbo)"`` answered "did you mean gpt-3.5-turbo?" though ``show`` said the
  session ran "on the turbo tier": a ``(word)`` that is a tier the person's Codex sessions
  recorded is read as that tier; ``gpt-5.5 (preview)`` stays as written.
- a tier whose recorded name is no word was named ``unknown`` (``gpt-5.5 (unknown tier)``,
  ``service_tiers {"unknown": 1}``, OTLP ``openai.request.service_tier = "unknown"``), which a real
  tier named ``unknown`` would be too: now ``?`` (``aliases.UNNAMED_TIER``), and no OTLP attribute.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from builders import cli_json, invoke
from codex_builders import rollout_path, write_rollout
from test_codex_tier_reset_pass52 import LATE, T, _settings, _thread


def _home(home: Path, *tiers: str) -> None:
    steps: list[dict[str, Any] | None] = []
    for tier in tiers:
        steps += [_settings(LATE, tier), None]
    write_rollout(rollout_path(home / ".codex", T, LATE), _thread(LATE, steps))


def _reasons(warnings: list[dict[str, str]]) -> dict[str, str]:
    """Each warning's model (``model:codex/gpt-5.5 (scale)``), with what it says after its name."""
    said = {}
    for warning in warnings:
        message = warning["message"]
        for lead in ("no price: ", f"no price for {warning['path'].partition('/')[2]!r}: "):
            if message.startswith(lead):
                said[warning["path"].partition("/")[2]] = message[len(lead):].partition("; ")[0]
    return said


def test_prices_says_why_a_tier_is_unpriced_as_tokens_does(isolated_home: Path) -> None:
    from agentscan.pricing.aliases import unpriced_tier

    _home(isolated_home, "scale", "turbo")
    tokens = _reasons(cli_json("tokens", "--by", "model")["warnings"])
    recorded = _reasons(cli_json("prices")["warnings"])
    asked = _reasons(cli_json("prices", "gpt-5.5 (scale)", "gpt-5.5 (turbo tier)", "--at", "2026-11-02")["warnings"])
    expected = {"gpt-5.5 (scale)": unpriced_tier("scale"), "gpt-5.5 (turbo tier)": unpriced_tier("turbo")}
    assert tokens == recorded == asked == expected
    assert "committed units" in expected["gpt-5.5 (scale)"] and "'turbo'" in expected["gpt-5.5 (turbo tier)"]
    # no "in genai-prices …": no price data has one
    text = invoke("prices", "gpt-5.5 (scale)", "--at", "2026-11-02")
    assert "genai-prices 0.2" not in text.stderr.split("warning:", 1)[1] and "scale-tier price" not in text.stderr


def test_a_typed_word_is_a_tier_the_sessions_recorded(isolated_home: Path) -> None:
    from agentscan.pricing.aliases import typed_tier_name

    assert typed_tier_name("gpt-5.5 (Turbo)") == "gpt-5.5 (Turbo)"
    assert typed_tier_name("gpt-5.5 (Turbo)", {"turbo"}) == "gpt-5.5 (turbo tier)"
    assert typed_tier_name("gpt-5.5 (preview)", {"turbo"}) == "gpt-5.5 (preview)"
    assert typed_tier_name("gpt-5.5 ( ? tier )") == "gpt-5.5 (? tier)"
    _home(isolated_home, "turbo")
    assert cli_json("show", T)["session"]["service_tiers"] == {"turbo": 1}
    doc = cli_json("prices", "gpt-5.5 (Turbo)", "gpt-5.5 (preview)", "--at", "2026-11-02")
    assert [found["query"] for found in doc["models"]] == ["gpt-5.5 (Turbo)", "gpt-5.5 (preview)"]
    turbo, preview = doc["models"]
    assert turbo["suggestions"] == [] and preview["suggestions"]  # (not "did you mean gpt-3.5-turbo?")
    assert [warning["path"] for warning in doc["warnings"]] == ["model:-/gpt-5.5 (turbo tier)",
                                                                "model:-/gpt-5.5 (preview)"]
    result = invoke("prices", "gpt-5.5 (Turbo)", "--at", "2026-11-02")
    assert "did you mean" not in result.stderr and "'turbo', a service tier agentscan does not know" in result.stderr


def test_a_tier_named_by_no_word_is_no_tier_s_name(isolated_home: Path) -> None:
    from agentscan.otlp.semconv import api_tier
    from agentscan.pricing.aliases import UNNAMED_TIER, service_tier_name, service_tier_of

    unnamed = service_tier_name("gpt-5.5", "no such tier!")
    assert unnamed == "gpt-5.5 (? tier)" and service_tier_of(unnamed) == ("gpt-5.5", UNNAMED_TIER)
    # a tier really named ``unknown`` is another tier
    assert service_tier_of(service_tier_name("gpt-5.5", "unknown")) == ("gpt-5.5", "unknown")
    assert api_tier(unnamed, "codex") == ("gpt-5.5", None)  # (no attribute: the request's tier is not known)
    assert api_tier("gpt-5.5 (turbo tier)", "codex") == ("gpt-5.5", "turbo")
    _home(isolated_home, "no such tier!", "unknown")
    shown = cli_json("show", T)["session"]
    assert shown["service_tiers"] == {"?": 1, "unknown": 1}
    rows = {row["key"] for row in cli_json("tokens", "--by", "model")["rows"]}
    assert rows == {"gpt-5.5 (? tier)", "gpt-5.5 (unknown tier)"}
    card = invoke("show", T)
    assert "1 on a tier whose recorded name is not a word, 1 on the unknown tier" in card.stdout, card.stdout


def test_the_tokens_table_marks_an_archived_thread_as_list_does(isolated_home: Path) -> None:
    """``list``'s TITLE read ``(archived) go`` and ``tokens``' ``go``: the table's facts (found
    without the row, ``providers.codex.tablefacts``) know it from discovery, as the row does."""
    write_rollout(rollout_path(isolated_home / ".codex", T, LATE, archived=True), _thread(LATE, [None]))
    # the facts found, then kept (a ``--since`` table is not remembered whole: it takes them back)
    for extra in ((), ("--since", "2026-11-01"), ("--no-cache",)):
        table = invoke("tokens", *extra)
        assert table.exit_code == 0, table.stderr
        (line,) = [line for line in table.stdout.splitlines() if T in line]
        assert line.endswith("(archived) go"), table.stdout
    assert invoke("list").stdout.rstrip().endswith("(archived) go")
    assert invoke("tokens").stdout.splitlines()[1].endswith("(archived) go")  # (the row ``list`` kept)


def test_kept_facts_carry_archived() -> None:
    from datetime import UTC, datetime

    from agentscan.model import TableFacts
    from agentscan.scan.tablefacts import _decode, _to_json

    for facts in (TableFacts(datetime(2026, 11, 2, tzinfo=UTC), "/p", "go", None, True),
                  TableFacts(None, None, "go", ("gpt-5.5",), True), TableFacts(None, "/p", "go", ("gpt-5.5",))):
        assert _decode(_to_json(facts)) == (facts,)
    assert _decode(["2026-11-02T00:00:00+00:00", "/p", "go", None, "yes"]) is None


def test_an_ultrafast_tier_call(isolated_home: Path) -> None:
    result = invoke("prices", "gpt-5.5 (ultrafast)", "--at", "2026-11-02")
    assert "(an ultrafast-tier call is not billed at its standard price)" in result.stderr, result.stderr
