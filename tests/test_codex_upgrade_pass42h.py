"""What the build before kept, after the upgrade that counts a Codex rollout of garbage running
totals by its calls (code review s42, rev5): its ``list`` rows (parser version "16") held the
totals' count (6,900 where ``tokens`` says 5,500), and are not taken; a rollout too large for
``runs`` to read in one run, whose tally ("6") no longer counts and whose ``runs`` state ("1")
was thrown away, gave its window's count as the whole file's (a run that restarted before the
window lost, ``counts_partial`` false, never built again); and a fork of garbage totals was read
whole on every row built, whatever its size.  The old states are written here as that build
wrote them (``files``' versions and documents), with the rows built since forgotten."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentscan.providers.codex import threadfacts as codex_threadfacts
from agentscan.providers.codex import runs
from agentscan.providers.codex.provider import CodexProvider
from builders import cli_json as _json
from codex_builders import at, function_output, meta, rollout_path, task_started, token_count, turn_context, usage

S = "019c4242-0000-7000-8000-0000000000d1"
FORK = "019c4242-0000-7000-8000-0000000000d2"
#: ``list`` with ``runs.MAX_READ_BYTES`` at this reads none of the rollouts below in one run
BUDGET = 1024 * 1024


def _rows() -> dict[str, dict]:
    return {row["native_id"]: row for row in _json("list", "--all")["sessions"]}


def _write(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    return path


def _calls(start: float, totals: list[tuple[Any, int]], per: tuple[int, int]) -> list[dict]:
    """A ``token_count`` per (input, output) running total, each call ``per``."""
    records = []
    for index, (total_input, total_output) in enumerate(totals):
        total = usage(1, output=total_output)
        total["input_tokens"] = total_input
        total["total_tokens"] = int(total_input) + total_output if total_input >= 0 else total_output
        records.append(token_count(at(start + index), total, usage(per[0], output=per[1])))
    return records


def _padding(count: int = 80) -> list[dict]:
    """80 lines of 14 kB of tool output: the window of ``list`` (1 MiB) sees nothing before."""
    return [function_output(at(100), f"c{i}", "y" * 14000) for i in range(count)]


def _restarted(codex: Path, *, more: int = 0) -> Path:
    """Three calls, a restart (an older Codex resuming from zero) and two more, all before the
    window; then two calls in it (and ``more``): the whole count is both runs' last, 5,500
    (3,300 + 2,200), the window's latest total 2,200 alone."""
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"),
               *_calls(10, [(1000, 100), (2000, 200), (3000, 300)], (1000, 100)),
               *_calls(20, [(500, 50), (1000, 100)], (500, 50)), *_padding(),
               *_calls(200, [(1000 + 500 * (i + 1), 100 + 50 * (i + 1)) for i in range(2 + more)], (500, 50))]
    return _write(rollout_path(codex, S, at(0)), records)


def _as_the_build_before(index: Path, versions: dict[str, str | None]) -> None:
    """The ``files`` state of each kind as the build before kept it: its ``version`` (``None``:
    none kept), its document as that build wrote it (no ``recount``, no ``uncounted``), and the
    rows and answers built since forgotten (as the new parser version makes them)."""
    with sqlite3.connect(index) as conn:
        for kind, version in versions.items():
            if version is None:
                conn.execute("DELETE FROM files WHERE kind=?", (kind,))
                continue
            found = conn.execute("SELECT rowid, state FROM files WHERE kind=?", (kind,)).fetchall()
            assert len(found) == 1, kind
            (key, state), = found
            document = orjson.loads(state)
            document.pop("recount", None)
            document.pop("uncounted", None)
            conn.execute("UPDATE files SET state=?, version=? WHERE rowid=?", (orjson.dumps(document), version, key))
        conn.execute("DELETE FROM rows")
        conn.execute("DELETE FROM snapshots WHERE key LIKE 'answer:%'")


def _index(home: Path) -> Path:
    return home.parent / "agentscan-cache" / "index.sqlite"


def test_a_row_the_build_before_kept_is_built_again(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 1: a small rollout of garbage totals, unchanged, its row kept under the parser
    version before (``provider.py``'s 16) with the totals' count: the row is not taken."""
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"),
               *_calls(10, [(1000.5, 100), (-5, 200), (2000.25, 300), (1500, 400), (3000.75, 500)], (1000, 100))]
    _write(rollout_path(isolated_home / ".codex", S, at(0)), records)
    current = CodexProvider.parser_version
    monkeypatch.setattr(CodexProvider, "parser_version", "16")
    assert _rows()[S]["tokens"]["total"] == 5500
    with sqlite3.connect(_index(isolated_home)) as conn:  # the build before's count (its totals)
        (row,) = [orjson.loads(value) for (value,) in conn.execute("SELECT row FROM rows")]
        row["tokens"].update(input=6000, output=900, total=6900)
        conn.execute("UPDATE rows SET row=?", (orjson.dumps(row).decode(),))
        conn.execute("DELETE FROM snapshots WHERE key LIKE 'answer:%'")
    assert _rows()[S]["tokens"]["total"] == 6900  # (the kept row, under its version)
    monkeypatch.setattr(CodexProvider, "parser_version", current)
    assert _rows()[S]["tokens"] == _json("tokens", S)["total"] and _rows()[S]["tokens"]["total"] == 5500


def _kept_by_the_build_before(home: Path, versions: dict[str, str | None], monkeypatch: pytest.MonkeyPatch) -> None:
    """``runs``' state and a whole pass's tally of ``_restarted``, then made the build before's
    (under its parser version: what ``tokens`` kept is not taken by this one's)."""
    current = CodexProvider.parser_version
    monkeypatch.setattr(CodexProvider, "parser_version", "16")
    assert _rows()[S]["tokens"]["total"] == 5500  # (``runs`` reads the token lines: its state kept)
    assert _json("tokens", S)["total"]["total"] == 5500  # (the tally kept)
    _as_the_build_before(_index(home), versions)
    monkeypatch.setattr(CodexProvider, "parser_version", current)


class _Builds:
    """How many rows the provider built (``row``) or mended (``refresh_row``): a cached row
    that says it read a part (``wants_refresh``) is mended on every ``list``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        for name in ("row", "refresh_row"):
            monkeypatch.setattr(CodexProvider, name, self._counted(getattr(CodexProvider, name)))

    def _counted(self, real: Any) -> Any:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return real(*args, **kwargs)
        return counted


def test_a_tally_of_the_build_before_counts_a_rollout_past_the_read_budget(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Review rev6: a tally of "6" and no ``runs`` state, the window without garbage: its count
    is taken (that build counted a file of counts as ``counters.step`` does), so the row is whole
    and a second ``list`` builds nothing (a partial row was built again on every ``list``:
    ``tokens`` in worker processes keeps no tally to mend it).  It goes on over appended lines."""
    codex = isolated_home / ".codex"
    _restarted(codex)
    _kept_by_the_build_before(isolated_home, {"codex.counts": "6", "codex.runs": None}, monkeypatch)
    monkeypatch.setattr(runs, "MAX_READ_BYTES", BUDGET)
    row = _rows()[S]
    assert row["counts_partial"] is False and row["tokens"]["total"] == 5500  # (not the window's 2,200)
    builds = _Builds(monkeypatch)
    assert _rows()[S] == row and builds.count == 0
    _restarted(codex, more=1)  # (a call more: the tally read on, still the build before's count)
    row = _rows()[S]
    assert row["counts_partial"] is False
    assert row["tokens"]["total"] == 5500 + 550 == _json("tokens", S)["total"]["total"]


def test_a_tally_of_the_build_before_within_the_read_budget_is_not_believed(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A "6" may have taken garbage totals for a running count, and keeps no sign of it: a file
    ``runs`` can read in one run is counted there (once: its state is kept), whatever the
    tally says (here a count no well-formed file gives, as such a build kept)."""
    _restarted(isolated_home / ".codex")
    _kept_by_the_build_before(isolated_home, {"codex.counts": "6", "codex.runs": None}, monkeypatch)
    with sqlite3.connect(_index(isolated_home)) as conn:
        (state,), = conn.execute("SELECT state FROM files WHERE kind='codex.counts'").fetchall()
        document = orjson.loads(state)
        document["total"] = [9000, 0, 0, 900, 0, 9900]
        conn.execute("UPDATE files SET state=? WHERE kind='codex.counts'", (orjson.dumps(document),))
    row = _rows()[S]
    assert row["counts_partial"] is False and row["tokens"]["total"] == 5500
    builds = _Builds(monkeypatch)
    assert _rows()[S] == row and builds.count == 0


def test_a_runs_state_of_the_build_before_counts_a_rollout_past_the_read_budget(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 2: its ``runs`` state ("1", no ``recount``: a file of counts, which that build read
    as ``counters.step`` reads it) is taken for a file that cannot be read again in one run:
    unchanged, then read on over appended lines (its tally counts nothing: a "4")."""
    codex = isolated_home / ".codex"
    _restarted(codex)
    _kept_by_the_build_before(isolated_home, {"codex.counts": "4", "codex.runs": "1"}, monkeypatch)
    monkeypatch.setattr(runs, "MAX_READ_BYTES", BUDGET)
    row = _rows()[S]
    assert row["counts_partial"] is False and row["tokens"]["total"] == 5500
    _restarted(codex, more=1)  # (a call more: read on from where the state stopped)
    row = _rows()[S]
    assert row["tokens"]["total"] == 5500 + 550 == _json("tokens", S)["total"]["total"]


def test_a_well_formed_rollout_past_the_read_budget_with_no_count_shows_its_window_whole(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its tally counts nothing ("4") and ``runs`` cannot read it in one run: the count is the
    window's latest total, as before the upgrade (a run that restarted before the window is the
    known limit), not marked partial, so not built again on every ``list``."""
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"), *_calls(10, [(1000, 100), (2000, 200)], (1000, 100)),
               *_padding(), *_calls(200, [(3000, 300), (4000, 400)], (1000, 100))]
    _write(rollout_path(isolated_home / ".codex", S, at(0)), records)
    assert _json("tokens", S)["total"]["total"] == 4400
    _as_the_build_before(_index(isolated_home), {"codex.counts": "4", "codex.runs": None})
    monkeypatch.setattr(runs, "MAX_READ_BYTES", BUDGET)
    row = _rows()[S]
    assert row["counts_partial"] is False and row["tokens"]["total"] == 4400
    builds = _Builds(monkeypatch)
    assert _rows()[S] == row and builds.count == 0


def test_a_tally_that_met_garbage_before_the_window_says_the_row_is_partial(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tally read on over appended lines whose totals are garbage counts nothing
    (``fullcounts.UNCOUNTED``); past the read budget the window, which shows none of them, has
    no count of the file's calls: the row says it read a part, until ``tokens``."""
    path = rollout_path(isolated_home / ".codex", S, at(0))
    _write(path, [meta(S, at(0)), turn_context(at(1), "gpt-5"), *_padding(),
                  *_calls(10, [(1000, 100), (2000, 200)], (1000, 100))])
    assert _json("tokens", S)["total"]["total"] == 2200  # (the tally kept, counted)
    more = [*_calls(20, [(-5, 300), (3000.5, 400)], (1000, 100)), *_padding(), *_calls(300, [(5000, 500)], (1000, 100))]
    with path.open("ab") as handle:
        handle.write(b"".join(orjson.dumps(record) + b"\n" for record in more))
    monkeypatch.setattr(runs, "MAX_READ_BYTES", BUDGET)
    assert _rows()[S]["counts_partial"] is True
    total = _json("tokens", S)["total"]
    row = _rows()[S]
    assert row["counts_partial"] is False and row["tokens"] == total and total["total"] == 5 * 1100


def test_a_runs_state_of_the_build_before_is_not_taken_when_the_window_shows_garbage(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """That build took garbage totals for a running count, and its state keeps no sign of it:
    a window that holds some says the state's count is wrong; the row is the window's, partial."""
    records = [meta(S, at(0)), turn_context(at(1), "gpt-5"), *_calls(10, [(1000, 100), (2000, 200)], (1000, 100)),
               *_padding(), *_calls(200, [(-5, 300), (4000.5, 400)], (1000, 100))]
    _write(rollout_path(isolated_home / ".codex", S, at(0)), records)
    assert _rows()[S]["tokens"]["total"] == 4400
    assert _json("tokens", S)["total"]["total"] == 4400
    _as_the_build_before(_index(isolated_home), {"codex.counts": "6", "codex.runs": "1"})
    monkeypatch.setattr(runs, "MAX_READ_BYTES", BUDGET)
    row = _rows()[S]
    assert row["counts_partial"] is True and row["tokens"]["total"] == 2200  # (the window's two calls)


def test_a_fork_of_garbage_totals_past_the_read_budget_is_not_read_whole(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 3: a fork of garbage totals is read whole for its own calls, as ``tokens`` reads
    it, only within ``runs.MAX_READ_BYTES`` (the bounded-read design): past it, its window's
    calls, and the row says it read a part."""
    codex = isolated_home / ".codex"
    parent = [meta(S, at(0)), turn_context(at(1), "gpt-5"), *_calls(10, [(1000, 100), (-5, 200)], (1000, 100))]
    _write(rollout_path(codex, S, at(0)), parent)
    own = [task_started(at(500)), *_calls(501, [(1500.5, 100)], (1000, 100)), *_padding(),
           *_calls(600, [(-5, 200), (3000.25, 300)], (1000, 100))]
    fork = [meta(FORK, at(400), forked_from=S), turn_context(at(400), "gpt-5"), *parent[2:], *own]
    _write(rollout_path(codex, FORK, at(400)), fork)
    assert _rows()[FORK]["tokens"]["total"] == 3 * 1100 == _json("tokens", FORK)["total"]["total"]
    read_whole: list[Path] = []
    real = codex_threadfacts.read_replay_whole
    monkeypatch.setattr(codex_threadfacts, "read_replay_whole", lambda path, *args: read_whole.append(path) or real(path, *args))
    monkeypatch.setattr(runs, "MAX_READ_BYTES", BUDGET)
    _as_the_build_before(_index(isolated_home), {})  # (the rows built again)
    row = _rows()[FORK]
    assert read_whole == []
    assert row["counts_partial"] is True and row["tokens"]["total"] == 2 * 1100  # (the window's two calls)
