"""``prices MODEL`` as a table: one line a model, its tiers under it, fitted to the terminal."""

from __future__ import annotations

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.prices_text import model_rows

runner = CliRunner()


def test_each_model_is_a_line_with_its_four_prices_and_its_tier_under_it(isolated_home) -> None:  # noqa: ANN001
    result = runner.invoke(app, ["prices", "claude-sonnet-4-5", "gpt-5", "no-such-model-28"])
    assert result.exit_code == 0, result.output
    # A pipe (pass 45): the table alone, each tier a row naming its model, its size in ABOVE.
    lines = result.stdout.splitlines()
    assert "price data: genai-prices " in result.stderr
    assert lines[0].split() == ["MODEL", "PRICED", "AS", "ABOVE", "INPUT", "OUTPUT", "CACHE", "READ", "CACHE", "WRITE"]
    doc = orjson.loads(runner.invoke(app, ["prices", "claude-sonnet-4-5", "--json"]).stdout)["models"][0]
    fields = doc["price_fields"]
    base = [f"${fields[name]['base']:.2f}" for name in ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok")]
    assert lines[1].split() == ["claude-sonnet-4-5", "anthropic/claude-sonnet-4-5", "0", *base]
    above = fields["input_mtok"]["tiers"][0]["above"]
    tier = [f"${fields[name]['tiers'][0]['price']:.2f}" for name in ("input_mtok", "output_mtok", "cache_read_mtok",
                                                                    "cache_write_mtok")]
    assert lines[2].split() == ["claude-sonnet-4-5", "anthropic/claude-sonnet-4-5", str(above), *tier]
    assert lines[3].split()[:3] == ["gpt-5", "openai/gpt-5", "0"] and lines[3].split()[-1] == "-"  # no cache write price
    assert lines[4].split() == ["no-such-model-28", "no", "price", "-", "-", "-", "-", "-"]  # (ABOVE ``-``: pass 57)
    assert all("MTok" not in line for line in lines)  # genai-prices' own line is --json's


def test_a_price_without_a_tier_stays_on_the_tier_line() -> None:
    found = {"query": "m", "provider": "p", "model_id": "m", "price_fields": {
        "input_mtok": {"base": 1.0, "tiers": [{"above": 128_000, "price": 2.0}]}, "output_mtok": 4.0}}
    rows = model_rows(found)
    assert [list(row.cells) for row in rows] == [
        ["m", "p/m", "$1.00", "$4.00", "-", "-"],
        ["  above 128k", "", "$2.00", "$4.00", "-", "-"],
    ]


def test_it_fits_an_80_column_terminal(isolated_home, tty) -> None:  # noqa: ANN001
    tty(80, color=False)
    result = runner.invoke(app, ["prices", "claude-sonnet-4-5", "gemini-2.5-pro"])
    assert all(len(line) <= 80 for line in result.stdout.splitlines()), result.stdout
    assert "$22.50" in result.stdout and "dollars per million tokens" in result.stderr


def test_a_tier_line_carries_each_price_s_own_earlier_tier() -> None:
    """Input changes above 128k and output above 200k: above 200k, input is still its 128k price."""
    found = {"query": "m", "provider": "p", "model_id": "m", "price_fields": {
        "input_mtok": {"base": 1.0, "tiers": [{"above": 128_000, "price": 2.0}]},
        "output_mtok": {"base": 4.0, "tiers": [{"above": 200_000, "price": 8.0}]},
        "cache_read_mtok": 1e-07}}
    assert [list(row.cells) for row in model_rows(found)] == [
        ["m", "p/m", "$1.00", "$4.00", "$0.0000001", "-"],
        ["  above 128k", "", "$2.00", "$4.00", "$0.0000001", "-"],
        ["  above 200k", "", "$2.00", "$8.00", "$0.0000001", "-"],
    ]


def test_a_price_has_cents_as_every_cost_column_and_is_never_rounded() -> None:
    # pass 39: "$0.3" and "$22.5" beside "$3.75" read as misprints.
    from agentscan.cli.prices_text import money

    assert [money(v) for v in (3, 0.3, 22.5, 3.75, 0)] == ["$3.00", "$0.30", "$22.50", "$3.75", "$0.00"]
    assert [money(v) for v in (0.125, 2.5e-05, 1e-07)] == ["$0.125", "$0.000025", "$0.0000001"]  # exact, no exponent
