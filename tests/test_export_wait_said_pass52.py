"""A second export of one output waits for the first (``export.locks``): on a terminal it says
so (pass 52).  It sat silent for as long as the first run took (20 s and more at scale 10,
a first export still reading), and looked hung; a Ctrl-C was the user's only answer."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from filelock import FileLock

from agentscan.errors import ExportFailed
from agentscan.export.locks import lock_path, output_lock


def test_a_held_lock_is_said_to_be_waited_for(isolated_home: Path, tmp_path: Path) -> None:
    out = tmp_path / "s.csv"
    lock = lock_path(out, os.environ)
    lock.parent.mkdir(parents=True, exist_ok=True)
    said: list[str] = []
    with FileLock(str(lock)), pytest.raises(ExportFailed, match="another agentscan export"):
        with output_lock(out, os.environ, 0.2, waiting=said.append):
            pass
    assert said == [f"waiting for another agentscan export of {out} (up to 0.2 s)"]


def test_a_free_lock_says_nothing(isolated_home: Path, tmp_path: Path) -> None:
    said: list[str] = []
    with output_lock(tmp_path / "s.csv", os.environ, 0.2, waiting=said.append):
        pass
    assert said == []


def test_the_terminal_line_says_it_at_once_and_is_erased() -> None:
    from agentscan.cli.progress import StderrProgress

    stream = io.StringIO()
    progress = StderrProgress(stream)
    progress.waiting("waiting for another agentscan export of s.csv (up to 30 s)")
    assert stream.getvalue() == "\r\x1b[Kwaiting for another agentscan export of s.csv (up to 30 s)"
    progress.finish()  # the result is printed next: on a line of its own
    assert stream.getvalue().endswith("\r\x1b[K")


def test_run_export_tells_its_progress(isolated_home: Path, tmp_path: Path) -> None:
    from agentscan.export.run import run_export
    from agentscan.progress import Progress
    from agentscan.scan.listing import ListFilter
    from agentscan.scan.scanner import Scanner

    class Told(Progress):
        def __init__(self) -> None:
            super().__init__()
            self.said: list[str] = []

        def waiting(self, what: str) -> None:
            self.said.append(what)

    out = tmp_path / "s.csv"
    lock = lock_path(out, os.environ)
    lock.parent.mkdir(parents=True, exist_ok=True)
    with Scanner() as scanner:
        scanner.ctx.progress = told = Told()
        with FileLock(str(lock)), pytest.raises(ExportFailed):
            run_export(scanner, "csv", out, filters=ListFilter(), lock_timeout=0.2)
    assert told.said == [f"waiting for another agentscan export of {out} (up to 0.2 s)"]
