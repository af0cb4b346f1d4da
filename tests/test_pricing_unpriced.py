"""Calls with no price: the group that holds them is null, totals say what is known (docs/pricing.md)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from decimal import Decimal
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.render import human_usd
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from otlp_builders import read_otlp_file
from pricing_builders import (
    CLAUDE_AGENT, CLAUDE_SESSION, HAIKU_CALL, SONNET_CALL_1, SONNET_CALL_2, UNKNOWN_SESSION, claude_sonnet_session,
    claude_unknown_model_session,
)

SESSION_COST = SONNET_CALL_1 + SONNET_CALL_2 + HAIKU_CALL


def run(*args: str) -> dict:
    result = CliRunner().invoke(app, [*args])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout) if "--json" in args else {"text": result.stdout, "stderr": result.stderr}


def test_a_synthetic_row_costs_nothing_and_warns_nothing(isolated_home: Path) -> None:
    """Claude Code's own notices (``<synthetic>``) were never billed: their row is $0, and
    ``--by model`` says no more warnings (and fails no ``--strict``) than ``--by session``."""
    claude_sonnet_session(isolated_home, synthetic=True)
    doc = run("tokens", "--by", "model", "--json")
    rows = {row["key"]: row for row in doc["rows"]}
    synthetic = rows["<synthetic>"]
    assert synthetic["tokens"]["total"] == 0
    assert (synthetic["cost_usd"], synthetic["cost_usd_priced"], synthetic["unpriced_models"]) == (0.0, 0.0, [])
    assert doc["warnings"] == []
    assert CliRunner().invoke(app, ["tokens", "--by", "model", "--strict"]).exit_code == 0
    assert doc["cost_usd"] == doc["cost_usd_priced"] == float(SESSION_COST) and doc["unpriced_models"] == []
    for by in ("session", "day", "provider"):
        report = run("tokens", "--by", by, "--json")
        assert [row["cost_usd"] for row in report["rows"]] == [float(SESSION_COST)], by
        assert report["cost_usd"] == float(SESSION_COST) and report["warnings"] == [], by
    (session,) = run("tokens", "--json")["rows"]
    assert session["subagents"][0]["cost_usd"] == float(HAIKU_CALL)
    (listed,) = run("list", "--json")["sessions"]
    assert listed["cost_usd"] == float(SESSION_COST)


def test_exports_price_synthetic_days_at_nothing(isolated_home: Path, tmp_path: Path) -> None:
    claude_sonnet_session(isolated_home, synthetic=True)
    out = tmp_path / "index.sqlite"
    run("export", "-f", "sqlite", "-o", str(out))
    with closing(sqlite3.connect(out)) as db:
        days = dict(db.execute("SELECT model, cost_usd FROM token_days WHERE subagent_id != ''").fetchall())
        assert days == {"<synthetic>": 0.0, "claude-haiku-4-5-20251001": pytest.approx(float(HAIKU_CALL), abs=1e-12)}
        assert db.execute("SELECT cost_usd FROM subagents").fetchone()[0] == pytest.approx(float(HAIKU_CALL), abs=1e-12)
        assert db.execute("SELECT cost_usd FROM sessions").fetchone()[0] == pytest.approx(float(SESSION_COST), abs=1e-12)
    run("export", "-f", "jsonl", "--days", "-o", str(tmp_path / "d.jsonl"))
    lines = [orjson.loads(line) for line in (tmp_path / "d.jsonl").read_bytes().splitlines()]
    assert {(d["model"], d["cost_usd"]) for d in lines if d["subagent_id"]} == {("<synthetic>", 0.0), ("claude-haiku-4-5-20251001", float(HAIKU_CALL))}


def test_a_total_with_an_unpriced_model_is_null_with_its_priced_part_and_the_model_named(isolated_home: Path, tty) -> None:
    claude_sonnet_session(isolated_home)
    claude_unknown_model_session(isolated_home)
    doc = run("tokens", "--json")
    rows = {row["key"]: row for row in doc["rows"]}
    priced, unknown = rows[f"claude:{CLAUDE_SESSION}"], rows[f"claude:{UNKNOWN_SESSION}"]
    assert (priced["cost_usd"], priced["cost_usd_priced"], priced["unpriced_models"]) == (float(SESSION_COST), float(SESSION_COST), [])
    assert (unknown["cost_usd"], unknown["cost_usd_priced"], unknown["unpriced_models"]) == (None, 0.0, ["aide-gpt-5"])
    # Never a wrong number shown as exact: the total is null, with what is known beside it.
    assert doc["cost_usd"] is None
    assert doc["cost_usd_priced"] == float(SESSION_COST) and doc["unpriced_models"] == ["aide-gpt-5"]
    assert [w["path"] for w in doc["warnings"]] == ["model:claude/aide-gpt-5"]
    days = {row["key"]: row for row in run("tokens", "--by", "day", "--tz", "UTC", "--json")["rows"]}
    assert days["2025-10-01"]["cost_usd"] == float(SESSION_COST) and days["2025-10-02"]["cost_usd"] is None

    report = token_report(Scanner(home=isolated_home), by="provider")
    assert report.cost is None and report.cost_priced == SESSION_COST == Decimal("0.33195")
    (row,) = report.rows
    assert row.cost is None and row.cost_priced == SESSION_COST and row.unpriced_models == ("aide-gpt-5",)

    tty(200)
    out = run("tokens", "--by", "provider")
    total = next(line for line in out["text"].splitlines() if line.startswith("TOTAL"))
    assert total.rstrip().endswith("≥$0.33")  # a lower bound, rounded as a cost is
    said = " ".join(out["stderr"].split())
    assert "COST '≥$N': at least what the priced calls cost" in said
    assert "warning: Claude Code model aide-gpt-5: no price" in said  # the warning names it


def test_an_otlp_turn_with_a_synthetic_chat_keeps_its_cost(isolated_home: Path, tmp_path: Path) -> None:
    claude_sonnet_session(isolated_home, synthetic=True)
    out = tmp_path / "t.jsonl"
    run("otlp", "--output", str(out), "--json")
    (turn,) = read_otlp_file(out)
    chats = {span.attrs.get("gen_ai.response.id") or span.span_id: span for span in turn if span.name.startswith("chat")}
    costs = sorted((span.name, span.attrs.get("agentscan.cost_usd")) for span in chats.values())
    assert costs == sorted([("chat <synthetic>", 0.0), ("chat claude-haiku-4-5-20251001", float(HAIKU_CALL)),
                            ("chat claude-sonnet-4-5-20250929", float(SONNET_CALL_1)),
                            ("chat claude-sonnet-4-5-20250929", float(SONNET_CALL_2))], key=str)
    (agent,) = [span for span in turn if span.attrs.get("gen_ai.agent.id") == CLAUDE_AGENT]
    assert agent.attrs["agentscan.cost_usd"] == float(HAIKU_CALL)
    (root,) = [span for span in turn if not span.parent]
    assert root.attrs["agentscan.cost_usd"] == float(SESSION_COST)


def test_a_lower_bound_is_rounded_as_a_cost_and_a_bound_under_a_cent_is_still_a_bound() -> None:
    # Rounded as a cost (pass 39): rounded down, a total's ``≥$0.33`` read below its ``$0.34`` row.
    assert human_usd(None, Decimal("0.339")) == "≥$0.34" and human_usd(None, Decimal("0.335")) == "≥$0.34"
    assert human_usd(None, Decimal("0.3349")) == "≥$0.33"
    assert human_usd(None, Decimal("1234.5")) == "≥$1,234.50"
    # ``-`` says no call had a price: a priced part under a cent is a bound too (pass 38)
    assert human_usd(None, Decimal("0.009")) == "≥<$0.01"
    assert human_usd(None, Decimal(0)) == human_usd(None) == "-"
    assert human_usd(Decimal("0.339"), Decimal("0.339")) == "$0.34"  # a known cost is rounded as usual
