"""``tokens``' table names its sessions at once after adding up their tokens (pass 53).

Between the two phases the line was erased (``Progress.finish``), and "naming sessions"
then waited for its own delay (``DELAY_S``, a second) before it was drawn: a blank line
stood where a count had been.  The phase now hands over (``Progress.handover``): the next
one names itself over the line shown.  A run that drew no line draws none for it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agentscan.cli import progress as progress_module
from agentscan.cli.tokens_table import sessions_facts
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from agentscan.scan.usageparse import ADDING_UP
from builders import claude_sessions

ERASE = "\r\x1b[K"


def _facts_after(home: Path, monkeypatch: pytest.MonkeyPatch, *, drawn: bool) -> str:
    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    claude_sessions(home, 3)
    stream = io.StringIO()
    with Scanner(use_cache=True) as scanner:
        report = token_report(scanner)
        scanner.ctx.progress = progress = progress_module.StderrProgress(stream)
        with progress.named(ADDING_UP):
            progress.expect(3)
            clock[0] += 2.0 if drawn else 0.1  # (the clock stands still after: no delay ends)
            progress.advance(3)
        assert sessions_facts(report, scanner)
    return stream.getvalue()


def test_the_next_phase_is_named_over_the_line_at_once(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    said = _facts_after(isolated_home, monkeypatch, drawn=True)
    assert "adding up tokens 3/3" in said
    frames = said.split(ERASE)
    assert frames[-1].startswith("naming sessions"), frames  # not erased, then a second of nothing
    assert "" not in frames[1:], frames  # no blank line between them


def test_a_run_that_drew_nothing_draws_nothing(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _facts_after(isolated_home, monkeypatch, drawn=False) == ""
