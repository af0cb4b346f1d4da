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
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.toolkit.valuewarnings import USAGE_HEAD
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


def _json(*args: str) -> dict:
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout_bytes)


def _row(*args: str) -> dict:
    (row,) = _json("list", "--all", *args)["sessions"]
    return row


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
    # (the totals' rule: both runs' last counts, 2,000 input and 200 output, then 400 output)
    assert row["tokens"]["total"] == (2000 + 200) + (2000 + 400)
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
