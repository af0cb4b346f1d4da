"""A model's prices looked up by the library (``pricing.lookup``), as ``agentscan prices`` shows them."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.pricing import source
from agentscan.pricing.lookup import look_up
from agentscan.pricing.modelnames import recorded_names, short_name, undated

runner = CliRunner()


@pytest.mark.parametrize(("recorded", "agent"), [
    ("claude-opus-4-5-20251101", "claude"), ("claude-3-5-sonnet-20241022", "claude"),
    ("claude-4.5-sonnet", "cursor"), ("claude-opus-4-8-fast", "claude"), ("claude-sonnet-4", "claude"),
])
def test_a_short_name_stands_for_the_name_it_was_made_from(recorded: str, agent: str) -> None:
    shown = short_name(undated(recorded))
    assert not shown.startswith("claude-")
    assert (agent, undated(recorded)) in recorded_names(shown, ["claude", "cursor"])


@pytest.mark.parametrize("name", ["claude-sonnet-4-5", "v1", "sonnet", "o3-mini"])
def test_a_name_that_is_no_short_name_stands_for_nothing_else(name: str) -> None:
    assert recorded_names(name, ["claude", "cursor"]) == []


@pytest.mark.parametrize("name", ["sonnet-4.5", "claude-sonnet-4-5", "gpt-5", "claude-sonet-4-5", "zzzz-qqqq"])
def test_the_library_looks_a_name_up_as_prices_json_does(isolated_home: Path, name: str) -> None:
    found = look_up(source.current(dict(os.environ)), name, None, None)
    shown = orjson.loads(runner.invoke(app, ["prices", name, "--json"]).stdout)["models"][0]
    assert found == shown
    assert (found["model_id"] is None) == (name in ("claude-sonet-4-5", "zzzz-qqqq"))
    assert bool(found["suggestions"]) == (name == "claude-sonet-4-5")
