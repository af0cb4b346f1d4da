"""A large Codex rollout whose usage is parsed in a worker process (a first ``tokens`` of a
heavy home, on two cores or more) keeps its tally as a parse here does: the worker lists the
write, the parent makes it.  Without it ``list`` never knew the rollout's whole count (a run
that restarted before its window lost) however often ``tokens`` ran, and a row of a count it
could not know was built again on every ``list``."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.providers.codex import runs
from agentscan.scan import usageparse
from codex_builders import at, meta, rollout_path, turn_context
from test_codex_upgrade_pass42h import BUDGET, S, _calls, _json, _restarted, _rows, _write

OTHER = "019c4242-0000-7000-8000-0000000000e1"


def test_a_tally_kept_by_a_worker_gives_list_the_whole_count(isolated_home: Path, pools: list[int],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    codex = isolated_home / ".codex"
    _restarted(codex)  # 5,500 in all; its window (past the read budget) holds 2,200
    _write(rollout_path(codex, OTHER, at(0)), [meta(OTHER, at(0)), turn_context(at(1), "gpt-5"),
                                               *_calls(10, [(1000, 100), (2000, 200)], (1000, 100))])
    monkeypatch.setattr(runs, "MAX_READ_BYTES", BUDGET)  # ``list`` cannot read it whole
    monkeypatch.setattr(usageparse, "PARALLEL_MIN_BYTES", 0)  # parsed in workers
    def whole(*args: str) -> int:
        report = _json("tokens", "--by", "session", *args)
        return next(row["tokens"]["total"] for row in report["rows"] if row["key"] == f"codex:{S}")

    assert whole("--no-cache") == whole() == 5500  # (both sessions parsed, in workers)
    assert pools, "the usage was not parsed in worker processes"
    row = _rows()[S]
    assert (row["tokens"]["total"], row["counts_partial"]) == (5500, False)
