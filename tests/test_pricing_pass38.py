"""Pricing review, pass 38: variants priced at their base model's rate, parts' lower bounds,
bounds under a cent, half-up cents, and price answers remembered before variants were told apart."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.render import human_usd
from agentscan.cli.term import Terminal
from agentscan.cli.tokens_rows import row_lines
from agentscan.context import ScanContext
from agentscan.model import TokenUsage
from agentscan.pricing import PriceBook, library, source
from agentscan.pricing.aliases import variant_words
from agentscan.scan.tokenreport import TokenRow
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from cursor_builders import bubble, composer_data, cursor_only, make_state_db, state_db_path
from pricing_builders import CLAUDE_AGENT, CLAUDE_SESSION, HAIKU_CALL, per_million

T0 = 1_785_000_000_000  # 2026-07-25T17:20:00Z in ms


def run(*args: str) -> dict:
    result = CliRunner().invoke(app, [*args])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout) if "--json" in args else {"text": result.stdout, "err": result.stderr}


def _book() -> PriceBook:
    return PriceBook(ScanContext.create(env={"AGENTSCAN_DATA_DIR": "/nonexistent"}))


# -- 1. Cursor's fast and max variants ------------------------------------------------

@pytest.mark.parametrize("name", [
    "claude-4.6-opus-high-thinking-fast",  # Anthropic's fast mode: about 6x the rate
    "claude-4.6-opus-max",
    "claude-4.5-opus-max",
    "claude-4.5-opus-high-thinking-fast",
])
def test_a_fast_or_max_variant_is_not_priced_as_the_model_its_name_starts_with(name: str) -> None:
    data = source.current({})
    with pytest.raises(library.NotPriceable, match="variant"):
        library.find(data, None, name)
    book = _book()
    key = book.key("cursor", name, 1_785_000_000.0, 1_000)
    assert key < 0  # unpriced, not claude-opus-4-x's $5/$25


@pytest.mark.parametrize(("name", "model_id"), [
    ("claude-4.6-opus-high-thinking", "claude-opus-4-6"),  # thinking and effort: the base rates
    ("claude-4-sonnet-1m", "claude-sonnet-4-0"),
    ("gpt-5.1-codex-max", "gpt-5.1"),  # the library lists this name whole, under GPT-5.1
    ("grok-code-fast-1", "grok-code-fast-1"),  # "fast" in the model's own name
    ("composer-2.5-fast", "composer-2.5-fast"),
])
def test_names_the_library_knows_whole_or_that_bill_at_the_base_rate_stay_priced(name: str, model_id: str) -> None:
    assert library.find(source.current({}), None, name).model.id == model_id


def test_variant_words_are_words() -> None:
    assert variant_words("claude-4.6-opus-max") == ["max"]
    assert variant_words("gpt-5-high-fast") == ["fast"]
    assert variant_words("composer-2.5[fast=true]") == ["fast"]
    assert variant_words("minimax-m2") == variant_words("claude-4.6-opus-high-thinking") == []


def _cursor_fast_home(home: Path) -> None:
    composer = "11111111-aaaa-4000-8000-000000000001"
    make_state_db(state_db_path(home), composers=[
        composer_data(composer, name="fast", created=T0, updated=T0 + 60_000,
                      model="claude-4.6-opus-high-thinking-fast", bubbles=["a", "b"]),
    ], bubbles={composer: [
        bubble("a", 1, "go"),
        bubble("b", 2, "ok", tokens=(100_000, 10_000), created="2026-07-25T17:20:05Z",
               model="claude-4.6-opus-high-thinking-fast"),
    ]})


def test_a_cursor_fast_session_has_no_cost_and_a_warning(isolated_home: Path, monkeypatch) -> None:
    cursor_only(monkeypatch)
    _cursor_fast_home(isolated_home)
    doc = run("list", "--json")
    (row,) = doc["sessions"]
    assert row["tokens"]["total"] == 110_000 and row["cost_usd"] is None
    assert [w["path"] for w in doc["warnings"]] == ["model:cursor/claude-4.6-opus-high-thinking-fast"]
    assert "fast variant" in doc["warnings"][0]["message"]
    prices = run("prices", "-p", "cursor", "claude-4.6-opus-max", "--json")
    assert prices["models"][0]["model_id"] is None


def test_a_variant_priced_at_its_base_rate_by_an_older_run_is_asked_again(isolated_home: Path, monkeypatch) -> None:
    """The index keeps each model's answer per price data version: one written before
    variants were told apart (no ``variants`` mark) must not keep pricing them."""
    from agentscan.scan.cache import Cache

    cursor_only(monkeypatch)
    _cursor_fast_home(isolated_home)
    ctx = ScanContext.create(home=isolated_home)
    data = source.current(ctx.env)
    cache = Cache.open(ctx)
    assert cache is not None
    base = library.period_at(library.find(data, None, "claude-4.6-opus-high-thinking"), 1_785_000_005.0)
    cache.put_price(data.key, "cursor", "claude-4.6-opus-high-thinking-fast", {
        "ref": "claude-4.6-opus-high-thinking-fast", "provider_id": "anthropic", "model_id": "claude-opus-4-6",
        "periods": [base.to_json()]})
    cache.commit()
    cache.close()
    (row,) = run("list", "--json")["sessions"]
    assert row["tokens"]["total"] == 110_000 and row["cost_usd"] is None


# -- 2. the parts of a row: own and subagents ----------------------------------------

SONNET_OWN = per_million((100_000, "3"), (10_000, "15"))  # $0.45


def _partly_priced_session(home: Path) -> None:
    """Own: one Sonnet 4.5 call and one of an unknown model; its subagent: one Haiku 4.5
    call and one of the unknown model."""
    usage = dict(input=100_000, output=10_000)
    claude_session_file(home, CLAUDE_SESSION, [
        claude_user(CLAUDE_SESSION, "2025-10-01T09:00:00.000Z", "hi", uuid="u1"),
        claude_assistant(CLAUDE_SESSION, "2025-10-01T09:00:05.000Z", msg_id="m1", request_id="r1",
                         model="claude-sonnet-4-5-20250929", usage=claude_usage(**usage), uuid="a1"),
        claude_assistant(CLAUDE_SESSION, "2025-10-01T09:00:07.000Z", msg_id="m2", request_id="r2",
                         model="aide-gpt-5", usage=claude_usage(**usage), uuid="a2"),
    ])
    claude_subagent_file(home, CLAUDE_SESSION, CLAUDE_AGENT, [
        claude_user(CLAUDE_SESSION, "2025-10-01T09:00:10.000Z", "look", sidechain=True, uuid="s1", agentId=CLAUDE_AGENT),
        claude_assistant(CLAUDE_SESSION, "2025-10-01T09:00:20.000Z", msg_id="ms1", request_id="rs1",
                         model="claude-haiku-4-5-20251001", sidechain=True, agentId=CLAUDE_AGENT, uuid="s2",
                         usage=claude_usage(input=100, cache_write=2_000, cache_read=10_000, output=300)),
        claude_assistant(CLAUDE_SESSION, "2025-10-01T09:00:30.000Z", msg_id="ms2", request_id="rs2",
                         model="aide-gpt-5", sidechain=True, agentId=CLAUDE_AGENT, uuid="s3",
                         usage=claude_usage(**usage)),
    ])


@pytest.mark.parametrize("by", ["session", "day", "provider"])
def test_a_partly_priced_part_carries_its_lower_bound_in_json(isolated_home: Path, by: str) -> None:
    _partly_priced_session(isolated_home)
    (row,) = run("tokens", "--by", by, "--json")["rows"]
    assert row["cost_usd"] is None and row["cost_usd_priced"] == float(SONNET_OWN + HAIKU_CALL)
    assert row["own_cost_usd"] is None and row["own_cost_usd_priced"] == float(SONNET_OWN)
    (sub,) = row["subagents"]
    assert sub["cost_usd"] is None and sub["cost_usd_priced"] == float(HAIKU_CALL)


@pytest.mark.parametrize("by", ["session", "day", "provider"])
def test_a_partly_priced_part_shows_its_lower_bound_in_the_table(isolated_home: Path, tty, by: str) -> None:  # noqa: ANN001
    _partly_priced_session(isolated_home)
    (row,) = run("tokens", "--by", by, "--json")["rows"]
    tty(200, color=False)  # a row's parts are shown on a terminal (a pipe gets a line a row: pass 42)
    out = run("tokens", "--by", by)
    lines = out["text"].splitlines()
    if by != "session":
        # Grouped, a row is one line (pass 45): its bound, and its runs' tokens in SUBAGENTS
        # (their costs, bounds too, are --json's: above).
        (line,) = [line for line in lines if line.startswith(row["key"])]
        runs = sum(sub["tokens"]["total"] for sub in row["subagents"])
        assert line.split()[-2:] == [f"{runs:,}", "≥$0.46"]
        assert not any(line.startswith(" ") for line in lines[:lines.index(line) + 2])
        return
    own = next(line for line in lines if line.strip().startswith("own"))
    assert own.split()[-1] == "≥$0.45"
    # the subagent's part, one line; its priced Haiku call cost $0.0051, under a cent
    assert lines[lines.index(own) + 1].split()[-1] == "≥<$0.01", lines


def test_a_fully_priced_row_gives_its_parts_their_costs_as_bounds() -> None:
    usage = TokenUsage(1, 0, 0, 1, 0)
    row = TokenRow("k", usage, usage, (("a", usage),), Decimal("0.2"), Decimal("0.15"), (Decimal("0.05"),),
                   cost_priced=Decimal("0.2"), subagents_cost=Decimal("0.05"))
    assert row.own_cost_priced == Decimal("0.15") and row.subagent_costs_priced == (Decimal("0.05"),)
    assert row.subagents_cost_priced == Decimal("0.05")
    doc = row.to_json()
    assert doc["own_cost_usd_priced"] == 0.15 and doc["subagents"][0]["cost_usd_priced"] == 0.05


def test_row_lines_show_a_part_s_bound() -> None:
    usage = TokenUsage(1_000, 0, 0, 100, 0)
    row = TokenRow("2025-10-01", usage, usage, (("s/a", usage),), None, None, (None,),
                   cost_priced=Decimal("0.43"), unpriced_models=("aide-gpt-5",),
                   own_cost_priced=Decimal("0.40"), subagent_costs_priced=(Decimal("0.03"),),
                   subagents_cost_priced=Decimal("0.03"))
    term = Terminal(tty=True, width=200, color=False)  # (a pipe gets no part's line: pass 42)
    # By session a part's line each, its cost before the title.
    lines = row_lines(row, "claude:1", ["2025-10-01", "~/app", "a title"], term, compact=False)
    assert [line.cells[-2] for line in lines] == ["≥$0.43", "≥$0.40", "≥$0.03"]
    # Grouped one line (pass 45): the row's bound, its runs' 1,100 tokens in SUBAGENTS.
    (line,) = row_lines(row, "2025-10-01", [], term, compact=False)
    assert line.cells[-3:] == ["1,100", "1,100", "≥$0.43"]


# -- 3 and 4. cents --------------------------------------------------------------------

@pytest.mark.parametrize(("exact", "shown"), [
    ("0.105", "$0.11"), ("0.115", "$0.12"), ("0.104999", "$0.10"), ("0.125", "$0.13"),
    ("1234.565", "$1,234.57"), ("0.01", "$0.01"), ("0.005", "<$0.01"), ("0", "$0.00"),
])
def test_cents_are_rounded_half_up_from_the_exact_decimal(exact: str, shown: str) -> None:
    assert human_usd(Decimal(exact)) == shown
    assert human_usd(Decimal(exact), grouped=False) == shown.replace(",", "")


@pytest.mark.parametrize(("priced", "shown"), [
    (None, "-"), ("0", "-"), ("0.004", "≥<$0.01"), ("0.0099", "≥<$0.01"), ("0.01", "≥$0.01"), ("0.4399", "≥$0.44"), ("0.4349", "≥$0.43"),
])
def test_a_lower_bound_under_a_cent_is_not_a_dash(priced: str | None, shown: str) -> None:
    assert human_usd(None, None if priced is None else Decimal(priced)) == shown


def test_list_show_and_tokens_round_a_half_cent_alike(isolated_home: Path) -> None:
    # 35,000 Sonnet 4.5 input tokens at $3 per million: exactly $0.105
    claude_session_file(isolated_home, CLAUDE_SESSION, [
        claude_user(CLAUDE_SESSION, "2025-10-01T09:00:00.000Z", "hi", uuid="u1"),
        claude_assistant(CLAUDE_SESSION, "2025-10-01T09:00:05.000Z", msg_id="m1", request_id="r1",
                         model="claude-sonnet-4-5-20250929", usage=claude_usage(input=35_000), uuid="a1"),
    ])
    assert run("list", "--json")["sessions"][0]["cost_usd"] == 0.105
    assert "$0.11" in run("list")["text"].split()
    assert "$0.11" in run("show", CLAUDE_SESSION)["text"].split()
    assert "$0.11" in run("tokens")["text"].split()
