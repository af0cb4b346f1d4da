"""``prices MODEL --at WHEN``: the prices a call made then was priced at (a price may change:
genai-prices' Claude Opus 4.6 had a long-context premium until 2026-03-13)."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()


def test_at_a_date_gives_the_prices_then(isolated_home: Path) -> None:
    now = runner.invoke(app, ["prices", "claude-opus-4-6"])
    then = runner.invoke(app, ["prices", "claude-opus-4-6", "--at", "2026-03-05"])
    assert now.exit_code == 0 and then.exit_code == 0, then.output
    # In a pipe (pass 45) a tier is a row of its own, its size in ABOVE; the time on stderr.
    assert [line.split()[2] for line in now.stdout.splitlines()[1:]] == ["0"]  # a flat price now
    lines = then.stdout.splitlines()
    assert "prices in force at 2026-03-05 00:00" in then.stderr.splitlines()
    assert any(line.split()[2] == "200000" and "$10" in line for line in lines)


def test_json_says_when_and_the_tiers_then(isolated_home: Path) -> None:
    result = runner.invoke(app, ["prices", "claude-opus-4-6", "--at", "2026-03-05T12:00:00Z", "--json"])
    assert result.exit_code == 0, result.output
    document = orjson.loads(result.stdout)
    assert document["at"] == "2026-03-05T12:00:00.000Z"
    [model] = document["models"]
    assert model["price_fields"]["input_mtok"] == {"base": 5.0, "tiers": [{"above": 200000, "price": 10.0}]}
    plain = orjson.loads(runner.invoke(app, ["prices", "claude-opus-4-6", "--json"]).stdout)
    assert plain["at"] is None and plain["models"][0]["price_fields"]["input_mtok"] == 5.0


def test_an_empty_or_bad_at_is_a_usage_error(isolated_home: Path) -> None:
    empty = runner.invoke(app, ["prices", "claude-opus-4-6", "--at", ""])
    assert empty.exit_code == 2 and "--at is empty" in empty.stderr
    bad = runner.invoke(app, ["prices", "claude-opus-4-6", "--at", "yesterday-ish"])
    assert bad.exit_code == 2


def test_a_time_past_the_years_a_record_holds_is_taken_as_the_nearest(isolated_home: Path, monkeypatch) -> None:  # noqa: ANN001
    """East of UTC, 9999-12-31T23:30Z has no local form: a traceback, for --at, --since and --until."""
    import time

    from agentscan.timeutil import EARLIEST, LATEST
    from agentscan.whentext import parse_when

    assert parse_when("9999-12-31T23:30:00Z") == LATEST
    assert parse_when("739000d") == EARLIEST
    try:
        with monkeypatch.context() as patch:  # (TZ as it was after, the isolated home kept)
            patch.setenv("TZ", "Europe/Paris")
            time.tzset()
            result = runner.invoke(app, ["prices", "claude-opus-4-6", "--at", "9999-12-31T23:30:00Z"])
            assert result.exit_code == 0, result.output
            listed = runner.invoke(app, ["list", "--since", "9999-12-31T23:30:00Z"])
            assert listed.exit_code == 0, listed.output
    finally:
        time.tzset()


def test_at_without_a_model_is_a_usage_error(isolated_home: Path) -> None:
    result = runner.invoke(app, ["prices", "--at", "2026-03-05"])
    assert result.exit_code == 2 and "--at needs a MODEL" in result.stderr
