"""Cursor tokens: bubble counts from state.vscdb, rolled up over delegated runs."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.scan.scanner import Scanner
from agentscan.cli import app
from agentscan.scan.tokens import token_report
from cursor_builders import (
    assistant,
    bubble,
    composer_data,
    cursor_only,
    make_state_db,
    state_db_path,
    tool,
    user,
    write_subagent,
    write_transcript,
)

PARENT = "11111111-aaaa-4000-8000-000000000001"
CHILD = "22222222-bbbb-4000-8000-000000000002"
DB_ONLY_CHILD = "33333333-cccc-4000-8000-000000000003"
SLUG = "home-dev-shop"
T0 = 1_785_000_000_000  # 2026-07-25T17:20:00Z in ms


def _home_with_parent_and_child(home: Path, *, child_in_db: bool = True) -> None:
    write_transcript(home, SLUG, PARENT, [
        user("refactor the cart", stamp="Saturday, Jul 25, 2026, 7:20 PM (UTC+2)"),
        assistant("Delegating.", tool("Task", description="scan", prompt="List every cart module")),
        turn_ended_ok(),
    ])
    write_subagent(home, SLUG, PARENT, CHILD, [user("List every cart module"), assistant("cart.py")])
    make_state_db(
        state_db_path(home),
        composers=[
            composer_data(PARENT, name="Cart refactor", created=T0, updated=T0 + 60_000, model="claude-4.5-sonnet",
                          bubbles=["p1", "p2"], sub_ids=[CHILD] if child_in_db else []),
            composer_data(CHILD, created=T0 + 1000, updated=T0 + 30_000, bubbles=["c1"]),
        ],
        bubbles={
            PARENT: [
                bubble("p1", 1, "refactor the cart"),
                bubble("p2", 2, "Delegating.", tokens=(100, 40), created="2026-07-25T17:20:05Z"),
            ],
            CHILD: [bubble("c1", 2, "cart.py", tokens=(7, 3), created="2026-07-25T17:20:10Z")],
        },
    )


def turn_ended_ok() -> dict:
    return {"type": "turn_ended", "status": "success"}


def test_parent_100_40_plus_child_7_3_is_150(isolated_home: Path) -> None:
    _home_with_parent_and_child(isolated_home)
    scanner = Scanner(home=isolated_home, provider_names=["cursor"])
    report = token_report(scanner)
    assert len(report.rows) == 1
    row = report.rows[0]
    assert row.key == f"cursor:{PARENT}"
    assert (row.tokens.input, row.tokens.output, row.tokens.total) == (107, 43, 150)
    assert (row.own.input, row.own.output) == (100, 40)
    assert [(sub_id, t.total) for sub_id, t in row.subagents] == [(CHILD, 10)]
    assert report.total.total == 150
    listed = scanner.list_sessions()
    assert [(r.id, r.tokens.total, r.subagents) for r in listed] == [(f"cursor:{PARENT}", 150, 1)]
    assert scanner.warnings == []


def test_child_known_only_from_the_subagents_dir_still_rolls_up(isolated_home: Path) -> None:
    _home_with_parent_and_child(isolated_home, child_in_db=False)
    report = token_report(Scanner(home=isolated_home, provider_names=["cursor"]))
    assert report.rows[0].tokens.total == 150


def test_child_known_only_from_sub_composer_ids_rolls_up(isolated_home: Path) -> None:
    write_transcript(isolated_home, SLUG, PARENT, [user("hi"), assistant("hello")])
    make_state_db(
        state_db_path(isolated_home),
        composers=[
            composer_data(PARENT, bubbles=["p1"], sub_ids=[DB_ONLY_CHILD]),
            composer_data(DB_ONLY_CHILD, bubbles=["d1"]),
        ],
        bubbles={PARENT: [bubble("p1", 2, "hello", tokens=(20, 5))],
                 DB_ONLY_CHILD: [bubble("d1", 2, "x", tokens=(1, 2))]},
    )
    scanner = Scanner(home=isolated_home, provider_names=["cursor"])
    row = token_report(scanner).rows[0]
    assert row.tokens.total == 28
    assert [(s, t.total) for s, t in row.subagents] == [(DB_ONLY_CHILD, 3)]
    # The sub-composer is part of its parent, never a session of its own.
    assert [r.native_id for r in scanner.list_sessions()] == [PARENT]


def test_tokens_json_via_cli(isolated_home: Path) -> None:
    _home_with_parent_and_child(isolated_home)
    result = CliRunner().invoke(app, ["tokens", "--provider", "cursor", "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    assert doc["schema"] == "agentscan.tokens/1"
    assert doc["total"] == {"input": 107, "cache_read": 0, "cache_write": 0, "output": 43, "reasoning": 0, "total": 150}
    (row,) = doc["rows"]
    assert row["own"]["total"] == 140
    # The child's bubble names no model, so it runs the session's "claude-4.5-sonnet" (Sonnet 4.5,
    # $3 in / $15 out per million): 7 × 3 + 3 × 15 = 66 millionths of a dollar.
    assert row["subagents"] == [{"id": CHILD, "tokens": {"input": 7, "cache_read": 0, "cache_write": 0,
                                                         "output": 3, "reasoning": 0, "total": 10},
                                 "cost_usd": 66e-6, "cost_usd_priced": 66e-6, "recovered_from": None}]
    assert row["cost_usd"] == doc["cost_usd"] == (100 * 3 + 40 * 15 + 66) / 1e6


def test_tokens_by_day_and_model_use_bubble_times_and_models(isolated_home: Path) -> None:
    _home_with_parent_and_child(isolated_home)
    scanner = Scanner(home=isolated_home, provider_names=["cursor"])
    by_model = token_report(scanner, by="model")
    # The child composer names no model: it inherits its parent's.
    assert [(r.key, r.tokens.total) for r in by_model.rows] == [("claude-4.5-sonnet", 150)]
    from datetime import timezone
    by_day = token_report(scanner, by="day", tz=timezone.utc)
    assert [(r.key, r.tokens.total) for r in by_day.rows] == [("2026-07-25", 150)]


def test_all_zero_bubbles_give_null_tokens_and_the_context_gauge(isolated_home: Path) -> None:
    write_transcript(isolated_home, SLUG, PARENT, [user("explain the cart"), assistant("It is a list.")])
    make_state_db(
        state_db_path(isolated_home),
        composers=[composer_data(PARENT, bubbles=["p1", "p2"], contextTokensUsed=9000,
                                 promptTokenBreakdown={"totalUsedTokens": 12_345})],
        bubbles={PARENT: [bubble("p1", 1, "explain the cart"), bubble("p2", 2, "It is a list.")]},
    )
    scanner = Scanner(home=isolated_home, provider_names=["cursor"])
    (row,) = scanner.list_sessions()
    assert row.tokens is None
    report = token_report(scanner)
    assert report.rows[0].tokens is None and report.total is None
    detail = scanner.show(PARENT)
    doc = detail.to_json()
    assert doc["tokens"] is None
    assert doc["context_tokens"] == 12_345  # promptTokenBreakdown wins over contextTokensUsed


def test_context_gauge_falls_back_to_context_tokens_used(isolated_home: Path, monkeypatch) -> None:
    cursor_only(monkeypatch)
    write_transcript(isolated_home, SLUG, PARENT, [user("q")])
    make_state_db(state_db_path(isolated_home), composers=[composer_data(PARENT, contextTokensUsed=9000)])
    result = CliRunner().invoke(app, ["show", PARENT, "--json"])
    assert result.exit_code == 0, result.output
    session = orjson.loads(result.stdout)["session"]
    assert session["tokens"] is None
    assert session["context_tokens"] == 9000


def test_no_bubbles_at_all_is_null_not_zero(isolated_home: Path) -> None:
    write_transcript(isolated_home, SLUG, PARENT, [user("q")])
    (row,) = Scanner(home=isolated_home, provider_names=["cursor"]).list_sessions()
    assert row.tokens is None


def test_orphan_bubbles_count_as_spend(isolated_home: Path) -> None:
    """A regenerated answer is gone from the conversation but was still billed."""
    write_transcript(isolated_home, SLUG, PARENT, [user("q"), assistant("second try")])
    make_state_db(
        state_db_path(isolated_home),
        composers=[composer_data(PARENT, bubbles=["u", "a2"])],
        bubbles={PARENT: [bubble("u", 1, "q"), bubble("a1", 2, "first try", tokens=(50, 5)),
                          bubble("a2", 2, "second try", tokens=(60, 6))]},
    )
    (row,) = Scanner(home=isolated_home, provider_names=["cursor"]).list_sessions()
    assert row.tokens.total == 121


def test_negative_and_junk_counts_are_zero(isolated_home: Path) -> None:
    write_transcript(isolated_home, SLUG, PARENT, [user("q")])
    junk = bubble("a", 2, "x")
    junk["tokenCount"] = {"inputTokens": -5, "outputTokens": "12"}
    make_state_db(state_db_path(isolated_home), composers=[composer_data(PARENT)],
                  bubbles={PARENT: [junk, bubble("b", 2, "y", tokens=(3, 4))]})
    (row,) = Scanner(home=isolated_home, provider_names=["cursor"]).list_sessions()
    assert (row.tokens.input, row.tokens.output) == (3, 4)
