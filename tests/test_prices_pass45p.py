"""A terminal-output review's findings (pass 45) on ``prices`` and the no-price warning:

- 1: at 80 columns ``prices`` cut each row's MODEL (``claude-son…``) while the cache prices
  and PRICED AS stayed whole, and at 60 MODEL was wider than at 80.  MODEL, the person's own
  names, now outlasts the providers, the cache prices, PRICED AS's width and OUTPUT, at every
  width (docs/cli.md: a row's name is cut only with no column left to go).
- 2: in a pipe, stdout began with ``price data: …`` above the header, and a tier's line had
  empty PROVIDER and MODEL cells (``awk '{print $2}'`` read ``data:`` and ``200k``): the
  line goes to stderr, and a tier is a row naming its model, its size in ABOVE.
- 3: the no-price warning said the table's legend again, in Markdown, with ``(`null` in
  JSON)``, and no next step; the legend pointed to the warnings and ``prices --help``.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.term import width_of
from pricing_builders import claude_unknown_model_session

runner = CliRunner()
NAMES = ("claude-sonnet-4-5-20250929", "sonnet-4.5")  # one answer: MODEL tells them apart


def _run(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout, result.stderr


def _table(*args: str) -> list[list[str]]:
    """A terminal's table: its rows' cells (two spaces apart), the price data's line left out
    (wrapped on a narrow terminal, pass 49)."""
    lines = _run(*args)[0].splitlines()
    assert lines[0].startswith("price data: ")
    lines = lines[1:]
    while lines and lines[0].startswith("  "):
        lines = lines[1:]
    return [[cell.strip() for cell in line.split("  ") if cell.strip()] for line in lines]


# --- 1: MODEL outlasts PRICED AS's width and the cache prices -----------------------------------

@pytest.mark.parametrize("width", [60, 80, 100, 120, 200])
def test_the_names_asked_are_whole_while_the_cache_prices_and_the_answer_s_width_give_way(
        isolated_home: Path, tty, width: int) -> None:  # noqa: ANN001
    tty(width, color=False)
    rows = _table("prices", *NAMES)
    header, named = rows[0], [row for row in rows[1:] if not row[0].startswith("above")]
    assert [row[0] for row in named] == list(NAMES)  # never cut
    assert header[:2] == ["MODEL", "PRICED AS"]
    if "CACHE READ" in header or "CACHE WRITE" in header:
        # the cache prices only beside a whole answer
        assert [row[1] for row in named] == ["anthropic/claude-sonnet-4-5"] * 2
    assert all(width_of(line) <= width for line in _run("prices", *NAMES)[0].splitlines())


@pytest.mark.parametrize("narrow, wide", [(60, 80), (80, 100), (100, 120), (120, 200)])
def test_a_wider_terminal_never_shows_less(isolated_home: Path, tty, narrow: int, wide: int) -> None:  # noqa: ANN001
    """At 60 MODEL was wider than at 80: it was cut at 80, the cache prices whole."""
    headers = {}
    for width in (narrow, wide):
        tty(width, color=False)
        lines = _run("--demo", "prices")[0].splitlines()
        headers[width] = [cell.strip() for cell in lines[1].split("  ") if cell.strip()]
        # every model named whole (the demo's longest, 26 characters, fits beside INPUT at 60)
        names = [line.split()[lines[1].split().index("MODEL")] for line in lines[2:] if line[0] != " "]
        assert not any(name.endswith("…") for name in names), (width, names)
    assert set(headers[narrow]) <= set(headers[wide])


def test_at_80_the_demo_keeps_every_model_name_whole(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(80, color=False)
    out, err = _run("--demo", "prices")
    lines = out.splitlines()
    assert lines[1].split()[:3] == ["MODEL", "PRICED", "AS"]
    assert "…" not in out
    assert "left out to fit 80 columns: PROVIDER, CACHE WRITE, CACHE READ" in " ".join(err.split())


def test_the_names_cut_only_once_output_is_gone(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(40, color=False)
    rows = _table("prices", *NAMES)
    assert rows[0] == ["MODEL", "PRICED AS", "INPUT"]
    # (PRICED AS cut from its start, pass 49: ``…/claude-sonnet-4-5``)
    assert rows[1][0].endswith("…") and rows[1][1].startswith("…")


# --- 2: a pipe gets the table alone, a line a row, every cell filled ----------------------------

def test_a_pipe_s_stdout_is_the_table_and_a_tier_names_its_model(isolated_home: Path) -> None:
    out, err = _run("--demo", "prices")
    lines = out.splitlines()
    assert lines[0].split() == ["PROVIDER", "MODEL", "PRICED", "AS", "ABOVE", "INPUT", "OUTPUT", "CACHE", "READ",
                                "CACHE", "WRITE"]
    assert "price data: genai-prices " in err and "price data" not in out
    rows = [line.split() for line in lines[1:]]
    assert all(len(row) == 8 for row in rows)  # awk's fields are the columns on every row
    tiers = [row for row in rows if row[3] != "0"]
    assert ["claude", "claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4-5", "200000", "$6.00", "$22.50",
            "$0.60", "$7.50"] in tiers
    assert all(row[1] != "" and row[3].isdigit() for row in rows)


def test_quiet_says_nothing_on_stderr_and_json_is_unchanged(isolated_home: Path) -> None:
    out, err = _run("--quiet", "--demo", "prices")
    assert err == "" and out.splitlines()[0].startswith("PROVIDER")
    doc = orjson.loads(_run("--demo", "prices", "--json")[0])
    assert set(doc) == {"schema", "prices", "stale_fetch", "at", "models", "warnings"}


def test_a_terminal_keeps_the_price_data_above_and_the_tier_under_its_model(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(200, color=False)
    out = _run("prices", "claude-sonnet-4-5")[0].splitlines()
    assert out[0].startswith("price data: ") and "ABOVE" not in out[1]
    assert out[3].split()[:3] == ["above", "200k", "$6.00"]


# --- 3: the warning says the fact and what to do, once -----------------------------------------

def _warning(home: Path, model: str) -> str:
    claude_unknown_model_session(home, model=model)
    doc = orjson.loads(runner.invoke(app, ["tokens", "--json"]).stdout)
    [message] = [w["message"] for w in doc["warnings"] if w["path"] == f"model:claude/{model}"]
    return message


def test_a_model_of_one_s_own_is_said_once_without_markdown(isolated_home: Path) -> None:
    message = _warning(isolated_home, "aide-gpt-5")
    assert "`" not in message and "null" not in message and "Prices:" not in message
    assert message.count("genai-prices") == 1 and message.count("≥") == 1
    # (pass 49) in whole words: a "≥$…" there read as a message cut off
    assert "≥$…" not in message and "shows as - (unknown) or with ≥ (a lower bound)" in message
    assert message.endswith("a name of one's own (a gateway's, a local model's) is in no public price list: "
                            "a price list of your own prices it (AGENTSCAN_PRICES_URL: docs/pricing.md)")


def test_a_public_model_s_warning_names_the_update(isolated_home: Path) -> None:
    message = _warning(isolated_home, "claude-opus-99-1")
    assert "`" not in message
    assert message.endswith("; for a model newer than this data, agentscan prices --update fetches newer prices")


def test_the_legend_says_only_the_legend(isolated_home: Path, tty) -> None:  # noqa: ANN001
    claude_unknown_model_session(isolated_home)
    tty(200, color=False)
    err = runner.invoke(app, ["tokens", "--by", "model"]).stderr.splitlines()
    [legend] = [line for line in err if line.startswith("COST ")]
    assert legend == "COST '-': unknown"
    [warning] = [line for line in err if line.startswith("warning: ")]
    assert warning.startswith("warning: Claude Code model aide-gpt-5: no price: genai-prices ")
    assert "a cost that includes its calls shows as - (unknown) or with ≥ (a lower bound)" in warning
