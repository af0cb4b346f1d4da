"""Pass 46: ``show`` prices each subagent, as ``tokens`` prices the run.

A Claude Code user's review: the card listed each subagent's tokens and no cost, and a
subagent often runs another model than its session (sonnet under an opus parent), so its
cost could not be worked out from the card; ``tokens <id>`` had it (``↳ a881341 … $0.26``).
Now each row of ``subagents`` ends in its cost, formatted as the card's own ``cost``
(``-`` unknown, ``≥$…`` a lower bound), and ``show --json``'s subagent items carry
``cost_usd`` and ``cost_usd_priced`` (numbers or ``null``), the figures ``tokens <id>
--json`` gives the run: priced by the same code from the same sums (no second read).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import orjson
import pytest

from agentscan.cli import term
from agentscan.cli.render import human_usd
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, invoke

S = "5e5e0046-0000-4000-8000-000000000046"
SONNET = "a50e0046"  # priced (sonnet, under an opus parent)
MADEUP = "a6ade046"  # a model with no price
MIXED = "a7777046"  # one priced call, one of a model with no price: a lower bound
SILENT = "a8888046"  # recorded no usage
UNPRICED_MODEL = "claude-madeup-9-20990101"


def _sub(home: Path, agent: str, calls: list[tuple[str, dict | None]]) -> None:
    records = [claude_user(S, "2026-11-01T10:00:02.000Z", f"task of {agent}", sidechain=True, agentId=agent)]
    for n, (model, usage) in enumerate(calls):
        records.append(claude_assistant(S, f"2026-11-01T10:00:0{3 + n}.000Z", msg_id=f"m-{agent}-{n}",
                                        request_id=f"r-{agent}-{n}", usage=usage, model=model,
                                        sidechain=True, agentId=agent))
    claude_subagent_file(home, S, agent, records, meta={"agentType": "Explore"})


@pytest.fixture
def home(isolated_home: Path) -> Path:
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-01T10:00:00.000Z", "delegate the work"),
        claude_assistant(S, "2026-11-01T10:00:01.000Z", msg_id="m0", request_id="r0",
                         usage=claude_usage(input=1000, output=500), model="claude-opus-4-6"),
    ])
    _sub(isolated_home, SONNET, [("claude-sonnet-4-5-20250929", claude_usage(input=100_000, output=10_000))])
    _sub(isolated_home, MADEUP, [(UNPRICED_MODEL, claude_usage(input=5000, output=50))])
    _sub(isolated_home, MIXED, [("claude-sonnet-4-5-20250929", claude_usage(input=20_000, output=1000)),
                                (UNPRICED_MODEL, claude_usage(input=700, output=7))])
    _sub(isolated_home, SILENT, [("claude-sonnet-4-5-20250929", None)])
    return isolated_home


def _json(*args: str) -> dict:
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def _runs() -> tuple[dict[str, dict], dict[str, dict]]:
    """Each run as ``show --json`` lists it, and as ``tokens --json`` does."""
    shown = {sub["id"]: sub for sub in _json("show", S)["session"]["subagents"]}
    tokens = {sub["id"]: sub for sub in _json("tokens", S)["rows"][0]["subagents"]}
    return shown, tokens


def test_json_carries_each_runs_cost_as_tokens_gives_it(home: Path) -> None:
    shown, tokens = _runs()
    assert set(shown) == {SONNET, MADEUP, MIXED, SILENT}
    for run in (SONNET, MADEUP, MIXED):
        assert (shown[run]["cost_usd"], shown[run]["cost_usd_priced"]) == \
            (tokens[run]["cost_usd"], tokens[run]["cost_usd_priced"]), run
    # Sonnet 4.5: $3 a million input tokens, $15 a million output: 0.3 + 0.15.
    assert shown[SONNET]["cost_usd"] == 0.45 and isinstance(shown[SONNET]["cost_usd"], float)
    # No price: unknown, and nothing priced to bound it (0, as ``tokens`` says: the card's ``-``).
    assert (shown[MADEUP]["cost_usd"], shown[MADEUP]["cost_usd_priced"]) == (None, 0)
    # Part priced: unknown, at least what the priced call cost (0.06 + 0.015).
    assert (shown[MIXED]["cost_usd"], shown[MIXED]["cost_usd_priced"]) == (None, 0.075)
    # No tokens recorded: no cost.
    assert shown[SILENT]["tokens"] is None
    assert (shown[SILENT]["cost_usd"], shown[SILENT]["cost_usd_priced"]) == (None, None)
    # The keys sit after the run's tokens, as a row's follow its tokens.
    keys = list(shown[SONNET])
    assert keys[keys.index("tokens") + 1:keys.index("tokens") + 3] == ["cost_usd", "cost_usd_priced"]


def test_runs_priced_call_by_call_agree_too(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session whose sums have a group of no single price is priced from its calls
    (``costs.costs_of``): its runs are split from the same calls."""
    from agentscan.scan.groupprices import GroupPrices

    _, tokens = _runs()
    monkeypatch.setattr(GroupPrices, "spend", lambda self, provider, sums, runs=None: None)
    shown = {sub["id"]: sub for sub in _json("show", S)["session"]["subagents"]}
    for run in (SONNET, MADEUP, MIXED, SILENT):
        assert (shown[run]["cost_usd"], shown[run]["cost_usd_priced"]) == \
            (tokens[run].get("cost_usd") if run != SILENT else None,
             tokens[run].get("cost_usd_priced") if run != SILENT else None), run


def test_the_card_shows_each_runs_cost_after_its_tokens(home: Path) -> None:
    result = invoke("show", S)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    rows = {line.split()[0]: line for line in lines[lines.index("subagents (4)") + 1:][:4]}
    # In a pipe: the model whole, the count plain, the cost as the card's own (``$0.45``).
    assert rows[SONNET].endswith("    110000 tokens   $0.45"), rows[SONNET]
    assert rows[MADEUP].endswith("      5050 tokens       -"), rows[MADEUP]
    assert rows[MIXED].endswith("     21707 tokens  ≥$0.08"), rows[MIXED]  # ≥$0.075, rounded as a cost is
    assert rows[SILENT].endswith("  tokens not recorded       -"), rows[SILENT]
    # One column: every cost ends where the others do.
    assert len({len(row) for row in rows.values()}) == 1, rows
    # Formatted as the card's session cost: the same function, the same rounding.
    card_cost = next(line for line in lines if line.startswith("  cost "))
    session = _json("show", S)["session"]
    assert card_cost.split()[1] == human_usd(None if session["cost_usd"] is None else Decimal(str(session["cost_usd"])),
                                             Decimal(str(session["cost_usd_priced"])))


def test_a_narrow_terminal_heads_the_cost_column(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(term, "stdout_is_tty", lambda: True)
    monkeypatch.setenv("COLUMNS", "50")
    result = invoke("show", S, "--no-pager")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("subagents (4)"))
    heading, rows = lines[at], lines[at + 1:at + 5]
    # ``tokens`` said once over the figures, ``cost`` over the costs, each column right-aligned.
    assert heading.endswith("tokens    cost"), heading
    assert all(len(row) == len(heading) <= 50 for row in rows), [heading, *rows]
    sonnet = next(row for row in rows if row.lstrip().startswith(SONNET))
    assert sonnet.endswith("110,000   $0.45"), sonnet


@pytest.mark.parametrize("session_id", ["claude:7f3c9a12", "codex:019ac2d4", "gemini:5e1f0c2a", "cursor:7c0a1e55"])
def test_every_providers_runs_are_priced_as_tokens_prices_them(session_id: str) -> None:
    shown = _json("--demo", "show", session_id)["session"]["subagents"]
    tokens = {sub["id"]: sub for sub in _json("--demo", "tokens", session_id)["rows"][0]["subagents"]}
    assert shown
    for sub in shown:
        assert sub["cost_usd"] is not None
        assert (sub["cost_usd"], sub["cost_usd_priced"]) == \
            (tokens[sub["id"]]["cost_usd"], tokens[sub["id"]]["cost_usd_priced"])
    text = invoke("--demo", "show", session_id).stdout
    row = text.splitlines()[text.splitlines().index("subagents (1)") + 1]
    assert row.endswith((" tokens  $0.01", " tokens  <$0.01")), row
