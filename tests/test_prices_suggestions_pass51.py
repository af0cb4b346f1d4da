"""``prices``' guesses for a name with no price: a Claude fast-mode name is offered as Claude
Code's sessions and Anthropic spell it (``claude-opus-4-8-fast``), not as GitHub Copilot's
dotted id of the same model (``claude-opus-4.8-fast``); and a mistyped name is offered the
names the library prices by their start (``grok-4-fast``, xAI's ``grok-4-fast-reasoning``)
before another generation's (``grok-3-fast``)."""

from __future__ import annotations

from pathlib import Path

from builders import cli_json


def _suggestions(name: str) -> list[str]:
    (found,) = cli_json("prices", name)["models"]
    return found["suggestions"]


def test_a_fast_mode_name_is_offered_as_anthropic_spells_it(isolated_home: Path) -> None:
    # (a model the data has no price for at all: ``claude-opus-4-6-fast``'s gap is explained instead)
    offered = _suggestions("claude-opus-4-9-fast")
    assert offered[0] == "claude-opus-4-8-fast", offered
    assert not any("." in name for name in offered), offered  # one model, not spelt twice
    assert cli_json("prices", offered[0])["models"][0]["model_id"] == "claude-opus-4-8"


def test_a_mistyped_grok_4_name_is_offered_grok_4_first(isolated_home: Path) -> None:
    offered = _suggestions("grok-4-fat")
    assert offered and offered[0] == "grok-4-fast", offered
    assert "grok-3-fast" not in offered


def test_a_family_alone_is_not_offered_itself(isolated_home: Path) -> None:
    assert _suggestions("sonnet") and "sonnet" not in _suggestions("sonnet")


def test_codex_s_fast_mode_is_offered_as_its_priority_tier(isolated_home: Path) -> None:
    """``gpt-5.5-fast`` is how a Codex user names its fast mode (the priority tier): it is
    offered ``gpt-5.5 (priority)``, never a Claude model's fast-mode name (its Claude spelling,
    ``claude-gpt-5-5-fast``, is no Claude short name's)."""
    assert _suggestions("gpt-5.5-fast")[0] == "gpt-5.5 (priority)"
    assert _suggestions("o3-fast")[0] == "o3 (priority)"
    assert not any("opus" in name or "claude" in name for name in _suggestions("gpt-5.5-fast"))


def test_a_short_fast_mode_name_is_still_offered_short(isolated_home: Path) -> None:
    assert _suggestions("opsu-4.6-fast")[0] == "opus-4.8-fast"
    assert _suggestions("sonet-4.5") == ["sonnet-4.5"]


def test_no_other_model_is_offered_once_a_variant_s_gap_is_explained(isolated_home: Path) -> None:
    """Sonnet 4.5 is priced, and the data has no fast-mode price for it: the warning says so, and
    Opus's fast mode (another model's rates) is no answer; so for a tier Codex's mini has none of."""
    from builders import invoke

    for name, gap in (("sonnet-4.5-fast", "no fast-mode price for sonnet-4.5"),
                      ("claude-opus-4-6-fast", "no fast-mode price for claude-opus-4-6"),
                      ("gpt-5.1-codex-mini (priority)", "no priority-tier price for gpt-5.1-codex-mini")):
        assert _suggestions(name) == [], name
        said = invoke("prices", name).stderr
        assert gap in " ".join(said.split()) and "did you mean" not in said, said
