"""Usage parsed in worker processes (``scan.usageparse``) keeps what a parse here keeps: a
session whose pass needs its provider's discovery (a Codex fork of a thread outside it,
priced by its parent's calls) is parsed here, where the discovery is at hand; in a worker
the pass discovered Codex again, inside its capture, and kept Codex's discovery warnings
with the fork's sums (found by the review of the discovery aside)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.scan import usageparse
from agentscan.toolkit import workers
from test_aside import _with_warnings
from test_row_build_parity import _fresh_process_caches, _index, _output

pytestmark = pytest.mark.skipif(not workers.usable_workers(), reason="needs two cores and fork")

COMMANDS = [["tokens", "--json"], ["tokens", "--provider", "codex"], ["tokens", "--by", "session"]]


def test_usage_parsed_in_workers_keeps_no_discovery_warning(isolated_home: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _with_warnings(isolated_home)  # a markerless Codex fork, and Codex discovery warnings
    sent: list[int] = []
    real_run = workers.run_parallel

    def counting(job, batches, count, **kwargs):  # noqa: ANN001, ANN003, ANN202
        sent.extend(index for batch in batches for index in batch)
        return real_run(job, batches, count, **kwargs)

    monkeypatch.setattr(workers, "run_parallel", counting)
    results = []
    for parallel in (True, False):
        monkeypatch.setattr(usageparse, "PARALLEL_MIN_BYTES", 0 if parallel else 10**15)
        cache = tmp_path / ("parallel-cache" if parallel else "here-cache")
        monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(cache))
        _fresh_process_caches()
        outputs = [_output(command, isolated_home) for command in COMMANDS]
        results.append((outputs, _index(cache / "index.sqlite", isolated_home)))
        if parallel:
            assert sent, "nothing was parsed in a worker"
    (parallel_out, parallel_index), (here_out, here_index) = results
    assert parallel_out == here_out
    assert parallel_index == here_index
