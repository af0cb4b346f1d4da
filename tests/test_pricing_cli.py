"""Cost on every surface: list, show, export, otlp, and the `prices` command with its explicit update."""

from __future__ import annotations

import csv
import sqlite3
from decimal import Decimal
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.export import migrations
from agentscan.pricing import source
from cursor_builders import assistant, bubble, composer_data, cursor_only, make_state_db, state_db_path, user, write_transcript
from otlp_builders import AGENT, claude_delegating_session, read_otlp_file
from pricing_builders import (
    CLAUDE_SESSION, HAIKU_CALL, SONNET_CALL_1, SONNET_CALL_2, PriceServer, claude_sonnet_session, claude_unknown_model_session,
    per_million, price_data,
)

SESSION_COST = SONNET_CALL_1 + SONNET_CALL_2 + HAIKU_CALL
T0 = 1_785_000_000_000  # 2026-07-25T17:20:00Z in ms


def run(*args: str) -> dict:
    result = CliRunner().invoke(app, [*args])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout) if "--json" in args else {"text": result.stdout}


def test_list_and_show_carry_the_session_cost(isolated_home: Path) -> None:
    claude_sonnet_session(isolated_home)
    doc = run("list", "--json")
    (row,) = doc["sessions"]
    assert row["cost_usd"] == float(SESSION_COST)
    assert doc["prices"]["version"] == f"bundled/{source.package_version()}"
    assert run("show", CLAUDE_SESSION, "--json")["session"]["cost_usd"] == float(SESSION_COST)
    lines = run("list")["text"].splitlines()
    assert lines[0].split()[:4] == ["ID", "UPDATED", "TOKENS", "COST"]
    assert "$0.33" in lines[1].split()
    assert "cost     $0.33" in run("show", CLAUDE_SESSION)["text"]


def test_cursor_sessions_without_usage_have_null_cost_and_aliases_are_priced(isolated_home: Path, monkeypatch) -> None:
    cursor_only(monkeypatch)
    silent, spoken = "aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002"
    for composer in (silent, spoken):
        write_transcript(isolated_home, "home-dev-shop", composer, [user("hi"), assistant("hello")])
    make_state_db(
        state_db_path(isolated_home),
        composers=[composer_data(silent, name="no usage", created=T0, bubbles=["b1"]),
                   composer_data(spoken, name="priced", created=T0, bubbles=["b2", "b3"])],
        bubbles={
            silent: [bubble("b1", 2, "hello", tokens=(0, 0))],
            spoken: [bubble("b2", 2, "hello", tokens=(1_000, 100), model="claude-4.5-sonnet-thinking",
                            created="2026-07-25T17:20:05Z"),
                     bubble("b3", 2, "again", tokens=(10, 10), model="default", created="2026-07-25T17:20:09Z")],
        },
    )
    rows = {row["native_id"]: row for row in run("list", "--json")["sessions"]}
    assert rows[silent]["tokens"] is None and rows[silent]["cost_usd"] is None
    assert rows[spoken]["tokens"]["total"] == 1_120
    assert rows[spoken]["cost_usd"] is None  # its "default" (auto) bubble has no price
    by_model = {row["key"]: row for row in run("tokens", "--by", "model", "--json")["rows"]}
    assert by_model["claude-4.5-sonnet-thinking"]["cost_usd"] == float(per_million((1_000, "3"), (100, "15")))
    assert by_model["default"]["cost_usd"] is None
    doc = run("tokens", "--json")
    assert {row["key"]: row["cost_usd"] for row in doc["rows"]} == {f"cursor:{silent}": None, f"cursor:{spoken}": None}
    assert [w["path"] for w in doc["warnings"]] == ["model:cursor/default"]
    assert "'default'" in doc["warnings"][0]["message"]


def test_exports_carry_cost_per_session_and_per_usage_day(isolated_home: Path, tmp_path: Path) -> None:
    claude_sonnet_session(isolated_home)
    out_csv, out_jsonl, out_db = tmp_path / "s.csv", tmp_path / "s.jsonl", tmp_path / "s.sqlite"
    assert run("export", "-f", "csv", "-o", str(out_csv), "--json")["prices"]["source"] == "bundled"
    run("export", "-f", "jsonl", "-o", str(out_jsonl))
    run("export", "-f", "sqlite", "-o", str(out_db))
    with out_csv.open(newline="") as handle:
        (csv_row,) = csv.DictReader(handle)
    assert Decimal(csv_row["cost_usd"]) == SESSION_COST
    assert orjson.loads(out_jsonl.read_bytes())["cost_usd"] == float(SESSION_COST)
    with sqlite3.connect(out_db) as db:
        assert db.execute("SELECT cost_usd FROM sessions").fetchone()[0] == pytest.approx(float(SESSION_COST), abs=1e-12)
        days = db.execute("SELECT model, subagent_id, cost_usd FROM token_days ORDER BY model").fetchall()
        assert days == [("claude-haiku-4-5-20251001", "a1b2c3d", pytest.approx(float(HAIKU_CALL), abs=1e-12)),
                        ("claude-sonnet-4-5-20250929", "", pytest.approx(float(SONNET_CALL_1 + SONNET_CALL_2), abs=1e-12))]
        assert db.execute("SELECT cost_usd FROM subagents").fetchone()[0] == pytest.approx(float(HAIKU_CALL), abs=1e-12)


def test_an_export_database_from_before_costs_gets_the_columns(isolated_home: Path, tmp_path: Path) -> None:
    claude_sonnet_session(isolated_home)
    out_db = tmp_path / "old.sqlite"
    run("export", "-f", "sqlite", "-o", str(out_db))
    with sqlite3.connect(out_db) as db:  # what an export made before costs looks like
        for table in ("sessions", "subagents", "token_days"):
            db.execute(f"ALTER TABLE {table} DROP COLUMN cost_usd")
        db.execute("DELETE FROM _agentscan_migrations WHERE name = 'm002_cost_usd'")
    run("export", "-f", "sqlite", "-o", str(out_db))
    with sqlite3.connect(out_db) as db:
        for table in ("sessions", "subagents", "token_days"):
            assert db.execute(f"SELECT count(*) FROM {table} WHERE cost_usd IS NULL").fetchone()[0] == 0, table
        assert db.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1
        names = [name for (name,) in db.execute("SELECT name FROM _agentscan_migrations ORDER BY rowid")]
        # Every migration once; m002 again last, recorded when this export re-applied it.
        assert names[-1] == "m002_cost_usd" and sorted(names) == sorted(func.__name__ for func in migrations.MIGRATIONS)


def test_otlp_chat_spans_carry_their_cost_and_agents_the_sum_below(isolated_home: Path, tmp_path: Path) -> None:
    claude_delegating_session(isolated_home)
    out = tmp_path / "t.jsonl"
    doc = run("otlp", "--output", str(out), "--json")
    assert doc["prices"]["library"] == "genai-prices"
    first_turn = read_otlp_file(out)[0]
    sonnet = [  # Sonnet 4.5: $3 in, $15 out, $0.30 cache read, $3.75 cache write
        per_million((10, "3"), (20, "15"), (100, "0.30"), (5, "3.75")),
        per_million((3, "3"), (7, "15"), (200, "0.30")),
        per_million((2, "3"), (30, "15"), (300, "0.30")),
    ]
    haiku = [per_million((5, "1"), (6, "5"), (50, "1.25")), per_million((1, "1"), (9, "5"), (50, "0.10"))]  # Haiku 4.5
    chats = {s.name: [] for s in first_turn if s.name.startswith("chat")}
    for span in first_turn:
        if span.name in chats:
            chats[span.name].append(span.attrs["agentscan.cost_usd"])
    assert {name: sorted(costs) for name, costs in chats.items()} == {
        "chat claude-sonnet-4-5-20250929": sorted(float(c) for c in sonnet),
        "chat claude-haiku-4-5-20251001": sorted(float(c) for c in haiku),
    }
    (agent,) = [s for s in first_turn if s.attrs.get("gen_ai.agent.id") == AGENT]
    assert agent.attrs["agentscan.cost_usd"] == float(sum(haiku, Decimal(0)))
    (root,) = [s for s in first_turn if not s.parent]
    assert root.attrs["agentscan.cost_usd"] == float(sum(sonnet + haiku, Decimal(0)))


@pytest.fixture
def loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


def test_prices_is_offline_by_default_and_names_the_data(isolated_home: Path) -> None:
    doc = run("prices", "claude-sonnet-4-5-20250929", "nonesuch-1", "--json")
    assert doc["prices"] == {"library": "genai-prices", "library_version": source.package_version(), "source": "bundled",
                             "version": f"bundled/{source.package_version()}", "fetched_at": None, "url": None}
    known, unknown = doc["models"]
    assert (known["provider"], known["model_id"]) == ("anthropic", "claude-sonnet-4-5")
    assert known["price_fields"]["input_mtok"] == {"base": 3.0, "tiers": [{"above": 200000, "price": 6.0}]}
    assert unknown["model_id"] is None
    assert [w["path"] for w in doc["warnings"]] == ["model:-/nonesuch-1"]


def test_a_name_one_agent_records_is_priced_without_naming_the_agent(isolated_home: Path) -> None:
    # Cursor records Sonnet 4.5 as "claude-4.5-sonnet"; `list` prices it, so `prices` must too.
    (model,) = run("prices", "claude-4.5-sonnet", "--json")["models"]
    assert (model["provider"], model["model_id"]) == ("anthropic", "claude-sonnet-4-5")
    (named,) = run("prices", "claude-4.5-sonnet", "-p", "codex", "--json")["models"]
    assert named["model_id"] is None  # --provider still means as that agent records it


def test_update_fetches_once_then_every_run_prices_with_it_offline(isolated_home: Path, monkeypatch, loopback) -> None:
    claude_sonnet_session(isolated_home)
    with PriceServer(price_data(1, 2)) as server:
        monkeypatch.setenv(source.URL_ENV, server.url)
        doc = run("prices", "--update", "--json")
        assert len(server.requests) == 1
        tokens = run("tokens", "--json")
        assert len(server.requests) == 1  # pricing itself never fetches
    assert doc["prices"]["source"] == "fetched" and doc["prices"]["url"] == server.url
    assert doc["prices"]["version"].startswith("fetched/")
    assert tokens["prices"] == doc["prices"]
    # The fetched file knows only Sonnet 4.5 ($1 in, $2 out, no cache prices: cached tokens bill as input).
    (row,) = tokens["rows"]
    assert row["own_cost_usd"] == float(per_million((1_200 + 20_000 + 150_000 + 500 + 1_000 + 210_000, "1"), (3_300, "2")))
    assert row["subagents"][0]["cost_usd"] is None  # Haiku is not in that file
    assert [w["path"] for w in tokens["warnings"]] == ["model:claude/claude-haiku-4-5-20251001"]
    # --reset goes back to the bundled data and its prices.
    assert run("prices", "--reset", "--json")["prices"]["source"] == "bundled"
    assert run("tokens", "--json")["rows"][0]["cost_usd"] == float(SESSION_COST)


def test_a_failed_update_changes_nothing(isolated_home: Path, monkeypatch, loopback) -> None:
    with PriceServer(b'{"not": "a provider list"}') as server:
        monkeypatch.setenv(source.URL_ENV, server.url)
        result = CliRunner().invoke(app, ["prices", "--update"])
    assert result.exit_code == 1 and "not valid" in result.stderr
    with PriceServer(b"gone", status=404) as server:
        monkeypatch.setenv(source.URL_ENV, server.url)
        result = CliRunner().invoke(app, ["prices", "--update"])
    assert result.exit_code == 1 and "could not fetch" in result.stderr
    assert "the server answered 404" in result.stderr and "developer.mozilla.org" not in result.stderr
    monkeypatch.setenv(source.URL_ENV, "http://127.0.0.1:9/refused")  # discard: nothing listens
    result = CliRunner().invoke(app, ["prices", "--update"])
    assert result.exit_code == 1 and "could not fetch" in result.stderr and "[Errno" not in result.stderr
    assert run("prices", "--json")["prices"]["source"] == "bundled"
    assert not (isolated_home.parent / "agentscan-data" / "prices").exists()


@pytest.mark.parametrize("data", [b"[]", b'[{"id": "acme", "name": "Acme", "api_pattern": "acme", "models": []}]'])
def test_an_update_that_prices_no_agent_s_model_changes_nothing(isolated_home: Path, monkeypatch, loopback,
                                                               data: bytes) -> None:
    # Valid to genai-prices' parser; saved, every cost would be unknown from then on.
    claude_sonnet_session(isolated_home)
    with PriceServer(data) as server:
        monkeypatch.setenv(source.URL_ENV, server.url)
        result = CliRunner().invoke(app, ["prices", "--update"])
    assert result.exit_code == 1, result.output
    assert "prices no anthropic, openai, google model" in result.stderr and "kept" in result.stderr
    assert run("prices", "--json")["prices"]["source"] == "bundled"
    assert run("tokens", "--json")["rows"][0]["cost_usd"] == float(SESSION_COST)


def test_data_fetched_for_another_library_version_is_not_used(isolated_home: Path, monkeypatch, loopback) -> None:
    with PriceServer(price_data(1, 2)) as server:
        monkeypatch.setenv(source.URL_ENV, server.url)
        run("prices", "--update")
    meta_path = isolated_home.parent / "agentscan-data" / "prices" / source.META_FILE
    meta = orjson.loads(meta_path.read_bytes())
    meta_path.write_bytes(orjson.dumps({**meta, "library_version": "0.0.1"}))
    doc = run("prices", "--json")
    assert doc["prices"]["source"] == "bundled"
    assert "0.0.1" in doc["stale_fetch"]


@pytest.mark.parametrize(("args", "said"), [
    (["prices", "nonesuch-1"], "warning: model nonesuch-1: no price for 'nonesuch-1'"),
    (["prices", "nonesuch-1", "--provider", "codex"], "warning: Codex CLI model nonesuch-1: no price"),
])
def test_a_price_warning_names_the_model_in_words_on_stderr(isolated_home: Path, args: list[str], said: str) -> None:
    # JSON's "path" is a key to group by (model:-/nonesuch-1); a person read it as a path.
    from typer.testing import CliRunner

    from agentscan.cli import app

    result = CliRunner().invoke(app, args)
    assert said in result.stderr and "model:" not in result.stderr, result.stderr


def test_a_model_of_one_s_own_is_told_the_price_list_that_prices_it_and_it_does(isolated_home: Path, monkeypatch,
                                                                                  loopback) -> None:
    # (pass 59) It said agentscan could not be given its price, and that ``-q`` hides it (not
    # under ``--strict``, and a JSON reader has no ``-q``).
    claude_unknown_model_session(isolated_home)
    [warning] = run("tokens", "--json")["warnings"]
    message = warning["message"]
    assert message.endswith("is in no public price list: a price list of your own prices it "
                            "(AGENTSCAN_PRICES_URL: docs/pricing.md)"), message
    assert "-q" not in message and "cannot" not in message and "nor can" not in message
    # The route it names: genai-prices' data with the model added, fetched with ``prices --update``.
    data = orjson.loads(price_data(3, 15))
    data[0]["models"].append({"id": "aide-gpt-5", "match": {"equals": "aide-gpt-5"},
                              "prices": {"input_mtok": 1, "output_mtok": 2}})
    with PriceServer(orjson.dumps(data)) as server:
        monkeypatch.setenv(source.URL_ENV, server.url)
        run("prices", "--update")
    doc = run("tokens", "--json")
    assert doc["warnings"] == [] and doc["cost_usd"] == float(per_million((1_000, "1"), (100, "2")))
