"""Costs worked out by hand from the published per-million prices, against agentscan's output.

Each expected value is written as tokens × the provider's list price per
million tokens (see ``pricing_builders.per_million``).  The library report
keeps exact decimals, so it must equal the hand computation exactly; the
JSON carries a float and must agree to the cent.
"""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.scan.scanner import Scanner
from agentscan.cli import app
from agentscan.scan.tokens import token_report
from codex_builders import Calls, meta, rollout_path, turn_context, user_message, write_rollout
from gemini_builders import gemini, meta as gemini_meta, tokens, user, write_chat
from pricing_builders import (
    CLAUDE_AGENT, HAIKU_CALL, SONNET_CALL_1, SONNET_CALL_2, claude_sonnet_session, per_million,
)

CODEX_THREAD = "019c0000-0000-7000-8000-0000000000c5"
GEMINI_SESSION = "9e000000-aaaa-4bbb-8ccc-000000000001"


def cents(value: Decimal | float) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"))


def tokens_json(*args: str) -> dict:
    result = CliRunner().invoke(app, ["tokens", "--json", *args])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def test_claude_cache_writes_and_reads_long_context_and_a_subagent(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    # 1,200 in + 20,000 written (15,000 for 5 min, 5,000 for 1 h) + 150,000 read + 2,500 out, under 200k:
    assert SONNET_CALL_1 == Decimal("0.17235")
    # 500 + 1,000 + 210,000 = 211,500 input tokens: the whole call at the long-context rates.
    assert SONNET_CALL_2 == Decimal("0.1545")
    assert HAIKU_CALL == Decimal("0.0051")
    (row,) = token_report(Scanner(home=isolated_home, provider_names=["claude"])).rows
    assert row.own_cost == SONNET_CALL_1 + SONNET_CALL_2
    assert row.subagent_costs == (HAIKU_CALL,)
    assert row.cost == SONNET_CALL_1 + SONNET_CALL_2 + HAIKU_CALL == Decimal("0.33195")

    doc = tokens_json()
    (json_row,) = doc["rows"]
    assert cents(json_row["cost_usd"]) == Decimal("0.33")
    assert cents(json_row["own_cost_usd"]) == cents(SONNET_CALL_1 + SONNET_CALL_2)
    assert json_row["subagents"][0]["id"] == CLAUDE_AGENT and json_row["subagents"][0]["cost_usd"] == float(HAIKU_CALL)
    assert doc["cost_usd"] == float(row.cost)
    assert doc["prices"]["library"] == "genai-prices" and doc["prices"]["source"] == "bundled"
    assert doc["warnings"] == []


def test_the_one_hour_cache_write_split_is_what_makes_the_difference(isolated_home: Path) -> None:
    """Without the split the 5,000 one-hour tokens would be billed at $3.75, not $6."""
    claude_sonnet_session(isolated_home)
    (row,) = token_report(Scanner(home=isolated_home, provider_names=["claude"])).rows
    lumped = SONNET_CALL_1 - per_million((5_000, "6")) + per_million((5_000, "3.75"))
    assert row.own_cost != lumped + SONNET_CALL_2
    assert row.own_cost - (lumped + SONNET_CALL_2) == per_million((5_000, "2.25"))


def _codex_session(home: Path, model: str, calls: list[tuple[datetime, int, int, int, int]]) -> None:
    counter = Calls()
    start = calls[0][0]
    lines = [meta(CODEX_THREAD, start), turn_context(start, model=model), user_message(start, "go")]
    lines += [counter.call(moment, total_in, cached, output, reasoning) for moment, total_in, cached, output, reasoning in calls]
    write_rollout(rollout_path(home / ".codex", CODEX_THREAD, start), lines)


def test_gpt5_cached_input(isolated_home: Path) -> None:
    when = datetime(2025, 10, 1, 12, tzinfo=timezone.utc)
    # Codex reports input including the cached part: 50,000 in of which 40,000 cached; 3,000 out (2,000 reasoning).
    _codex_session(isolated_home, "gpt-5", [(when, 50_000, 40_000, 3_000, 2_000), (when.replace(minute=5), 8_000, 0, 500, 0)])
    first = per_million((10_000, "1.25"), (40_000, "0.125"), (3_000, "10"))
    second = per_million((8_000, "1.25"), (500, "10"))
    assert (first, second) == (Decimal("0.0475"), Decimal("0.015"))
    (row,) = token_report(Scanner(home=isolated_home, provider_names=["codex"])).rows
    assert row.cost == first + second
    assert cents(tokens_json()["cost_usd"]) == Decimal("0.06")


def test_a_price_change_applies_from_its_date(isolated_home: Path) -> None:
    """OpenAI cut o3 from $10/$40 to $2/$8 per million on 2025-06-10; each call pays its own day's price."""
    before = datetime(2025, 6, 9, 23, 59, 59, tzinfo=timezone.utc)
    after = datetime(2025, 6, 10, 0, 0, 1, tzinfo=timezone.utc)
    _codex_session(isolated_home, "o3", [(before, 1_000_000, 0, 100_000, 0), (after, 1_000_000, 0, 100_000, 0)])
    report = token_report(Scanner(home=isolated_home, provider_names=["codex"]), by="day", tz=timezone.utc)
    costs = {row.key: row.cost for row in report.rows}
    assert costs == {"2025-06-09": per_million((1_000_000, "10"), (100_000, "40")),
                     "2025-06-10": per_million((1_000_000, "2"), (100_000, "8"))}
    assert report.cost == Decimal("14") + Decimal("2.8")


def test_gemini_25_pro_below_at_and_above_the_long_context_threshold(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", "session-2025-10-01T10-00-9e000000.jsonl", [
        gemini_meta(GEMINI_SESSION, start="2025-10-01T10:00:00.000Z"),
        user("u1", "2025-10-01T10:00:01.000Z", "go"),
        # 100,000 prompt tokens of which 20,000 cached; 600 out + 400 thinking (billed as output).
        gemini("g1", "2025-10-01T10:00:02.000Z", usage=tokens(100_000, 600, cached=20_000, thoughts=400)),
        # exactly 200,000 prompt tokens: still the base rate (the tier starts above 200k)
        gemini("g2", "2025-10-01T10:00:03.000Z", usage=tokens(200_000, 0)),
        # 250,000 prompt tokens: every token of the call at the long-context rates
        gemini("g3", "2025-10-01T10:00:04.000Z", usage=tokens(250_000, 2_000)),
    ])
    below = per_million((80_000, "1.25"), (20_000, "0.125"), (1_000, "10"))
    at_threshold = per_million((200_000, "1.25"))
    above = per_million((250_000, "2.50"), (2_000, "15"))
    assert (below, at_threshold, above) == (Decimal("0.1125"), Decimal("0.25"), Decimal("0.655"))
    (row,) = token_report(Scanner(home=isolated_home, provider_names=["gemini"])).rows
    assert row.cost == below + at_threshold + above
    assert cents(tokens_json()["rows"][0]["cost_usd"]) == Decimal("1.02")


def test_every_grouping_adds_up_to_the_same_total(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    _codex_session(isolated_home, "gpt-5", [(datetime(2025, 10, 2, 8, tzinfo=timezone.utc), 50_000, 40_000, 3_000, 0)])
    expected = SONNET_CALL_1 + SONNET_CALL_2 + HAIKU_CALL + per_million((10_000, "1.25"), (40_000, "0.125"), (3_000, "10"))
    for by in ("session", "day", "model", "provider"):
        report = token_report(Scanner(home=isolated_home), by=by, tz=timezone.utc)
        assert report.cost == expected, by
        assert sum((row.cost for row in report.rows), Decimal(0)) == expected, by
        for row in report.rows:
            parts = [row.own_cost] if row.own is not None else []
            assert sum([*parts, *row.subagent_costs], Decimal(0)) == row.cost, (by, row.key)
    by_model = {row.key: row for row in token_report(Scanner(home=isolated_home), by="model").rows}
    assert by_model["claude-haiku-4-5-20251001"].subagent_costs == (HAIKU_CALL,)
    assert by_model["claude-haiku-4-5-20251001"].own_cost is None  # no own calls of that model


def test_text_output_rounds_to_the_cent(isolated_home: Path, tty) -> None:  # noqa: ANN001
    claude_sonnet_session(isolated_home)
    tty(400, color=False)  # the own and subagent lines are a terminal's
    result = CliRunner().invoke(app, ["tokens"])
    assert result.exit_code == 0, result.output
    header, session_line, own_line, sub_line, total_line = result.stdout.splitlines()
    assert header.split()[-2:] == ["COST", "TITLE"]  # the title last, as list has it
    assert "$0.33" in session_line.split()
    assert own_line.split()[-1] == "$0.33"  # 0.32685
    assert sub_line.split()[-1] == "<$0.01"  # 0.0051
    assert total_line.split()[-1] == "$0.33"
