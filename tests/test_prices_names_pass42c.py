"""``prices`` with a misspelt short name (``sonet-4.5``, as tables show Claude models) or a
family alone (``sonnet``) offers the names it may be a slip for, each priced when given
back; an empty MODEL is a usage error (pass 42)."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from agentscan.pricing import source
from agentscan.pricing.lookup import look_up
from builders import invoke


def _suggestions(name: str, provider: str | None = None) -> list[str]:
    return look_up(source.current(dict(os.environ)), name, provider, None)["suggestions"]


def _priced(name: str, provider: str | None = None) -> bool:
    return look_up(source.current(dict(os.environ)), name, provider, None)["model_id"] is not None


def test_a_misspelt_short_name_is_offered_the_short_name_of_its_model(isolated_home: Path) -> None:
    result = invoke("prices", "sonet-4.5")
    assert result.exit_code == 0, result.output
    assert "sonet-4.5: did you mean sonnet-4.5?" in result.stderr.splitlines()
    document = orjson.loads(invoke("prices", "sonet-4.5", "--json").stdout)
    assert document["models"][0]["suggestions"] == ["sonnet-4.5"]


@pytest.mark.parametrize(("name", "family"), [("sonnet", "sonnet-"), ("opus", "opus-"), ("opsu-4.5", "opus-"),
                                              ("sonet-4.5-thinking", "sonnet-"), ("Sonet-4.5", "sonnet-")])
def test_a_short_name_or_family_gets_names_of_its_family(isolated_home: Path, name: str, family: str) -> None:
    offered = _suggestions(name)
    assert offered and all(each.startswith(family) for each in offered), offered
    assert len(offered) == len(set(offered))


@pytest.mark.parametrize("name", ["sonet-4.5", "sonnet", "opus", "haiku", "sonnet-4.7", "opsu-4.5",
                                  "claude-sonet-4-5", "gpt5", "claude-sonnet"])
@pytest.mark.parametrize("provider", [None, "claude", "cursor"])
def test_every_name_offered_is_priced_when_given_back(isolated_home: Path, name: str, provider: str | None) -> None:
    offered = _suggestions(name, provider)
    assert not _priced(name, provider)
    assert all(_priced(each, provider) for each in offered), offered


def test_a_whole_name_is_still_offered_whole_and_another_vendor_none(isolated_home: Path) -> None:
    assert _suggestions("claude-sonet-4-5") == ["claude-sonnet-4-5"]
    assert _suggestions("sonet-4.5", "codex") == []  # OpenAI's names only: none is like it


@pytest.mark.parametrize("models", [[""], ["  "], ["sonnet-4.5", ""]])
def test_an_empty_model_is_a_usage_error(isolated_home: Path, models: list[str]) -> None:
    for extra in ([], ["--json"]):
        result = invoke("prices", *models, *extra)
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.startswith("error: MODEL is empty (is a variable unset?): "), result.stderr
