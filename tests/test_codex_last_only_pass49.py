"""A Codex rollout whose ``token_count`` events carry ``last_token_usage`` alone (no
``total_token_usage``): ``tokens`` (and ccusage) add up its calls, 5,170, but its ``list``
row took the running totals, of which there are none, and said ``-``.  Such a call is no
part of any running total (``counters.unsummed``): the row counts the calls, as ``tokens``
does and as it counts a file of totals of garbage, whatever the file's size; and what the
build before kept of a large one (a ``runs`` state, a tally, which counted nothing) is not
taken for a count."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest

from builders import cli_json
from codex_builders import at, function_output, meta, rollout_path, token_count, turn_context, usage, user_message, \
    write_rollout

S = "019c4930-0000-7000-8000-0000000000c3"


def _last_only(seconds: float, input: int, cached: int, output: int) -> dict:
    return token_count(at(seconds), None, usage(input, cached, output))


def _figures(*args: str) -> tuple[dict, dict]:
    (row,) = cli_json(*args, "list", "--all")["sessions"]
    return row, cli_json(*args, "tokens", S)["total"]


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
def test_calls_with_no_running_total_count_in_the_row(isolated_home: Path, cache: tuple[str, ...]) -> None:
    # (gen7's session 019f4c53: two calls alike, each counted, as ``tokens`` and ccusage count them)
    write_rollout(rollout_path(isolated_home / ".codex", S, at(0)), [
        meta(S, at(0)), turn_context(at(1), "gpt-5.5"), user_message(at(1), "last only"),
        _last_only(2, 1000, 200, 50), _last_only(3, 1000, 200, 50), _last_only(4, 3000, 100, 70)])
    row, tokens = _figures(*cache)
    assert tokens["total"] == 1050 + 1050 + 3070
    assert row["tokens"] == tokens


def test_a_call_with_no_running_total_among_calls_with_one(isolated_home: Path) -> None:
    """A call reported alone between calls with running totals: the totals miss it, ``tokens``
    counts it; so does the row."""
    total = usage(1000, 0, 100)
    write_rollout(rollout_path(isolated_home / ".codex", S, at(0)), [
        meta(S, at(0)), turn_context(at(1), "gpt-5.5"), user_message(at(1), "mixed"),
        token_count(at(2), total, usage(1000, 0, 100)), _last_only(3, 400, 0, 40),
        token_count(at(4), usage(3000, 0, 300), usage(2000, 0, 200))])
    row, tokens = _figures()
    assert tokens["total"] == 1100 + 440 + 2200
    assert row["tokens"] == tokens


def _large(codex: Path) -> Path:
    """Calls with no running total before the window of ``list`` (1 MiB) and in it."""
    padding = [function_output(at(10), f"c{n}", "y" * 14000) for n in range(80)]
    return write_rollout(rollout_path(codex, S, at(0)), [
        meta(S, at(0)), turn_context(at(1), "gpt-5.5"), user_message(at(1), "last only, long"),
        _last_only(2, 1000, 200, 50), _last_only(3, 2000, 0, 60), *padding, _last_only(20, 3000, 100, 70)])


def test_a_large_file_of_calls_with_no_running_total(isolated_home: Path) -> None:
    _large(isolated_home / ".codex")
    row, tokens = _figures()
    assert tokens["total"] == 1050 + 2060 + 3070
    assert row["tokens"] == tokens
    row, _ = _figures()  # (the kept row)
    assert row["tokens"] == tokens
    row, _ = _figures("--no-cache")  # nothing kept: the window's calls alone, and said
    assert row["tokens"]["total"] == 3070 and row["counts_partial"] is True


def _as_the_build_before(index: Path, kind: str) -> None:
    """``kind``'s state of the large rollout as the build before kept it (it counted calls of
    no running total as nothing): no ``recount``, no running total reached; the rows forgotten."""
    with sqlite3.connect(index) as conn:
        (key, state), = conn.execute("SELECT rowid, state FROM files WHERE kind=?", (kind,)).fetchall()
        document = orjson.loads(state)
        document.pop("recount")
        document["last" if kind == "codex.runs" else "total"] = None
        conn.execute("UPDATE files SET state=? WHERE rowid=?", (orjson.dumps(document), key))
        conn.execute("DELETE FROM files WHERE kind<>?", (kind,))  # (the other kind: this one alone is read)
        conn.execute("DELETE FROM rows")
        conn.execute("DELETE FROM snapshots WHERE key LIKE 'answer:%'")


@pytest.mark.parametrize("kind", ["codex.runs", "codex.counts"])
def test_what_the_build_before_kept_of_such_a_file_is_not_a_count(isolated_home: Path, kind: str) -> None:
    _large(isolated_home / ".codex")
    row, tokens = _figures()  # (``list`` keeps the ``runs`` state; ``tokens`` the tally)
    _as_the_build_before(isolated_home.parent / "agentscan-cache" / "index.sqlite", kind)
    row, _ = _figures()
    assert row["tokens"] == tokens and tokens["total"] == 1050 + 2060 + 3070
