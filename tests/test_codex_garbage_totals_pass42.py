"""A Codex rollout whose running totals are garbage (``total_token_usage`` negative or
fractional: a negative one reads as a restart, each adding a run to the cumulative count)
once had ``list`` say 6,900 where ``tokens`` said 5,500.  Such totals are no running count,
so a row counts the file's calls as ``tokens`` does (``FileUsageScanner.garbled``), in a
file its window reads whole, from a whole pass's tally and from ``runs``' read of a larger
one, as it grows too; the file says one warning.  A well-formed file counts as ever."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.toolkit.valuewarnings import USAGE_HEAD
from builders import cli_json as _json, only_row as _row
from codex_builders import at, function_output, meta, rollout_path, token_count, turn_context, usage

S = "019c4242-0000-7000-8000-0000000000b1"
#: the running totals' input counts: fractions and a negative one, going backwards
GARBAGE: list[Any] = [1000.5, -5, 2000.25, 1500, 3000.75]


def _calls(start: float, inputs: list[Any]) -> list[dict]:
    """One call of 1,000 input and 100 output tokens per total, the totals' input ``inputs``."""
    records = []
    for index, value in enumerate(inputs):
        total = usage(1000 * (index + 1), output=100 * (index + 1))
        total["input_tokens"] = value
        records.append(token_count(at(start + index), total, usage(1000, output=100)))
    return records


def _write(codex: Path, inputs: list[Any], *, padding: int = 0, more: list[Any] | None = None) -> Path:
    """``padding`` lines of 14 kB of tool output after the calls (past 1 MiB with 80: the
    window of ``list`` sees none of them), then the calls of ``more``."""
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"), *_calls(10, inputs)]
    records += [function_output(at(100), f"c{i}", "y" * 14000) for i in range(padding)]
    records += _calls(200, more or [])
    path = rollout_path(codex, S, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    return path


def _said(report: dict) -> list[str]:
    return [w["message"] for w in report["warnings"] if w["message"].startswith(USAGE_HEAD)]


def test_a_small_rollout_of_garbage_totals_lists_what_tokens_counts(isolated_home: Path) -> None:
    _write(isolated_home / ".codex", GARBAGE)
    for args in [(), (), ("--no-cache",)]:  # cold, warm, without the cache
        listed = _json("list", "--all", *args)
        (row,) = listed["sessions"]
        report = _json("tokens", S, *args)
        assert report["total"]["total"] == 5 * 1100
        assert row["tokens"] == report["total"]
        assert _said(listed) == _said(report) == [
            f"{USAGE_HEAD}: input_tokens is 1000.5, counted as 1000 (the first of 4 such values in this file)"]


def test_a_large_rollout_of_garbage_totals_lists_what_tokens_counts_cold_warm_and_grown(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    path = _write(codex, GARBAGE, padding=80, more=[3500])
    assert path.stat().st_size > 1024 * 1024 + 14000
    expected = 6 * 1100
    # Cold: no whole pass kept a tally (the count from ``runs``' read of the token lines).
    assert _row()["tokens"]["total"] == expected
    report = _json("tokens", S)
    assert report["total"]["total"] == expected
    # From the tally ``tokens`` kept.
    assert _row()["tokens"] == report["total"]
    # Grown: the tally goes on with the appended calls.
    _write(codex, GARBAGE, padding=80, more=[3500, 4500.5])
    grown = _row()["tokens"]
    assert grown == _json("tokens", S)["total"] and grown["total"] == expected + 1100


def test_a_large_rollout_garbled_past_its_window_lists_what_tokens_counts(isolated_home: Path) -> None:
    """Garbage only before the window, the file read by ``runs`` and then grown."""
    codex = isolated_home / ".codex"
    _write(codex, GARBAGE, padding=80, more=[6000])
    assert _row()["tokens"]["total"] == 6 * 1100
    _write(codex, GARBAGE, padding=80, more=[6000, 7000])
    assert _row()["tokens"] == _json("tokens", S)["total"]
    assert _row()["tokens"]["total"] == 7 * 1100


def test_well_formed_totals_count_as_ever(isolated_home: Path) -> None:
    """A restart of a well-formed count (an older build resuming) still adds its run."""
    _write(isolated_home / ".codex", [1000, 2000, 1000, 2000])
    row = _row()
    # (the totals' rule: both runs' last counts, 2,000 input and 200 output, then 400 output, less
    # the base the second run restarts from, its 200 output less its call's 100 (pass 57 review:
    # counted twice before, the row said 4,600 where ``tokens`` counts the four calls, 4,400)
    assert row["tokens"]["total"] == (2000 + 200) + (2000 + 400) - 200 == 4 * 1100
    assert row["tokens"] == _json("tokens", S)["total"]
    assert _json("list", "--all")["warnings"] == []


def test_a_fork_of_garbage_totals_lists_its_own_calls_as_tokens_counts_them(isolated_home: Path) -> None:
    """A fork's copy ends at its turn marker; the totals of garbage say nothing of where:
    the row counts the fork's own calls, as ``tokens`` does."""
    from codex_builders import task_started

    codex = isolated_home / ".codex"
    fork = "019c4242-0000-7000-8000-0000000000c1"
    _write(codex, [1000, -5])  # (thread ``S``, the parent, whose two calls the fork copied)
    copied = _calls(10, [1000, -5])
    own = [task_started(at(500)), *_calls(501, [1500.5, -5, 3000.25])]
    records = [meta(fork, at(400), forked_from=S), turn_context(at(400), "gpt-5"), *copied, *own]
    path = rollout_path(codex, fork, at(400))
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    listed = {row["native_id"]: row["tokens"] for row in _json("list", "--all")["sessions"]}
    report = _json("tokens", fork)
    assert report["total"]["total"] == 3 * 1100  # (its own three calls)
    assert listed[fork] == report["total"]


# One rule, every way a row reads the file (code review s42: ``list`` said 5,500 cold, 6,284
# after ``tokens``, 8,800 without the index, and a previous build's index state was believed).


def _garbled_rollout(codex: Path, window: list[Any], *, missed: int = 0) -> Path:
    """A large rollout: two calls, the second's total garbage, or with ``missed`` one that grows
    ``missed`` input tokens past its call (a call Codex did not log: the totals count it, the
    calls do not); 80 lines of padding; then the calls of ``window`` (their totals' inputs)."""
    first = usage(1000, output=100)
    second = usage(2000 + missed, output=200)
    if not missed:
        second["input_tokens"] = -5
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"), token_count(at(10), first, usage(1000, output=100)),
               token_count(at(11), second, usage(1000, output=100))]
    records += [function_output(at(100), f"c{i}", "y" * 14000) for i in range(80)]
    records += _calls(200, window)
    path = rollout_path(codex, S, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    return path


def test_a_rollout_of_garbage_totals_lists_one_count_cold_after_tokens_and_grown(isolated_home: Path) -> None:
    """``runs``' read (cold), the tally of ``tokens``' whole pass and the tally gone on after
    an append add up the same calls (``counters.step``): they disagreed on a total that grew
    past its call (the runs' read began from the totals)."""
    codex = isolated_home / ".codex"
    _garbled_rollout(codex, [3000, -5, 5000], missed=500)
    cold = _row()["tokens"]
    report = _json("tokens", S)
    assert cold == report["total"] and cold["total"] == 5 * 1100
    assert _row()["tokens"] == cold  # from the tally
    _garbled_rollout(codex, [3000, -5, 5000, 6000.5], missed=500)
    assert _row()["tokens"] == _json("tokens", S)["total"] == {**cold, "input": 6000, "output": 600, "total": 6600}


def test_without_the_index_a_large_rollout_of_garbage_totals_claims_no_exact_total(isolated_home: Path) -> None:
    """``--no-cache``: nothing reads the file whole, and its window's totals are garbage: the row
    counts the window's calls and says it read only a part (it said 8,800, the totals' runs)."""
    _garbled_rollout(isolated_home / ".codex", [3000, -5, 5000])
    row = _row("--no-cache")
    assert row["counts_partial"] is True
    assert row["tokens"]["total"] == 3 * 1100  # the window's three calls
    assert _row()["tokens"] == _json("tokens", S)["total"]  # with the index: the whole file's


def test_cached_input_past_input_is_clamped_per_call_as_tokens_does(isolated_home: Path) -> None:
    """``tokens`` takes each call's cached input up to its input: the calls added up for a
    row do the same, not the sum once (which spent one call's surplus on another's input)."""
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"),
               token_count(at(10), {**usage(100, cached=500, output=10), "input_tokens": -1}, usage(100, cached=500,
                                                                                                     output=10)),
               token_count(at(11), usage(1100, cached=500, output=20), usage(1000, output=10))]
    path = rollout_path(isolated_home / ".codex", S, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    report = _json("tokens", S)["total"]
    assert report["cache_read"] == 100 and report["input"] == 1000
    assert _row()["tokens"] == report


def test_totals_that_turn_to_garbage_in_appended_lines_are_not_mixed_with_the_calls(isolated_home: Path) -> None:
    """A tally goes on with appended lines whose totals are garbage: the row counts every
    call from the first line, as ``tokens``.  (Pass 51: a total that moved past its call, 500
    more than it, is no running count either, so the row counts the calls from the start, as
    ``tokens`` and ccusage do; it took the totals' 2,700 before.)"""
    codex = isolated_home / ".codex"
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"),
               token_count(at(10), usage(1000, output=100), usage(1000, output=100)),
               token_count(at(11), usage(2500, output=200), usage(1000, output=100))]  # (500 never logged)
    records += [function_output(at(100), f"c{i}", "y" * 14000) for i in range(80)]
    path = rollout_path(codex, S, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    assert _json("tokens", S)["total"]["total"] == 2 * 1100  # (the tally kept: its totals say 2,700)
    assert _row()["tokens"]["total"] == 2 * 1100
    garbage = usage(3500, output=300)
    garbage["output_tokens"] = 2.5
    with path.open("ab") as handle:
        handle.write(orjson.dumps(token_count(at(300), garbage, usage(1000, output=100))) + b"\n")
    row = _row()
    assert row["tokens"] == _json("tokens", S)["total"] and row["tokens"]["total"] == 3 * 1100
    assert row["counts_partial"] is False  # (the tally's counts still hold)


def _as_the_build_before(index: Path, kind: str, version: str) -> int:
    """Make the kept state of ``kind`` what the build before kept (``version``, no ``recount``:
    it took the totals of garbage for a running count), forget the other kind's (the row has
    only this one to go by), and the rows and pages built since (as an upgrade does: another
    build's are not taken)."""
    import sqlite3

    changed = 0
    with sqlite3.connect(index) as conn:
        for key, state in conn.execute("SELECT rowid, state FROM files WHERE kind=?", (kind,)).fetchall():
            document = orjson.loads(state)
            assert document.pop("recount", None) is not None
            conn.execute("UPDATE files SET state=?, version=? WHERE rowid=?", (orjson.dumps(document), version, key))
            changed += 1
        conn.execute("DELETE FROM files WHERE kind LIKE 'codex.%' AND kind != ?", (kind,))
        conn.execute("DELETE FROM rows")
        conn.execute("DELETE FROM snapshots WHERE key LIKE 'answer:%'")
    return changed


@pytest.mark.parametrize(("kind", "version"), [("codex.runs", "1"), ("codex.counts", "6")])
def test_index_state_the_build_before_kept_is_not_believed(isolated_home: Path, kind: str, version: str) -> None:
    """``runs``' state ("1") or a whole pass's tally ("6") of the build before holds the totals'
    count of such a file: the row counted them until the file changed (5,500 here)."""
    codex = isolated_home / ".codex"
    _garbled_rollout(codex, [3000, 4000])
    index = isolated_home.parent / "agentscan-cache" / "index.sqlite"
    expected = _row()["tokens"]  # (cold: ``runs`` reads the file and keeps its state)
    assert _json("tokens", S)["total"] == expected and expected["total"] == 4 * 1100  # (a tally kept)
    assert _as_the_build_before(index, kind, version) == 1
    row = _row()
    assert row["tokens"] == expected and row["counts_partial"] is (kind == "codex.runs")
