"""Codex through the CLI, and the Codex part of the --demo home."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.demo import demo_home
from codex_builders import (
    DEMO_ARCHIVED,
    DEMO_CHILD,
    DEMO_MAIN,
    DEMO_PARENT,
    lay_out_real_codex,
    write_demo,
)


def _json(args: list[str]) -> dict:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def test_list_show_tokens_json_on_the_real_samples(isolated_home: Path) -> None:
    lay_out_real_codex(isolated_home)
    listed = _json(["list", "--json", "--provider", "codex"])
    assert listed["schema"] == "agentscan.list/1"
    assert [w["path"] for w in listed["warnings"]] == ["model:codex/aide-gpt-5"]  # a custom name: no price
    assert len(listed["sessions"]) == 3
    shown = _json(["show", "--json", "codex:01996135"])["session"]
    assert shown["id"] == "codex:01996135-afde-7911-97f0-d863511eca56"
    assert shown["tokens"]["total"] == 283081  # ccusage, see test_codex_real.py
    assert [step["status"] for step in shown["plan"]] == ["completed", "completed"]
    tokens = _json(["tokens", "--json", "--provider", "codex"])
    assert tokens["total"]["total"] == 322052  # ccusage's total for the three samples


def test_cached_runs_give_the_same_answers(isolated_home: Path) -> None:
    lay_out_real_codex(isolated_home)
    cold = _json(["list", "--json"])
    warm = _json(["list", "--json"])
    assert warm == cold
    assert _json(["tokens", "--json"]) == _json(["tokens", "--json"])


def test_a_relative_codex_home_is_a_warning_not_a_failure(isolated_home: Path, monkeypatch) -> None:
    monkeypatch.setenv("CODEX_HOME", "not/absolute")
    document = _json(["list", "--json", "--provider", "codex"])
    assert document["sessions"] == []
    assert [w["path"] for w in document["warnings"]] == ["not/absolute"]


def test_demo_lists_codex_sessions(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "not-the-demo"))  # ignored by --demo
    sessions = _json(["--demo", "list", "--json", "--provider", "codex"])["sessions"]
    assert {row["native_id"]: row["title"] for row in sessions} == {
        DEMO_MAIN: "Add a CSV export to the /items endpoint and document it in the README",
        DEMO_PARENT: "Review the refund flow for race conditions and fix anything you find",
        DEMO_ARCHIVED: "Summarize the open TODO comments",
    }
    assert {row["native_id"]: row["subagents"] for row in sessions}[DEMO_PARENT] == 1
    # The demo's archived thread (in archived_sessions/) says so; the others have no key.
    assert {row["native_id"] for row in sessions if "archived" in row} == {DEMO_ARCHIVED}
    assert next(row for row in sessions if row["native_id"] == DEMO_ARCHIVED)["archived"] is True


def test_demo_tokens_roll_the_subagent_into_its_parent() -> None:
    (row,) = _json(["--demo", "tokens", "--json", f"codex:{DEMO_PARENT}"])["rows"]
    # Hand sums of demo_delegating_rollouts(): parent calls (9600 in, 0 cached, 420 out,
    # 192 reasoning) and (12800, 9472, 350, 128); child calls (5200, 0, 260, 128) and
    # (7400, 5120, 610, 256).  input = in - cached.
    assert row["own"] == {"input": 9600 + 3328, "cache_read": 9472, "cache_write": 0, "output": 770, "reasoning": 320,
                          "total": 23170}
    # The child runs gpt-5.1-codex-mini: $0.25 input, $0.025 cached input, $2 output per million.
    assert row["subagents"] == [{"id": DEMO_CHILD, "tokens": {"input": 5200 + 2280, "cache_read": 5120, "cache_write": 0,
                                                              "output": 870, "reasoning": 384, "total": 13470},
                                 "cost_usd": (7480 * 0.25 + 5120 * 0.025 + 870 * 2) / 1e6,
                                 "cost_usd_priced": (7480 * 0.25 + 5120 * 0.025 + 870 * 2) / 1e6, "recovered_from": None}]


def test_demo_main_session_in_show() -> None:
    session = _json(["--demo", "show", "--json", DEMO_MAIN[:10]])["session"]
    # (8200,0,310,128) (11400,8064,920,512) (13050,11264,260,64) (14100,12800,540,256) (14900,13952,410,0)
    assert session["tokens"] == {"input": 8200 + 3336 + 1786 + 1300 + 948, "cache_read": 8064 + 11264 + 12800 + 13952,
                                 "cache_write": 0, "output": 2440, "reasoning": 960, "total": 64090}
    assert [t["status"] for t in session["tools"] if t["name"] == "shell"] == ["ok", "error", "ok"]
    assert session["codex"]["rate_limits"]["plan_type"] == "plus"


def test_the_shipped_demo_is_what_the_builder_writes(tmp_path: Path) -> None:
    # Regenerate with: python -c "import sys; sys.path.insert(0, 'tests');
    #   from pathlib import Path; from codex_builders import write_demo;
    #   write_demo(Path('src/agentscan/demo/home'))"
    built = {p.relative_to(tmp_path): p.read_bytes() for p in write_demo(tmp_path)}
    shipped_root = demo_home()
    shipped = {p.relative_to(shipped_root): p.read_bytes() for p in (shipped_root / ".codex").rglob("*") if p.is_file()}
    assert shipped == built
