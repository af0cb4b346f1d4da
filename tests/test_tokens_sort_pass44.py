"""``tokens --sort KEY``: the rows by ``cost`` (the most costly first, an unknown cost last,
a lower bound ``≥$…`` by its known part) or ``tokens`` (the largest TOTAL first), rows that
tie in the default order (``date``); the table and ``--json`` alike, every grouping, and a
remembered answer never printed for another order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app, recorded, tokens_notes
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from spies import record_calls

runner = CliRunner()
HAIKU, SONNET, OPUS = "claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101"
UNPRICED = "claude-mystery-9-20260101"  # no price: a cost of ``-``, or ``≥$…`` beside priced calls


def _id(name: str) -> str:
    return f"claude:{name}0000-0000-4000-8000-000000000000"


#: name -> (day it recorded, file mtime, its calls: (model, input, output)); the tie's three
#: sessions spent alike, their DATEs one order and their files' times the other
SESSIONS: dict[str, tuple[str, int, list[tuple[str, int, int]]]] = {
    "cheap001": ("2026-11-05", 1_790_000_000, [(HAIKU, 1_000, 100)]),
    "sonnet02": ("2026-11-04", 1_790_000_100, [(SONNET, 100_000, 1_000)]),
    "opus0003": ("2026-11-03", 1_790_000_200, [(OPUS, 50_000, 10_000)]),
    "unpriced": ("2026-11-02", 1_790_000_300, [(UNPRICED, 500_000, 100)]),
    "atleast5": ("2026-11-01", 1_790_000_400, [(SONNET, 10_000, 0), (UNPRICED, 20_000, 0)]),
    "tiedtwo6": ("2026-10-31", 1_790_000_500, [(HAIKU, 1_000, 100)]),
    "tiedone7": ("2026-10-30", 1_790_000_600, [(HAIKU, 1_000, 100)]),
}
TIED = ["cheap001", "tiedtwo6", "tiedone7"]  # by DATE, newest first


def _home(home: Path) -> None:
    for name, (day, mtime, calls) in SESSIONS.items():
        native = _id(name).removeprefix("claude:")
        records: list[Any] = [claude_user(native, f"{day}T10:00:00Z", "hello")]
        for number, (model, tokens_in, tokens_out) in enumerate(calls):
            records.append(claude_assistant(native, f"{day}T10:00:{number + 1:02d}Z", msg_id=f"m-{name}-{number}",
                                            request_id=f"r-{name}-{number}", model=model,
                                            usage=claude_usage(tokens_in, tokens_out)))
        claude_session_file(home, native, records, mtime=mtime)


def _with_a_subagent(home: Path) -> None:
    """``sonnet02`` delegated a run: its ``own`` and ``↳`` lines go where it goes."""
    native = _id("sonnet02").removeprefix("claude:")
    claude_subagent_file(home, native, "arunner1", [
        claude_assistant(native, "2026-11-04T10:00:09Z", msg_id="m-sub", request_id="r-sub", model=SONNET,
                         usage=claude_usage(5_000, 10), uuid="u-sub", sidechain=True, agentId="arunner1")])


def _table(*args: str) -> list[str]:
    """The piped table's row keys, in order."""
    result = runner.invoke(app, ["tokens", *args])
    assert result.exit_code == 0, result.output
    return [line.split()[0] for line in result.stdout.splitlines()[1:] if line.startswith("claude:")]


def _document(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["tokens", "--json", *args])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def _keys(document: dict[str, Any]) -> list[str]:
    return [row["key"] for row in document["rows"]]


BY_COST = [_id(name) for name in ["opus0003", "sonnet02", "atleast5"]]  # then the tie, then the unknown cost
BY_TOKENS = [_id(name) for name in ["unpriced", "sonnet02", "opus0003", "atleast5"]]  # then the tie


def _as_named() -> None:
    """The home is what the tests take it for: each session's cost and total as named."""
    rows = {row["key"]: row for row in _document()["rows"]}
    assert rows[_id("atleast5")]["cost_usd"] is None  # unknown, but at least more than the cheap ones'
    assert rows[_id("atleast5")]["cost_usd_priced"] > rows[_id("cheap001")]["cost_usd"] > 0
    assert rows[_id("unpriced")]["cost_usd"] is None and not rows[_id("unpriced")]["cost_usd_priced"]
    assert rows[_id("opus0003")]["cost_usd"] > rows[_id("sonnet02")]["cost_usd"] > rows[_id("atleast5")]["cost_usd_priced"]
    totals = [rows[key]["tokens"]["total"] for key in BY_TOKENS + [_id(TIED[0])]]
    assert totals == sorted(totals, reverse=True) and len(set(totals)) == len(totals)
    assert len({orjson.dumps(rows[_id(name)]["tokens"]) for name in TIED}) == 1


@pytest.mark.parametrize("sort", ["cost", "COST"])
def test_by_cost_the_most_costly_first_ties_by_date_unknown_last(isolated_home: Path, sort: str) -> None:
    _home(isolated_home)
    _as_named()
    assert _table() == [_id(name) for name in SESSIONS]  # the default: newest DATE first
    assert _table("--sort", sort) == [*BY_COST, *map(_id, TIED), _id("unpriced")]
    # --json: the same order; its ties in its own default order (newest file first).
    assert _keys(_document("--sort", sort)) == [*BY_COST, *map(_id, reversed(TIED)), _id("unpriced")]


def test_by_tokens_the_largest_total_first(isolated_home: Path) -> None:
    _home(isolated_home)
    assert _table("--sort", "tokens") == [*BY_TOKENS, *map(_id, TIED)]
    assert _keys(_document("--sort", "tokens")) == [*BY_TOKENS, *map(_id, reversed(TIED))]
    assert _table("--sort", "date") == _table()


def test_the_total_and_notes_stay_and_the_parts_stay_under_their_row(isolated_home: Path, tty) -> None:  # noqa: ANN001
    _home(isolated_home)
    _with_a_subagent(isolated_home)
    plain, ordered = _document(), _document("--sort", "cost")
    assert {key: value for key, value in plain.items() if key != "rows"} == \
        {key: value for key, value in ordered.items() if key != "rows"}
    assert sorted(plain["rows"], key=orjson.dumps) == sorted(ordered["rows"], key=orjson.dumps)
    tty(220)
    result = runner.invoke(app, ["tokens", "--sort", "cost"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    at = next(index for index, line in enumerate(lines) if line.startswith(_id("sonnet02")[:15]))
    assert lines[at - 1].startswith(_id("opus0003")[:15])  # second, after the dearest
    assert lines[at + 1].lstrip().startswith("own") and lines[at + 2].lstrip().startswith("↳")
    assert lines[at + 3].startswith(_id("atleast5")[:15])
    default = runner.invoke(app, ["tokens", "--no-cache"])
    assert [line for line in lines if line.startswith("TOTAL")] == \
        [line for line in default.stdout.splitlines() if line.startswith("TOTAL")]
    assert result.stderr == default.stderr  # the same notes (the table is short: no order named)


@pytest.mark.parametrize("by", ["model", "day"])
def test_every_grouping_sorts(isolated_home: Path, by: str) -> None:
    _home(isolated_home)
    rows = _document("--by", by)["rows"]

    def known(row: dict[str, Any]) -> float:
        cost = row["cost_usd"] if row["cost_usd"] is not None else row["cost_usd_priced"]
        return cost or 0.0

    priced = [row["key"] for row in rows if known(row) > 0]
    expected = sorted(priced, key=lambda key: -known(next(row for row in rows if row["key"] == key)))
    unknown = [row["key"] for row in rows if known(row) == 0]
    by_cost = _keys(_document("--by", by, "--sort", "cost"))
    assert by_cost == expected + unknown and by_cost != [row["key"] for row in rows]
    piped = runner.invoke(app, ["tokens", "--by", by, "--sort", "cost"])
    shown = [line.split()[0] for line in piped.stdout.splitlines()[1:-1]]
    assert shown == [key for key in by_cost if key in shown] and len(shown) == len(rows)


@pytest.mark.parametrize("as_json", [False, True])
def test_a_remembered_answer_is_never_printed_for_another_order(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  as_json: bool) -> None:
    _home(isolated_home)
    again = record_calls(monkeypatch, recorded, "print_again", lambda *args, **kwargs: True)

    def order(*args: str) -> list[str]:
        return _keys(_document(*args)) if as_json else _table(*args)

    plain = order()
    by_cost = order("--sort", "cost")  # after the default's answer was kept
    assert by_cost[0] == _id("opus0003") and by_cost != plain and again == []
    assert order("--sort", "cost") == by_cost and again == [True]  # its own, remembered
    assert order() == plain and again == [True, True]  # the default's kept too (its own slot)
    assert order("--sort", "tokens") == (BY_TOKENS + [_id(name) for name in (TIED if not as_json else TIED[::-1])])
    assert order() == plain and order("--sort", "cost") == by_cost


def test_a_long_table_names_its_order(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tty) -> None:  # noqa: ANN001
    monkeypatch.setattr(tokens_notes, "LONG_TABLE", 3)
    _home(isolated_home)
    tty(220)
    for args, words in (((), "newest first"), (("--sort", "cost"), "most costly first"),
                        (("--sort", "tokens"), "most tokens first")):
        result = runner.invoke(app, ["tokens", *args])
        assert result.exit_code == 0, result.output
        hint = [line for line in result.stderr.splitlines() if "sessions above" in line]
        assert hint and hint[0].startswith(f"7 sessions above, {words}: "), result.stderr


@pytest.mark.parametrize("args, said", [
    (("--sort", "cots"), "unknown --sort 'cots' (did you mean cost?); choose from: date, cost, tokens"),
    (("--sort", "size"), "unknown --sort 'size'; choose from: date, cost, tokens"),
    (("--sort", "cost", "--sort", "tokens"), "--sort takes one key, not 2 (cost, tokens)"),
])
def test_a_bad_key_is_a_usage_error(isolated_home: Path, args: tuple[str, ...], said: str) -> None:
    _home(isolated_home)
    result = runner.invoke(app, ["tokens", *args])
    assert result.exit_code == 2 and said in result.stderr and result.stdout == ""


def test_the_same_key_twice_is_one(isolated_home: Path) -> None:
    _home(isolated_home)
    assert _table("--sort", "cost", "--sort", "Cost") == _table("--sort", "cost")
