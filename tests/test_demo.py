"""The demo home shipped inside the package shows real rows."""

from __future__ import annotations

import orjson
from typer.testing import CliRunner

from agentscan.cli import app


def test_demo_list_shows_sessions_and_ignores_provider_env(monkeypatch, tmp_path) -> None:
    # A user's CLAUDE_CONFIG_DIR must not leak into the demo.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "elsewhere"))
    result = CliRunner().invoke(app, ["--demo", "list", "--json"])
    assert result.exit_code == 0, result.output
    document = orjson.loads(result.stdout)
    providers = {row["provider"] for row in document["sessions"]}
    assert "claude" in providers
    titles = {row["title"] for row in document["sessions"]}
    assert "Add a 5-day forecast endpoint to the API and cover it with tests" in titles
    assert document["warnings"] == []


def test_demo_tokens_include_the_subagent() -> None:
    result = CliRunner().invoke(app, ["--demo", "tokens", "--json", "claude:7f3c9a12"])
    assert result.exit_code == 0, result.output
    (row,) = orjson.loads(result.stdout)["rows"]
    # Hand sum of the demo transcript (make_claude_demo.py): parent calls
    # 12+188+2100+9800, 6+95+800+11900, 4+310+1500+12700, 3+60+400+14200, 2+140+300+14600;
    # subagent 8+70+3000+0, 5+30+200+3000.
    assert row["own"]["total"] == 12100 + 12801 + 14514 + 14663 + 15042
    # The subagent runs Haiku 4.5: $1 input, $0.10 cache read, $1.25 cache write, $5 output per million.
    assert row["subagents"] == [{"id": "a1b2c3d", "tokens": {"input": 13, "cache_read": 3000, "cache_write": 3200,
                                                             "output": 100, "reasoning": 0, "total": 6313},
                                 "cost_usd": (13 * 1 + 3000 * 0.10 + 3200 * 1.25 + 100 * 5) / 1e6,
                                 "cost_usd_priced": (13 * 1 + 3000 * 0.10 + 3200 * 1.25 + 100 * 5) / 1e6,
                                 "recovered_from": None}]
