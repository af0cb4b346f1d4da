"""``prices`` takes the model names ``list`` shows on a terminal (``opus-4-5``, ``sonnet-4.5``)."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.render import model_text
from agentscan.cli.term import Terminal

runner = CliRunner()
TTY = Terminal(tty=True, width=120, color=False)


@pytest.mark.parametrize(("recorded", "provider"), [
    ("claude-opus-4-5-20251101", "claude"), ("claude-sonnet-4-5-20250929", "claude"), ("claude-4.5-sonnet", "cursor"),
    ("claude-haiku-4-5-20251001", "claude"),
])
def test_the_name_list_shows_is_priced_as_the_recorded_one(isolated_home, recorded: str, provider: str) -> None:  # noqa: ANN001
    shown = model_text(recorded, TTY)
    assert not shown.startswith("claude")  # the short form a person copies from the table
    by_shown = orjson.loads(runner.invoke(app, ["prices", shown, "--json"]).stdout)
    by_recorded = orjson.loads(runner.invoke(app, ["prices", "--provider", provider, recorded, "--json"]).stdout)
    assert by_shown["warnings"] == []
    assert by_shown["models"][0]["model_id"] == by_recorded["models"][0]["model_id"] is not None


def test_an_unknown_short_name_is_still_no_price(isolated_home) -> None:  # noqa: ANN001
    result = runner.invoke(app, ["prices", "nonsense-1", "--json"])
    assert orjson.loads(result.stdout)["models"][0]["model_id"] is None


def test_cursor_s_short_name_is_priced_as_cursor_records_it(isolated_home) -> None:  # noqa: ANN001
    shown = model_text("claude-4.5-sonnet", TTY)
    doc = orjson.loads(runner.invoke(app, ["prices", "-p", "cursor", shown, "--json"]).stdout)
    assert shown == "sonnet-4.5" and doc["models"][0]["model_id"] is not None and doc["warnings"] == []


@pytest.mark.parametrize("name", ["v1", "instant-1", "sonnet", "o3-mini"])
def test_only_a_claude_family_s_short_name_is_given_its_prefix_back(isolated_home, name: str) -> None:  # noqa: ANN001
    """``claude-`` is put back only where ``list`` took it off: ``v1`` is no Claude model."""
    doc = orjson.loads(runner.invoke(app, ["prices", "-p", "claude", name, "--json"]).stdout)
    assert doc["models"][0]["provider"] != "anthropic"


def test_prices_alone_on_a_terminal_says_how_to_ask_for_a_model(isolated_home, tty) -> None:  # noqa: ANN001
    tty(100)
    result = runner.invoke(app, ["prices"])
    assert result.exit_code == 0
    assert result.stdout.startswith("price data: ")
    # (pass 49: `agentscan prices MODEL`, the demo, and said in a pipe too, as list says an empty home)
    assert "`agentscan prices sonnet-4.5 gpt-5`" in " ".join(result.stderr.split())
    tty(100, stderr=False)
    assert runner.invoke(app, ["prices"]).stderr.startswith("no sessions found in this home\n")
    assert runner.invoke(app, ["--quiet", "prices"]).stderr == ""
