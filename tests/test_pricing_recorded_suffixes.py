"""What a "no price" says of a recorded name with text in brackets, and square brackets.

The library's warning listed what a name typed to ``prices`` may carry, so ``tokens`` on a
session recording ``claude-opus-4-6 (claude)`` said ``(claude)`` was unknown while listing
``(claude)`` as an agent's name; ``grok-4 (us-only)`` was told ``(us-only)`` is unknown while
listing it.  And ``claude-sonnet-4-5 [foo]`` was priced at Sonnet 4.5's list price, by its start.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke

S = "c057a7e5-5858-4000-8000-000000000077"
NAMES = ("claude-opus-4-6 (claude)", "grok-4 (us-only)", "claude-sonnet-4-5 [foo]")


def _said(ref: str) -> str:
    from agentscan.pricing import library, source

    with pytest.raises(library.NotPriceable) as raised:
        library.find(source.current({}), "anthropic", ref)
    return str(raised.value)


def test_a_recorded_agents_name_is_not_listed_as_one_it_may_carry() -> None:
    said = _said("claude-opus-4-6 (claude)")
    assert "'claude' in brackets is no suffix agentscan knows" in said, said
    assert "an agent's name" not in said and "(claude)" not in said, said
    assert "(us-only) after a Claude model" in said and "(priority)" in said, said


def test_us_only_after_another_model_says_it_is_claudes() -> None:
    said = _said("grok-4 (us-only)")
    assert "(us-only) applies to Claude models only" in said and "no suffix" not in said, said
    typed = " ".join(invoke("prices", "grok-4 (us-only)").stderr.split())
    assert "(us-only) applies to Claude models only" in typed, typed


def test_square_brackets_are_not_priced_by_the_models_start() -> None:
    said = _said("claude-sonnet-4-5 [foo]")
    assert "'foo' in brackets is no suffix agentscan knows" in said, said
    (found,) = cli_json("prices", "claude-sonnet-4-5 [foo]")["models"]
    assert found["model_id"] is None and found["suggestions"][0] == "claude-sonnet-4-5", found


@pytest.mark.parametrize("name", ["claude-sonnet-4-5[1m]", "claude-sonnet-4-5 [1M]"])
def test_claude_codes_1m_name_is_priced_as_its_model(name: str) -> None:
    """``[1m]`` is Claude Code's own name of a model with its 1M context window (``opus[1m]``):
    priced as the model, whose tier above 200k bills the long context (a review found pass 57's
    first square-bracket rule left it unpriced)."""
    from agentscan.pricing import library, source

    assert library.find(source.current({}), "anthropic", name).model.id == "claude-sonnet-4-5"
    (found,) = cli_json("prices", name)["models"]
    assert found["model_id"] == "claude-sonnet-4-5", found


def test_tokens_leaves_them_unpriced_and_says_why(isolated_home: Path) -> None:
    records = [claude_user(S, "2026-11-20T10:00:01.000Z", "go")]
    for n, model in enumerate(NAMES, 2):
        records.append(claude_assistant(S, f"2026-11-20T10:00:{n:02d}.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                                        model=model, usage=claude_usage(1000, 2000), uuid=f"a{n}"))
    claude_session_file(isolated_home, S, records)
    doc = cli_json("tokens", "--by", "model")
    assert {row["key"]: row["cost_usd"] for row in doc["rows"]} == dict.fromkeys(NAMES), doc["rows"]
    said = [w["message"] for w in doc["warnings"]]
    assert sum("(us-only) applies to Claude models only" in each for each in said) == 1, said
    assert not any("an agent's name" in each for each in said), said
    # (no update prices text in brackets agentscan did not build: no "prices --update" said of it)
    bracketed = [w["message"] for w in doc["warnings"] if w["path"].endswith(("(claude)", "[foo]"))]
    assert len(bracketed) == 2 and not any("prices --update" in each for each in bracketed), doc["warnings"]
