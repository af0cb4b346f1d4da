"""Pass 57: a model name with text in brackets that agentscan did not build has no price.

genai-prices matches a name by its start, so ``claude-opus-4-6 (foo)`` was priced at Claude Opus
4.6's list price, silently: by ``prices`` and for a call that recorded such a name.  agentscan's
own names have known suffixes (``(us-only)``, a Codex tier's); any other has no price, and the
warning says why (``pricing.typednames``).  A name typed to ``prices`` is read as agentscan spells
it: ``(us-only)`` in any spacing, a Claude model's ``(fast)`` as its fast mode (it was read as
Codex's priority tier), and a ``tokens --by model`` row's agents (``sonnet-4.5 (cursor)``)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke

S = "c057a7e5-5858-4000-8000-000000000001"
ODD = "claude-opus-4-6 (foo)"


def test_the_library_never_prices_unknown_text_in_brackets() -> None:
    from agentscan.pricing import library, source

    data = source.current({})
    assert library.find(data, "anthropic", "claude-opus-4-6").model.id == "claude-opus-4-6"
    for ref in (ODD, "claude-opus-4-6(us-only)", "gemini-2.5-pro (preview)", "claude-opus-4-6 (foo) bar"):
        with pytest.raises(library.NotPriceable, match="no suffix agentscan knows"):
            library.find(data, None, ref)
    assert library.find(data, "anthropic", "claude-opus-4-6 (us-only)").multiplier == Decimal("1.1")


def test_prices_says_why_and_offers_the_model() -> None:
    (found,) = cli_json("prices", ODD)["models"]
    assert found["model_id"] is None, found
    assert found["suggestions"][0] == "claude-opus-4-6", found
    said = " ".join(invoke("prices", ODD).stderr.split())
    assert "'foo' in brackets is no suffix agentscan knows" in said and "not priced at claude-opus-4-6's list price" in said


@pytest.mark.parametrize(("typed", "priced_as"), [
    ("claude-opus-4-6(US-only)", ("claude-opus-4-6", 1.1)),
    ("claude-opus-4-6 ( us-only )", ("claude-opus-4-6", 1.1)),
    ("sonnet-4.5 (claude, cursor)", ("claude-sonnet-4-5", None)),
    ("claude-4.5-sonnet (cursor)", ("claude-sonnet-4-5", None)),  # (Cursor's name, as Cursor records it)
])
def test_a_typed_name_is_read_as_agentscan_spells_it(typed: str, priced_as: tuple) -> None:
    (found,) = cli_json("prices", typed)["models"]
    assert (found["model_id"], found["multiplier"]) == priced_as, found
    assert found["query"] == typed


def test_a_claude_models_fast_is_its_fast_mode_not_a_codex_tier() -> None:
    from agentscan.pricing.typednames import typed_name

    assert typed_name("opus-4.6 (fast)", None) == ("opus-4.6-fast", None)
    assert typed_name("gpt-5.5 (fast)", None) == ("gpt-5.5 (fast)", None)  # (Codex's: ``typed_tier_name``)
    said = " ".join(invoke("prices", "claude-opus-4-6 (fast)").stderr.split())
    assert "fast-mode price" in said and "priority" not in said, said


def _odd_session(home: Path) -> None:
    claude_session_file(home, S, [
        claude_user(S, "2026-10-01T10:00:00.000Z", "hi"),
        claude_assistant(S, "2026-10-01T10:00:05.000Z", msg_id="msg_1", request_id="req_1", model=ODD,
                         usage=claude_usage(1000, 200)),
    ])


def test_a_recorded_name_with_brackets_has_no_price(isolated_home: Path) -> None:
    _odd_session(isolated_home)
    doc = cli_json("tokens", "--by", "model")
    (row,) = doc["rows"]
    assert row["key"] == ODD and row["cost_usd"] is None, row
    assert any("no suffix agentscan knows" in w["message"] for w in doc["warnings"]), doc["warnings"]


def test_a_price_remembered_for_such_a_name_is_asked_again(isolated_home: Path) -> None:
    # Price rule 8 gave it Opus 4.6's list price; the index's answer from then is not kept.
    from agentscan.context import ScanContext
    from agentscan.pricing import periods, source
    from agentscan.scan.cache import Cache

    _odd_session(isolated_home)
    ctx = ScanContext.create(home=isolated_home)
    cache = Cache.open(ctx)
    assert cache is not None
    stale = periods.Period(None, None, (), (tuple(Decimal(1) for _ in periods.PARTS),))  # type: ignore[arg-type]
    cache.put_price(source.current(ctx.env).key, "claude", ODD, {
        "ref": ODD, "provider_id": "anthropic", "model_id": "claude-opus-4-6", "periods": [stale.to_json()],
        "variants": 8})
    cache.commit()
    cache.close()
    (row,) = cli_json("tokens", "--by", "model")["rows"]
    assert row["cost_usd"] is None, row
