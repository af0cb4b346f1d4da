"""``agentscan prices`` without a MODEL: what the models the person's own sessions recorded cost.

A row per model a call names (the session's and its subagents'), looked up as the agent
that recorded it records it, by agent then name; ``-p`` keeps one agent's; ``--json`` is
``prices MODEL --json``'s document with ``recorded_by``.  No model recorded: the one line
and a hint.  A warm run takes the lookups from the index (no genai-prices lookup).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentscan.pricing import lookup, ownmodels, source
from agentscan.scan.recordedmodels import recorded_models
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, cli_json, invoke
from codex_builders import at, meta, rollout_path, token_count, turn_context, usage, user_message, write_rollout

CLAUDE_ID = "aaaaaaaa-1111-4111-8111-111111111111"
CODEX_ID = "019a0000-0000-7000-8000-00000000abcd"
#: a name no price data has: its row says so
UNKNOWN = "acme-coder-9000"


def _home(home: Path, *, unknown: bool = False) -> None:
    """A Claude session on Sonnet whose subagent ran Haiku (and one synthetic message, which
    no model made), and a Codex session on gpt-5-codex."""
    session = CLAUDE_ID
    records: list[dict[str, Any]] = [
        claude_user(session, "2026-03-02T09:00:00.000Z", "hello"),
        claude_assistant(session, "2026-03-02T09:00:05.000Z", msg_id="msg_1", request_id="req_1",
                         usage=claude_usage(input=100, output=20)),
        claude_assistant(session, "2026-03-02T09:00:06.000Z", msg_id="msg_2", request_id=None,
                         usage=claude_usage(), model="<synthetic>"),
    ]
    if unknown:
        records.append(claude_assistant(session, "2026-03-02T09:00:07.000Z", msg_id="msg_3", request_id="req_3",
                                        usage=claude_usage(input=10, output=2), model=UNKNOWN))
    claude_session_file(home, session, records)
    claude_subagent_file(home, session, "a1", [
        claude_user(session, "2026-03-02T09:00:02.000Z", "look", sidechain=True),
        claude_assistant(session, "2026-03-02T09:00:03.000Z", msg_id="msg_s", request_id="req_s", sidechain=True,
                         usage=claude_usage(input=50, output=5), model="claude-haiku-4-5-20251001"),
    ])
    codex = home / ".codex"
    write_rollout(rollout_path(codex, CODEX_ID, at(0)), [
        meta(CODEX_ID, at(0)),
        turn_context(at(1), model="gpt-5-codex"),
        user_message(at(1), "hi"),
        token_count(at(10), usage(1000, 200, 50), usage(1000, 200, 50)),
    ])


def test_prices_alone_prints_the_table_of_the_models_the_sessions_recorded(isolated_home: Path) -> None:
    _home(isolated_home)
    result = invoke("prices")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    # A pipe (pass 45): the table alone on stdout, the price data named on stderr, and a tier a
    # row naming its provider and model, its size in ABOVE (0: the model's own prices).
    assert f"price data: {source.current({}).label}" in result.stderr.splitlines()
    assert lines[0].split() == ["PROVIDER", "MODEL", "PRICED", "AS", "ABOVE", "INPUT", "OUTPUT", "CACHE", "READ",
                                "CACHE", "WRITE"]
    named = [tuple(line.split()[:3]) for line in lines[1:] if line.split()[3] == "0"]
    # By agent (Claude's first), then by name; the subagent's model too; ``<synthetic>`` is none.
    assert named == [("claude", "claude-haiku-4-5-20251001", "anthropic/claude-haiku-4-5"),
                     ("claude", "claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4-5"),
                     ("codex", "gpt-5-codex", "openai/gpt-5")]
    # The table ``prices MODEL`` prints for those names, tiers and all, each row after its agent.
    assert [line.split()[:4] for line in lines[1:] if line.split()[3] != "0"] == [
        ["claude", "claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4-5", "200000"]]
    asked = invoke("prices", "claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929", "gpt-5-codex").stdout
    assert [line.split()[1:] for line in lines[1:]] == [line.split() for line in asked.splitlines()[1:]]


def test_json_is_the_prices_document_with_the_agents_that_recorded_each_model(isolated_home: Path) -> None:
    _home(isolated_home)
    doc = cli_json("prices")
    assert doc["schema"] == "agentscan.prices/1" and doc["warnings"] == []
    assert [(m["query"], m["model_id"], m["recorded_by"]) for m in doc["models"]] == [
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5", ["claude"]),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5", ["claude"]),
        ("gpt-5-codex", "gpt-5", ["codex"]),
    ]
    # Each entry is ``prices MODEL --json``'s for that name as its agent records it, plus ``recorded_by``.
    asked = cli_json("prices", "-p", "codex", "gpt-5-codex")["models"][0]
    assert asked["recorded_by"] is None
    assert doc["models"][2] == {**asked, "recorded_by": ["codex"]}


def test_provider_keeps_one_agent_s_models(isolated_home: Path) -> None:
    _home(isolated_home)
    assert [m["query"] for m in cli_json("prices", "-p", "codex")["models"]] == ["gpt-5-codex"]
    assert [m["query"] for m in cli_json("prices", "--provider", "Claude")["models"]] == [
        "claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929"]
    # An agent with no sessions: no models, as an empty home.
    assert cli_json("prices", "-p", "gemini")["models"] == []


def test_a_recorded_model_with_no_price_has_its_row_and_a_warning(isolated_home: Path) -> None:
    _home(isolated_home, unknown=True)
    result = invoke("prices", "-p", "claude")
    row = next(line for line in result.stdout.splitlines() if UNKNOWN in line)
    assert row.split() == ["claude", UNKNOWN, "no", "price", "-", "-", "-", "-", "-"]  # (ABOVE ``-``: pass 57)
    assert result.exit_code == 0 and f"Claude Code model {UNKNOWN}: no price" in result.stderr
    doc = cli_json("prices", "-p", "claude")
    entry = next(m for m in doc["models"] if m["query"] == UNKNOWN)
    assert entry["model_id"] is None and entry["recorded_by"] == ["claude"]
    assert [w["path"] for w in doc["warnings"]] == [f"model:claude/{UNKNOWN}"]
    assert invoke("--strict", "prices", "-p", "claude").exit_code == 1


def test_no_sessions_keeps_the_one_line_and_hints_how_to_ask(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(100)
    result = invoke("prices")
    assert result.exit_code == 0 and result.stdout.splitlines() == [f"price data: {source.current({}).label}"]
    # (pass 49) what this home holds, and the two ways to a table
    assert result.stderr.splitlines() == [
        "no sessions found in this home",
        "`agentscan prices MODEL` gives a model's prices (`agentscan prices sonnet-4.5 gpt-5`); or try",
        "  `agentscan --demo prices`"]
    assert invoke("prices", "-p", "codex").stderr.startswith("no Codex CLI sessions found in this home\n")
    assert cli_json("prices")["models"] == []


def test_the_demo_shows_every_agent_s_models(isolated_home: Path) -> None:
    doc = cli_json("--demo", "prices")
    by_name = {m["query"]: m for m in doc["models"]}
    # Cursor's own name of Sonnet 4.5, priced as Cursor records it.
    assert by_name["claude-4.5-sonnet"]["model_id"] == "claude-sonnet-4-5"
    assert by_name["claude-4.5-sonnet"]["recorded_by"] == ["cursor"]
    agents = [m["recorded_by"][0] for m in doc["models"]]
    assert agents == sorted(agents, key=["claude", "codex", "gemini", "cursor"].index)
    assert set(agents) == {"claude", "codex", "gemini", "cursor"}
    # ``tokens --by model`` names the same models.
    assert set(by_name) == {row["key"] for row in cli_json("--demo", "tokens", "--by", "model")["rows"]}


def test_a_warm_run_takes_the_lookups_from_the_index(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)
    calls: list[str] = []
    real = lookup.look_up_lasting

    def counted(data, name, provider, when):  # noqa: ANN001, ANN202
        calls.append(name)
        return real(data, name, provider, when)

    monkeypatch.setattr(lookup, "look_up_lasting", counted)
    first = cli_json("prices")
    assert sorted(calls) == ["claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929", "gpt-5-codex"]
    calls.clear()
    assert cli_json("prices") == first and calls == []
    # Without the index, looked up again.
    assert cli_json("--no-cache", "prices") == first and len(calls) == 3


def test_a_kept_answer_holds_until_its_price_period_ends(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)
    data = source.current({})
    with Scanner(home=isolated_home, use_cache=True) as scanner:
        recorded = recorded_models(scanner, ["claude"])
        first = ownmodels.recorded_prices(data, recorded, scanner.cache)
        calls: list[str] = []

        def ending_at_2000(data, name, provider, when):  # noqa: ANN001, ANN202
            calls.append(name)
            return {**first[0], "query": name}, 2_000.0

        monkeypatch.setattr(lookup, "look_up_lasting", ending_at_2000)
        cache = scanner.cache
        assert cache is not None
        # Kept with an end: asked before it, the kept answer; at or after it, asked again.
        cache.put_meta(ownmodels.MEMO_KEY, "")  # a damaged value only costs the lookups
        ownmodels.recorded_prices(data, recorded[:1], cache, now=1_000.0)
        assert len(calls) == 1
        kept = ownmodels.recorded_prices(data, recorded[:1], cache, now=1_999.0)
        assert len(calls) == 1 and kept == [{**first[0], "recorded_by": ["claude"]}]
        ownmodels.recorded_prices(data, recorded[:1], cache, now=2_000.0)
        assert len(calls) == 2
        # Other price data: none of the kept answers holds.
        other = data._replace(source="fetched", sha256="0" * 64)
        ownmodels.recorded_prices(other, recorded[:1], cache, now=1_000.0)
        assert len(calls) == 3


def test_a_name_two_agents_record_and_price_alike_is_one_entry() -> None:
    data = source.current({})
    gpt5 = lookup.look_up(data, "gpt-5", "codex", None)
    assert gpt5 == lookup.look_up(data, "gpt-5", "cursor", None)
    entries = ownmodels.merged([("codex", gpt5), ("cursor", gpt5), ("claude", {**gpt5, "query": "other"})])
    assert [(e["query"], e["recorded_by"]) for e in entries] == [("gpt-5", ["codex", "cursor"]), ("other", ["claude"])]
    # One name two agents price apart: one entry each, in the order met.
    other_price = {**gpt5, "model_id": "gpt-5-other", "provider": "somewhere"}
    entries = ownmodels.merged([("codex", gpt5), ("cursor", other_price)])
    assert [(e["model_id"], e["recorded_by"]) for e in entries] == [(gpt5["model_id"], ["codex"]), ("gpt-5-other", ["cursor"])]


def test_recorded_models_leave_out_calls_that_name_no_model(isolated_home: Path) -> None:
    _home(isolated_home)
    with Scanner(home=isolated_home) as scanner:
        assert recorded_models(scanner) == [("claude", "claude-haiku-4-5-20251001"),
                                            ("claude", "claude-sonnet-4-5-20250929"), ("codex", "gpt-5-codex")]
    with Scanner(home=isolated_home, provider_names=["codex"]) as scanner:
        assert recorded_models(scanner) == [("codex", "gpt-5-codex")]


def test_an_answer_lasts_until_the_model_s_price_changes() -> None:
    """genai-prices' Claude Opus 4.6 had a long-context premium until 2026-03-13: an answer
    given before then holds until then, one given after it while the data is the same."""
    from datetime import datetime, timezone

    data = source.current({})
    before = datetime(2026, 3, 5, tzinfo=timezone.utc)
    found, until = lookup.look_up_lasting(data, "claude-opus-4-6", "claude", before)
    assert until == datetime(2026, 3, 13, tzinfo=timezone.utc).timestamp()
    assert found == lookup.look_up(data, "claude-opus-4-6", "claude", before)
    assert lookup.look_up_lasting(data, "claude-opus-4-6", "claude", datetime(2026, 4, 1, tzinfo=timezone.utc))[1] is None
    assert lookup.look_up_lasting(data, UNKNOWN, "claude", None)[1] is None


def test_a_terminal_too_narrow_for_the_providers_leaves_them_out_and_says_so(isolated_home: Path, tty) -> None:  # noqa: ANN001
    _home(isolated_home)
    tty(200)
    assert invoke("prices").stdout.splitlines()[1].split()[0] == "PROVIDER"
    tty(70)
    result = invoke("prices")
    assert "PROVIDER" not in result.stdout.splitlines()[1]
    assert "left out to fit 70 columns: PROVIDER" in " ".join(result.stderr.split())
