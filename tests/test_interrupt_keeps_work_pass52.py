"""A Ctrl-C into a long first run keeps what was read (pass 52): the sessions whose sums
(``tokens``) or rows (``list --all``) the workers finished are in the index, so the next run
reads only the rest.  They were held until the whole parse was done and dropped with the
index's open transaction at exit: a heavy user who stopped a 60 s cold ``list --all`` at
45 s waited 60 s again."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from agentscan.scan import rowbuild, usageparse
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from agentscan.toolkit import workers
from test_row_build import _session

SESSIONS = 12
GIVEN = 5  # results the workers hand back before the Ctrl-C

pytestmark = pytest.mark.skipif(not workers.usable_workers(), reason="needs two cores and fork")


@pytest.fixture
def interrupted(monkeypatch: pytest.MonkeyPatch, pools: list[int]) -> list[bool]:
    """Every pool is read in workers; once the list it returns holds ``True``, the next pool is
    stopped by a Ctrl-C after ``GIVEN`` results (the parent's ``KeyboardInterrupt``, as SIGINT
    raises it there)."""
    monkeypatch.setattr(usageparse, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(rowbuild, "MIN_ROWS", 2)
    monkeypatch.setattr(rowbuild, "MIN_BYTES", 0)
    real = workers.run_parallel
    armed: list[bool] = []
    stopped: list[bool] = []

    def stopping(job: Any, batches: Any, count: int, **kw: Any) -> Iterator[tuple[int, bool, Any]]:
        for given, answer in enumerate(real(job, batches, count, **kw)):
            if given == GIVEN and armed and not stopped:
                stopped.append(True)
                raise KeyboardInterrupt
            yield answer

    monkeypatch.setattr(workers, "run_parallel", stopping)
    return armed


def _exits(scanner: Scanner) -> None:
    """As the process ends on the Ctrl-C: the index's connection goes, what it had not
    committed rolled back (``Scanner.close`` is not called: it would commit)."""
    assert scanner.cache is not None
    scanner.cache.conn.rollback()
    scanner.cache.conn.close()
    scanner.ctx.close()


def _home(home: Path) -> None:
    for number in range(SESSIONS):
        _session(home, number)


def test_tokens_interrupted_keeps_the_sums_read(isolated_home: Path, interrupted: list[bool]) -> None:
    _home(isolated_home)
    with Scanner(use_cache=False) as plain:
        want = token_report(plain).to_json()
    interrupted.append(True)
    first = Scanner(use_cache=True)
    with pytest.raises(KeyboardInterrupt):
        token_report(first)
    _exits(first)
    with Scanner(use_cache=True) as again:
        assert token_report(again).to_json() == want
        assert again.parses == SESSIONS - GIVEN  # was SESSIONS: nothing of the first run kept


def test_list_interrupted_keeps_the_rows_read(isolated_home: Path, interrupted: list[bool]) -> None:
    _home(isolated_home)
    with Scanner(use_cache=False) as plain:
        want = [row.to_json() for row in plain.all_rows()]
    interrupted.append(True)
    first = Scanner(use_cache=True)
    with pytest.raises(KeyboardInterrupt):
        first.all_rows()
    _exits(first)
    with Scanner(use_cache=True) as again:
        assert [row.to_json() for row in again.all_rows()] == want
        assert again.parses == SESSIONS - GIVEN


def test_an_interrupt_waits_for_no_other_agentscan(isolated_home: Path, interrupted: list[bool],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Another agentscan writing to the index when Ctrl-C comes: what was read is not kept
    (the index is its), and the run ends at once, not after the busy timeout."""
    from agentscan.scan import cachefile

    monkeypatch.setattr(cachefile, "BUSY_TIMEOUT", 3.0)
    _home(isolated_home)
    first = Scanner(use_cache=True)
    first.refs()
    first.cache.commit()
    other = sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / "index.sqlite", timeout=0,
                            isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # its write lock, held
    interrupted.append(True)
    began = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        token_report(first)
    assert time.monotonic() - began < 2.0  # was over 3 s: the busy timeout, waited on a Ctrl-C
    other.rollback()
    other.close()
    _exits(first)
