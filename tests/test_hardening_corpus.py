"""The bad-input corpus (``fixtures/bad``): each case exits 0, warns, and spoils nothing else.

Every case file is a small valid session of one provider with one kind of
damage mixed in (see ``fixtures/bad/regenerate.py``); its manifest entry
holds the tokens its undamaged lines carry, chosen by hand when the corpus
was written.  Each case is run through the CLI beside that provider's
``clean`` control session, then the whole corpus at once.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner, Result

from agentscan.cli import app
from bad_corpus import (
    SECRET,
    Case,
    all_cases,
    case,
    codex_state_db_not_sqlite,
    cursor_state_db_missing_table,
    lay_out,
    lay_out_everything,
    no_internal_errors,
)

CASES = [c for c in all_cases() if c.name != "clean"]


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(app, list(args))
    # A crash inside a command surfaces here as the exception itself, not SystemExit.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output + result.stderr
    assert SECRET not in result.stderr, "an error or warning quoted the damaged line"
    return result


def document(*args: str) -> dict:
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.stderr
    doc = orjson.loads(result.stdout)
    assert no_internal_errors(doc["warnings"]), doc["warnings"]
    return doc


def total(tokens: dict | None) -> int | None:
    return None if tokens is None else tokens["total"]


def warned_about(doc: dict, path: Path) -> list[dict]:
    return [w for w in doc["warnings"] if w["path"] == str(path)]


@pytest.mark.parametrize("item", CASES, ids=lambda c: f"{c.provider}-{c.name}")
def test_each_case_exits_zero_warns_and_leaves_the_control_alone(isolated_home: Path, item: Case) -> None:
    control = case(item.provider, "clean")
    placed = lay_out(isolated_home, [item, control])

    listed = document("list", "--provider", item.provider)
    rows = {row["id"]: row for row in listed["sessions"]}
    assert (rows[control.id]["title"], total(rows[control.id]["tokens"])) == (control.title, control.expected)
    if item.listed:
        assert (rows[item.id]["title"], total(rows[item.id]["tokens"])) == (item.title, item.expected)
    else:
        assert item.id not in rows
    assert bool(warned_about(listed, placed[item.id])) == item.warns
    assert not warned_about(listed, placed[control.id])
    assert all(SECRET not in w["message"] for w in listed["warnings"])

    report = document("tokens", "--provider", item.provider)
    totals = {row["key"]: total(row["tokens"]) for row in report["rows"]}
    assert totals[control.id] == control.expected
    assert totals.get(item.id) == item.expected

    if item.listed:
        shown = document("show", item.id)["session"]
        assert total(shown["tokens"]) == item.expected
        if item.title is not None:
            assert item.title in [p["text"] for p in shown["prompts"]]


def test_the_whole_corpus_at_once(isolated_home: Path, tmp_path: Path) -> None:
    """Every session of every provider keeps its tokens and title beside every other case."""
    placed = lay_out_everything(isolated_home)
    out = tmp_path / "all.jsonl"
    exported = document("export", "--format", "jsonl", "--output", str(out))
    rows = {row["id"]: row for row in map(orjson.loads, out.read_bytes().splitlines())}
    report = document("tokens")
    totals = {row["key"]: total(row["tokens"]) for row in report["rows"]}
    for item in all_cases():
        assert (item.id in rows) == item.named, item
        if item.named:
            assert rows[item.id]["title"] == item.title, item
        assert totals.get(item.id) == item.expected, item
    warned = {w["path"] for w in exported["warnings"]}
    for item in all_cases():
        assert (str(placed[item.id]) in warned) == item.warns, item
    assert all(SECRET not in w["message"] for w in exported["warnings"] + report["warnings"])
    # Human output and every grouping survive the corpus too.
    for args in (["list"], ["tokens", "--by", "day"], ["tokens", "--by", "model"], ["tokens", "--by", "provider"], ["doctor"]):
        assert invoke(*args).exit_code == 0, args
    assert invoke("--strict", "list").exit_code == 1


def test_a_codex_index_that_is_not_sqlite_falls_back_to_the_rollouts(isolated_home: Path) -> None:
    control = case("codex", "clean")
    lay_out(isolated_home, [control])
    db = codex_state_db_not_sqlite(isolated_home)
    listed = document("list")
    assert [row["id"] for row in listed["sessions"]] == [control.id]
    assert listed["sessions"][0]["tokens"]["total"] == control.expected
    (warning,) = warned_about(listed, db)
    assert "listing from rollouts instead" in warning["message"] and "not a SQLite database" in warning["message"]
    doctor = document("doctor")
    (codex,) = [p for p in doctor["providers"] if p["provider"] == "codex"]
    assert any("listed from rollouts only" in finding for finding in codex["findings"])
    assert db.read_bytes().startswith(b"this is not a database")


def test_a_cursor_state_db_without_its_table_still_lists_the_transcripts(isolated_home: Path) -> None:
    control = case("cursor", "clean")
    lay_out(isolated_home, [control])
    db = cursor_state_db_missing_table(isolated_home)
    listed = document("list")
    assert [(row["id"], row["title"]) for row in listed["sessions"]] == [(control.id, control.title)]
    messages = [w["message"] for w in warned_about(listed, db)]
    assert any("no cursorDiskKV table" in m for m in messages), messages
    assert document("show", control.id)["session"]["prompts"][0]["text"] == control.title
    assert document("tokens")["rows"][0]["tokens"] is None
