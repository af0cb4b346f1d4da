"""A Ctrl-C a library caller catches leaves the scanner's index as it was (pass 52 review): the
interrupt's store waits for no other agentscan's lock (``IndexConnection.hurried``), and only
while it stores.  The busy timeout stayed 0 for the scanner's life: a notebook whose cell was
interrupted went on with a scanner that never waited for another agentscan's write again, and
one that met it at the Ctrl-C wrote nothing more at all (every later run as cold)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from agentscan.scan import cachefile
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from agentscan.toolkit import workers
from test_interrupt_keeps_work_pass52 import _home, interrupted  # noqa: F401 - the fixture

pytestmark = pytest.mark.skipif(not workers.usable_workers(), reason="needs two cores and fork")


def _busy_ms(scanner: Scanner) -> int:
    assert scanner.cache is not None
    return scanner.cache.conn.execute("PRAGMA busy_timeout").fetchone()[0]


def test_tokens_interrupted_then_asked_again(isolated_home: Path, interrupted: list[bool]) -> None:  # noqa: F811
    _home(isolated_home)
    scanner = Scanner(use_cache=True)
    scanner.refs()
    waits = _busy_ms(scanner)
    assert waits == int(cachefile.BUSY_TIMEOUT * 1000)
    interrupted.append(True)
    with pytest.raises(KeyboardInterrupt):
        token_report(scanner)
    assert _busy_ms(scanner) == waits  # was 0 for good
    token_report(scanner)
    scanner.close()
    with Scanner(use_cache=True) as again:
        token_report(again)
        assert again.parses == 0


def test_rows_interrupted_while_another_agentscan_writes(isolated_home: Path, interrupted: list[bool]) -> None:  # noqa: F811
    _home(isolated_home)
    scanner = Scanner(use_cache=True)
    scanner.refs()
    assert scanner.cache is not None
    scanner.cache.commit()
    waits = _busy_ms(scanner)
    other = sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / "index.sqlite", timeout=0,
                            isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another agentscan's write, at the Ctrl-C
    interrupted.append(True)
    with pytest.raises(KeyboardInterrupt):
        scanner.all_rows()
    other.rollback()
    other.close()
    assert _busy_ms(scanner) == waits
    want = [row.to_json() for row in scanner.all_rows()]  # the other is done: this one writes again
    scanner.close()
    with Scanner(use_cache=True) as again:
        assert [row.to_json() for row in again.all_rows()] == want
        assert again.parses == 0  # was every session: the scanner had stopped writing for good
