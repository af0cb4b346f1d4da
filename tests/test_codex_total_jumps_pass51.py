"""A Codex running total that moves by other than its call counts the calls everywhere (pass 51).

``list`` took the latest ``total_token_usage`` (1,000,076 tokens priced at <$0.01: its
cost came from the calls) where ``tokens``, ``show`` and export added up the calls'
``last_token_usage`` (1,187), as ccusage does.  Codex's totals are the sum of its calls
(formats.md 2.6), so a total that jumps past (or short of) its call is no running count:
the row counts the calls, as it does of totals of garbage, in a file read whole, from
``runs``' read of a larger one and from a whole pass's tally, as the file grows too; and
the file says so, once.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import cli_json, invoke, only_row
from codex_builders import at, function_output, meta, rollout_path, token_count, turn_context, usage, user_message

S = "019c5151-0000-7000-8000-0000000000d1"
SAID = "running total_token_usage moved by other than last_token_usage at 1 call"


def _write(codex: Path, *, padding: int = 0, jump: bool = True, more: int = 0) -> Path:
    """Two calls of 1,100 (the second's total 500 past it when ``jump``), ``padding`` lines of
    14 kB (past 1 MiB with 80: the window of ``list`` sees neither call), ``more`` calls after."""
    second = usage(2500 if jump else 2000, output=200)
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"), user_message(at(1), "count me"),
               token_count(at(10), usage(1000, output=100), usage(1000, output=100)),
               token_count(at(11), second, usage(1000, output=100))]
    records += [function_output(at(100), f"c{i}", "y" * 14000) for i in range(padding)]
    base = second["input_tokens"]
    for index in range(more):
        records.append(token_count(at(200 + index), usage(base + 1000 * (index + 1), output=200 + 100 * (index + 1)),
                                   usage(1000, output=100)))
    path = rollout_path(codex, S, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    return path


def _said(report: dict) -> list[str]:
    return [w["message"][: len(SAID)] for w in report["warnings"] if w["message"].startswith("running total")]


def test_a_small_rollout_lists_shows_and_exports_its_calls(isolated_home: Path) -> None:
    _write(isolated_home / ".codex")
    for args in [(), (), ("--no-cache",)]:  # cold, warm, without the index
        listed = cli_json("list", "--all", *args)
        (row,) = listed["sessions"]
        report = cli_json("tokens", S, *args)
        assert report["total"]["total"] == 2 * 1100
        assert row["tokens"] == report["total"] and row["cost_usd"] == report["rows"][0]["cost_usd"]
        assert cli_json("show", S, *args)["session"]["tokens"] == report["total"]
        assert _said(listed) == _said(report) == [SAID]
        exported = invoke(*args, "export", "--format", "jsonl")
        assert orjson.loads(exported.stdout.splitlines()[0])["tokens"] == report["total"]


@pytest.mark.parametrize("first", ["list", "tokens"])
def test_a_large_rollout_lists_its_calls_cold_warm_and_grown(isolated_home: Path, first: str) -> None:
    """Past the window: ``runs``' read of the token lines (``list`` first) or a whole pass's
    tally (``tokens`` first) finds the jump; appended calls go on from either."""
    codex = isolated_home / ".codex"
    path = _write(codex, padding=80)
    assert path.stat().st_size > 1024 * 1024 + 14000
    if first == "tokens":
        assert cli_json("tokens", S)["total"]["total"] == 2 * 1100
    for _ in range(2):
        assert only_row()["tokens"]["total"] == 2 * 1100
    _write(codex, padding=80, more=2)
    assert only_row()["tokens"] == cli_json("tokens", S)["total"]
    assert only_row()["tokens"]["total"] == 4 * 1100


def test_a_jump_in_appended_lines_recounts_the_row_from_the_start(isolated_home: Path) -> None:
    """A large file of sound totals, its state kept by ``runs``, then a call whose total jumps."""
    codex = isolated_home / ".codex"
    _write(codex, padding=80, jump=False)
    assert only_row()["tokens"]["total"] == 2 * 1100
    path = rollout_path(codex, S, at(0))
    with path.open("ab") as handle:
        handle.write(orjson.dumps(token_count(at(300), usage(9000, output=300), usage(1000, output=100))) + b"\n")
    row = only_row()
    assert row["tokens"] == cli_json("tokens", S)["total"] and row["tokens"]["total"] == 3 * 1100


def test_sound_totals_say_nothing(isolated_home: Path) -> None:
    _write(isolated_home / ".codex", jump=False, more=2)
    listed = cli_json("list", "--all")
    assert listed["warnings"] == [] and cli_json("tokens", S)["warnings"] == []
    assert listed["sessions"][0]["tokens"]["total"] == 4 * 1100


@pytest.mark.parametrize(("kind", "version"), [("codex.runs", "2"), ("codex.counts", "8")])
def test_state_the_build_before_kept_of_a_jumped_file_is_not_believed(isolated_home: Path, kind: str,
                                                                     version: str) -> None:
    """``runs``' state ("2") or a whole pass's tally ("8") of the build before holds the totals'
    count of such a file (2,700): a file within the read budget is read again, once."""
    import sqlite3

    _write(isolated_home / ".codex", padding=80)
    assert only_row()["tokens"]["total"] == 2 * 1100  # (cold: ``runs`` reads the file and keeps its state)
    assert cli_json("tokens", S)["total"]["total"] == 2 * 1100  # (a tally kept)
    index = isolated_home.parent / "agentscan-cache" / "index.sqlite"
    with sqlite3.connect(index) as conn:
        changed = 0
        for key, state in conn.execute("SELECT rowid, state FROM files WHERE kind=?", (kind,)).fetchall():
            document = orjson.loads(state)
            # The build before kept no ``recount``: its count was the totals' (``runs``: ``last``
            # at 2,700's run; a tally: its position's total).
            assert document.pop("recount", None) is not None
            document.pop("uncounted", None)
            conn.execute("UPDATE files SET state=?, version=? WHERE rowid=?", (orjson.dumps(document), version, key))
            changed += 1
        assert changed == 1
        conn.execute("DELETE FROM files WHERE kind LIKE 'codex.%' AND kind != ?", (kind,))
        conn.execute("DELETE FROM rows")
        conn.execute("DELETE FROM snapshots WHERE key LIKE 'answer:%'")
    row = only_row()
    assert row["tokens"]["total"] == 2 * 1100
