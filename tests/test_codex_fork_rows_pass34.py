"""A Codex fork whose copied history runs past its first 1 MiB: ``list`` gave it its
parent's whole history (the last cumulative count) while ``tokens`` and ``show`` gave
it its own calls only.  Now the row reads such a fork whole once, as ``tokens`` reads
it, and the file's tally keeps where the copy ended, so a row built again after the
fork grew reads only the appended lines (``row._past_the_head``).

Every expected number is worked out by hand from the counters the test writes.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.providers.codex import threadfacts as codex_threadfacts
from agentscan.scan.scanner import Scanner
from codex_builders import (
    Calls,
    at,
    iso,
    line,
    meta,
    rollout_path,
    task_started,
    turn_context,
    user_message,
    write_rollout,
)

P = "019c3400-0000-7000-8000-00000000000a"  # a long parent thread (1.5 MiB)
F = "019c3400-0000-7000-8000-00000000000f"  # a fork of P: its copy runs past 1 MiB
Q = "019c3400-0000-7000-8000-00000000001a"  # a short parent thread
G = "019c3400-0000-7000-8000-00000000001f"  # a fork of Q: its copy fits in the head
S = "019c3400-0000-7000-8000-00000000005b"  # a subagent of P that copied its history
MIB = 1024 * 1024
TURNS = 6  # P's turns, one call each on gpt-5-codex

# P: 6 calls of (1000 in, 0 cached, 100 out): input 6000, output 600, total 6600.
PARENT = (6000, 0, 0, 600, 0, 6600)
# F's own call (3000 in, 2500 cached, 150 out) on gpt-5.1: total 3150.
FORK_OWN = (500, 2500, 0, 150, 0, 3150)
# F's next call, appended (400 in, 100 cached, 40 out) on o3: total 440.
APPENDED = (300, 100, 0, 40, 0, 440)
FORK_GROWN = tuple(a + b for a, b in zip(FORK_OWN, APPENDED))
# Q: one call (200 in, 0 cached, 20 out); G's own call (50 in, 0 cached, 5 out): total 55.
SHORT_PARENT = (200, 0, 0, 20, 0, 220)
SHORT_FORK = (50, 0, 0, 5, 0, 55)
# S's own call (70 in, 0 cached, 7 out): total 77.
SUB_OWN = (70, 0, 0, 7, 0, 77)

runner = CliRunner()


def _filler(moment: datetime, count: int) -> list[dict[str, Any]]:
    return [line(moment, "response_item", {"type": "reasoning", "summary": [], "encrypted_content": "z" * 1000})] * count


def _parent(codex: Path) -> tuple[list[dict[str, Any]], Calls]:
    """P: a turn per call, each on gpt-5-codex, 250 KB of reasoning after each."""
    calls = Calls()
    lines = [meta(P, at(0))]
    for turn in range(TURNS):
        moment = at(10 * (turn + 1))
        lines += [task_started(moment), turn_context(moment, "gpt-5-codex"), user_message(moment, f"step {turn}"),
                  calls.call(moment, 1000, 0, 100), *_filler(moment, 250)]
    write_rollout(rollout_path(codex, P, at(0)), lines)
    return lines, calls


def _copy(lines: list[dict[str, Any]], start: float, *, markers: bool = True) -> list[dict[str, Any]]:
    """The parent's lines as a fork's file holds them: timestamps rewritten to the fork
    instant, a few milliseconds apart (the parent's meta copied too)."""
    kept = [record for record in lines if markers or record["payload"].get("type") != "task_started"]
    return [dict(record, timestamp=iso(at(start + 0.001 * (n + 1)))) for n, record in enumerate(kept)]


def _fork(codex: Path, parent_lines: list[dict[str, Any]], calls: Calls, *, markers: bool = True) -> Path:
    """F forks P at t=1000 and makes one call on gpt-5.1."""
    own = [task_started(at(1030))] if markers else []
    own += [turn_context(at(1030), "gpt-5.1"), user_message(at(1030), "try another way"),
            calls.call(at(1040), 3000, 2500, 150)]
    path = rollout_path(codex, F, at(1000))
    write_rollout(path, [meta(F, at(1000), forked_from=P), *_copy(parent_lines, 1000, markers=markers), *own])
    assert path.stat().st_size > 1.4 * MIB  # the fork's own turn lies past the head's 1 MiB
    return path


def _short(codex: Path) -> None:
    """Q (one call) and its fork G (one call of its own): both well under 1 MiB."""
    calls = Calls()
    lines = [meta(Q, at(0)), task_started(at(5)), turn_context(at(5), "gpt-5"), user_message(at(5), "short"),
             calls.call(at(6), 200, 0, 20)]
    write_rollout(rollout_path(codex, Q, at(0)), lines)
    own = [task_started(at(2030)), turn_context(at(2030), "gpt-5"), user_message(at(2030), "again"),
           calls.call(at(2040), 50, 0, 5)]
    write_rollout(rollout_path(codex, G, at(2000)), [meta(G, at(2000), forked_from=Q), *_copy(lines, 2000), *own])


def _append(path: Path, calls: Calls, when: float = 1100, *, markers: bool = True) -> None:
    """F's next turn, on o3."""
    records = [task_started(at(when))] if markers else []
    records += [turn_context(at(when), "o3"), user_message(at(when), "and now"), calls.call(at(when + 10), 400, 100, 40)]
    with path.open("ab") as handle:
        handle.write(b"".join(orjson.dumps(record) + b"\n" for record in records))


def _t(tokens: dict[str, int] | None) -> tuple[int, ...] | None:
    if tokens is None:
        return None
    return tuple(tokens[k] for k in ("input", "cache_read", "cache_write", "output", "reasoning", "total"))


def _u(usage: Any) -> tuple[int, ...] | None:
    return None if usage is None else (usage.input, usage.cache_read, usage.cache_write, usage.output,
                                       usage.reasoning, usage.total)


def _cli(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout_bytes)


def _listed(*args: str) -> dict[str, tuple[int, ...] | None]:
    return {row["native_id"]: _t(row["tokens"]) for row in _cli("list", *args)["sessions"]}


def _token_rows(*args: str) -> dict[str, tuple[int, ...] | None]:
    return {row["key"].split(":", 1)[1]: _t(row["tokens"]) for row in _cli("tokens", *args)["rows"]}


def _rows(*, cache: bool = True) -> dict[str, Any]:
    """The rows as the row pass builds them (no cost pass, which reads every file whole)."""
    with Scanner(use_cache=cache) as scanner:
        return {row.native_id: row for row in scanner.list_sessions()}


def _no_whole_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the fork was read whole again")

    monkeypatch.setattr(codex_threadfacts, "read_replay_whole", refuse, raising=False)


def test_list_gives_a_large_fork_its_own_calls_cold_warm_and_uncached(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    _fork(codex, lines, calls)
    _short(codex)
    expected = {P: PARENT, F: FORK_OWN, Q: SHORT_PARENT, G: SHORT_FORK}
    # The row's own pass, cold: the fork read whole once (list once counted 6,600 + 3,150).
    assert {key: _u(row.tokens) for key, row in _rows().items()} == expected
    assert _listed("--no-cache") == expected
    assert _listed() == expected  # the kept rows
    assert _token_rows() == expected
    assert _listed() == expected
    assert _token_rows("--no-cache") == expected


def test_a_large_forks_row_after_it_grew(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    path = _fork(codex, lines, calls)
    _short(codex)
    assert _u(_rows()[F].tokens) == FORK_OWN  # a whole pass: its tally keeps where the copy ended
    _append(path, calls)
    expected = {P: PARENT, F: FORK_GROWN, Q: SHORT_PARENT, G: SHORT_FORK}
    with monkeypatch.context() as patched:
        _no_whole_pass(patched)  # only the appended lines are read
        assert {key: _u(row.tokens) for key, row in _rows().items()} == expected
        assert _listed() == expected
    assert _listed("--no-cache") == expected
    assert _token_rows() == _token_rows("--no-cache") == expected


@pytest.mark.parametrize("first", ["tokens", "show"])
def test_a_whole_pass_keeps_where_the_copy_ended(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    """``tokens`` and ``show`` read the fork whole anyway: their tally says where its copy
    ended, so ``list`` need not read it whole, then or after it grew."""
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    path = _fork(codex, lines, calls)
    _cli("tokens")
    if first == "show":
        # Its pass keeps the tally again (its cost comes from the sums ``tokens`` kept).
        assert _t(_cli("show", F)["session"]["tokens"]) == FORK_OWN
    # No row kept by those runs answers: the row is built, from the tally.
    monkeypatch.setattr("agentscan.providers.codex.provider.CodexProvider.parser_version", "test-" + first)
    with monkeypatch.context() as patched:
        _no_whole_pass(patched)
        assert _u(_rows()[F].tokens) == FORK_OWN
        _append(path, calls)
        assert _u(_rows()[F].tokens) == FORK_GROWN
    assert _token_rows()[F] == FORK_GROWN


def test_a_large_forks_model_and_counts_are_its_own(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last 1 MiB holds copied calls on gpt-5-codex and the fork's one on gpt-5.1: the
    row's model is the fork's own call's, as ``tokens --by model`` gives it."""
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    path = _fork(codex, lines, calls)
    assert _rows(cache=False)[F].model == "gpt-5.1"
    row = _rows()[F]
    # The counts are the fork's own part's (pass 46: the file's 7 prompts less the 6 copied).
    assert (row.model, row.counts.prompts, row.counts_partial) == ("gpt-5.1", 1, False)
    _append(path, calls)
    _append(path, calls, 1200)
    with monkeypatch.context() as patched:
        _no_whole_pass(patched)
        row = _rows()[F]
    assert (row.model, row.counts.prompts, row.counts_partial) == ("o3", 3, False)  # 2 calls to 1
    assert Scanner().show(F).row.model == "o3"


def test_a_large_fork_without_turn_markers(isolated_home: Path) -> None:
    """No ``task_started`` (older builds): told from its copy by its parent's calls, as
    ``tokens`` tells it, after it grew too (read whole again: nothing keeps that end)."""
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    path = _fork(codex, lines, calls, markers=False)
    assert _listed("--no-cache")[F] == _token_rows()[F] == FORK_OWN
    assert _u(_rows()[F].tokens) == FORK_OWN
    _append(path, calls, markers=False)
    assert _u(_rows()[F].tokens) == _listed("--no-cache")[F] == _token_rows()[F] == FORK_GROWN


def test_a_subagent_that_copied_a_large_history(isolated_home: Path) -> None:
    """A subagent whose copy of its parent's history runs past 1 MiB: its own call only is
    added to its parent's row."""
    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    copy = _copy(lines, 3000)
    own = [task_started(at(3010)), turn_context(at(3010), "gpt-5"), user_message(at(3010), "look"),
           calls.call(at(3020), 70, 0, 7)]
    write_rollout(rollout_path(codex, S, at(3000)), [meta(S, at(3000), spawn_parent=P), *copy, *own])
    whole = tuple(a + b for a, b in zip(PARENT, SUB_OWN))
    assert _u(_rows()[P].tokens) == _listed("--no-cache")[P] == _token_rows()[P] == whole


def test_a_damaged_copy_end_is_no_tally(isolated_home: Path) -> None:
    """A tally whose kept copy end is damaged is no tally: the fork is read whole again."""
    import sqlite3

    codex = isolated_home / ".codex"
    lines, calls = _parent(codex)
    path = _fork(codex, lines, calls)
    assert _u(_rows()[F].tokens) == FORK_OWN
    index = isolated_home.parent / "agentscan-cache" / "index.sqlite"
    damaged = 0
    with sqlite3.connect(index) as conn:
        query = "SELECT rowid, state FROM files WHERE kind='codex.counts' AND path=?"
        for key, state in conn.execute(query, (str(path),)).fetchall():
            document = orjson.loads(state)
            assert document["copy"]["baseline"] == [6000, 0, 0, 600, 0, 6600]
            document["copy"] = {"baseline": "six thousand", "calls": []}
            conn.execute("UPDATE files SET state=? WHERE rowid=?", (orjson.dumps(document), key))
            damaged += 1
    assert damaged == 1
    _append(path, calls)
    assert _u(_rows()[F].tokens) == FORK_GROWN
