"""A Codex rollout whose cumulative count restarted (an older build resuming the thread counts
again from zero) more than 1 MiB before its end: ``list``'s window cannot see the restart, and
its row once counted the last run only, while ``tokens`` and the row's cost counted both
(review s35, finding 1).  The row now takes the whole file's count: from a whole pass's tally,
which keeps the runs that ended, else from a read of the file's ``token_count`` lines alone,
kept in agentscan's index; without that index the row says it read only the window."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan.scanner import Scanner
from codex_builders import at, function_output, meta, rollout_path, token_count, turn_context, usage, user_message

S = "019c5555-0000-7000-8000-0000000000a1"
#: per call: (input, cached, output) of the first run, then of the resumed ones (a resumed run's
#: calls carry the thread's history: never the first run's own counts, whose running totals a
#: total equal to is a replay, ``counters.step``)
FIRST, SECOND, THIRD = (40000, 10000, 1000), (3000, 1000, 100), (45000, 10000, 1000)


def _call(moment: float, per: tuple[int, int, int], calls: int) -> dict:
    """The ``calls``-th call of a run, each ``per``: its cumulative count restarts with the run."""
    total = usage(per[0] * calls, per[1] * calls, per[2] * calls)
    return token_count(at(moment), total, usage(*per))


def _write(codex: Path, second_calls: int, third_calls: int = 0) -> Path:
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"), user_message(at(1), "Add pagination")]
    records += [_call(10 + i, FIRST, i + 1) for i in range(3)]
    # The resume, a day later: the count starts again from zero.
    records += [turn_context(at(90000), "gpt-5"), user_message(at(90000), "continue")]
    records.append(_call(90001, SECOND, 1))
    # Over 1 MiB of tool output after the restart: the window of the last 1 MiB misses it.
    records += [function_output(at(90002), f"c{i}", "y" * 14000) for i in range(80)]
    records += [_call(90100 + i, SECOND, i + 1) for i in range(1, second_calls)]
    # Another resume by the older build, in lines appended after a pass kept its tally.
    records += [_call(180000 + i, THIRD, i + 1) for i in range(third_calls)]
    path = rollout_path(codex, S, at(0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    assert path.stat().st_size > 1024 * 1024 + 14000
    return path


def _expected(second_calls: int, third_calls: int = 0) -> int:
    return sum(FIRST[0::2]) * 3 + sum(SECOND[0::2]) * second_calls + sum(THIRD[0::2]) * third_calls


def _json(*args: str) -> dict:
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout_bytes)


def _row(*args: str) -> dict:
    (row,) = _json("list", "--all", *args)["sessions"]
    return row


def _tokens() -> dict:
    return _json("tokens", S)


def test_a_count_restarted_before_the_window_is_in_the_row_cold_warm_and_grown(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _write(codex, 3)
    # Cold: no whole pass has kept a tally yet.
    row = _row()
    assert row["tokens"]["total"] == _expected(3)
    assert row["counts_partial"] is True  # its counts, though, are the window's
    report = _tokens()
    assert row["tokens"] == report["total"]  # the breakdown too
    assert row["cost_usd"] == report["cost_usd"] is not None
    # After ``tokens`` kept the tally: the row read again takes its count from there.
    warm = _row()
    assert warm["counts_partial"] is False and warm["tokens"] == report["total"]
    # Grown: the tally is read on from where it stopped.
    _write(codex, 5)
    assert _row()["tokens"]["total"] == _expected(5) == _tokens()["total"]["total"]
    # And a count that restarted in the lines appended since.
    _write(codex, 5, 2)
    assert _row()["tokens"]["total"] == _expected(5, 2) == _tokens()["total"]["total"]


def test_the_row_read_before_any_tally_follows_growth(isolated_home: Path) -> None:
    """Without a whole pass in between: the read of the ``token_count`` lines is kept and read on."""
    codex = isolated_home / ".codex"
    _write(codex, 3)
    assert _row()["tokens"]["total"] == _expected(3)
    _write(codex, 6)
    assert _row()["tokens"]["total"] == _expected(6)
    _write(codex, 6, 2)
    assert _row()["tokens"]["total"] == _expected(6, 2) == _tokens()["total"]["total"]


def test_without_agentscans_index_the_row_says_it_read_the_window_only(isolated_home: Path) -> None:
    _write(isolated_home / ".codex", 3)
    (row,) = Scanner(home=isolated_home, env={}, provider_names=["codex"]).list_sessions()
    assert row.counts_partial is True


def test_an_older_tally_still_gives_its_counts_after_an_upgrade(isolated_home: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A tally an older agentscan kept ("2": before it kept the runs that restarted) still
    holds the line counts and models: the row is not sent back to ``counts_partial`` (code
    review s35-2, finding 2); its tokens come from the ``token_count`` lines' read."""
    from agentscan.providers.codex import fullcounts

    _write(isolated_home / ".codex", 3)
    current = fullcounts.VERSION
    monkeypatch.setattr(fullcounts, "VERSION", "2")
    _tokens()  # the whole pass keeps its tally, as the older agentscan did
    monkeypatch.setattr(fullcounts, "VERSION", current)
    row = _row()
    assert row["counts_partial"] is False
    assert row["tokens"]["total"] == _expected(3) == _tokens()["total"]["total"]


FORK = "019c5555-0000-7000-8000-0000000000ff"


def test_a_fork_whose_copied_history_restarted_counts_its_own_calls(isolated_home: Path) -> None:
    """A fork's row is its latest run's count less its copy's, both runs' counts, not the
    whole file's count (which holds the copy's earlier runs): its own calls, as ``tokens``
    counts them (code review s35-2, finding 1: it had the parent's first run too, 54,161
    for 3,161), with an index or without."""
    from codex_builders import Calls, iso, line, task_started, write_rollout

    codex = isolated_home / ".codex"
    first, second = Calls(), Calls()
    parent = [meta(S, at(0)), task_started(at(10)), turn_context(at(10), "gpt-5"), user_message(at(10), "a"),
              first.call(at(11), 50000, 0, 1000),
              task_started(at(20)), turn_context(at(20), "gpt-5"), user_message(at(20), "b"),
              second.call(at(21), 1000, 0, 100)]
    write_rollout(rollout_path(codex, S, at(0)), parent)
    copy = [dict(record, timestamp=iso(at(1000 + 0.001 * (n + 1)))) for n, record in enumerate(parent)]
    filler = [line(at(1041), "response_item", {"type": "reasoning", "summary": [], "encrypted_content": "z" * 1000})] * 1200
    own = [task_started(at(1030)), turn_context(at(1030), "gpt-5"), user_message(at(1030), "fork work"),
           second.call(at(1040), 3000, 0, 150), *filler, second.call(at(1050), 10, 0, 1)]
    path = rollout_path(codex, FORK, at(1000))
    write_rollout(path, [meta(FORK, at(1000), forked_from=S), *copy, *own])
    assert path.stat().st_size > 1.1 * 1024 * 1024

    def fork_total(*args: str) -> int:
        return {row["native_id"]: row for row in _json("list", "--all", *args)["sessions"]}[FORK]["tokens"]["total"]

    spent = {row["key"].split(":", 1)[1]: row for row in _json("tokens", "--by", "session")["rows"]}[FORK]
    assert fork_total() == fork_total() == fork_total("--no-cache") == spent["tokens"]["total"] == 3161


def test_a_rollout_too_large_to_read_in_one_run_keeps_the_window_s_count(isolated_home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A first ``list`` reads at most ``runs.MAX_READ_BYTES`` of a rollout: past it the row
    says it read the window only, until a whole pass (``tokens``) keeps the tally."""
    from agentscan.providers.codex import runs

    monkeypatch.setattr(runs, "MAX_READ_BYTES", 1024 * 1024)
    _write(isolated_home / ".codex", 3)
    row = _row()
    assert row["counts_partial"] is True and row["tokens"]["total"] < _expected(3)
    _tokens()
    assert _row()["tokens"]["total"] == _expected(3)
