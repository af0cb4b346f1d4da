"""The progress line names what a cold run is doing with its sessions.

A first ``agentscan tokens`` adds up every session's tokens, then reads every
session's row for the table's date, project and title: two counts over the
same sessions. Both said "reading sessions", so the count seemed to go back
to zero halfway through; the parse now says "adding up tokens".
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agentscan.progress import BUNDLING, CACHING, FINDING, KEEPING_ROWS, PRICING, READING
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from agentscan.scan.usageparse import ADDING_UP
from builders import claude_sessions
from spies import recording_progress


def test_the_parse_is_named_and_the_rows_after_it_are_not(isolated_home: Path) -> None:
    claude_sessions(isolated_home, 4)
    with Scanner(use_cache=True) as scanner:
        scanner.ctx.progress = progress = recording_progress()
        report = token_report(scanner)
        parsed = list(progress.seen)
        assert progress.phase == READING  # the parse's name is not left behind for what follows it
        for ref in report.sessions.values():
            scanner.row(ref)
            progress.advance()
    # (the sessions found first, pass 55: then added up, priced, their rows kept; pass 56: their
    # sums' caching after the parse counted too, then each agent's sessions kept together)
    order = [FINDING, ADDING_UP, CACHING, BUNDLING, PRICING, KEEPING_ROWS]
    assert parsed and {phase for phase, _, _ in parsed} == set(order)
    assert [phase for phase, _, _ in parsed] == sorted((phase for phase, _, _ in parsed), key=order.index)
    assert parsed[-1][1:] == (4, 4)
    assert {phase for phase, _, _ in progress.seen[len(parsed):]} == {READING}


def test_a_warm_run_parses_nothing_and_names_nothing(isolated_home: Path) -> None:
    claude_sessions(isolated_home, 2)
    with Scanner(use_cache=True) as scanner:
        token_report(scanner)
    with Scanner(use_cache=True) as scanner:
        scanner.ctx.progress = progress = recording_progress()
        token_report(scanner)
    assert all(phase != ADDING_UP for phase, _, _ in progress.seen)


def test_the_line_shows_the_phase_and_the_name_before_it_comes_back(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli import progress as progress_module

    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    progress = progress_module.StderrProgress(stream)
    progress.expect(1500)
    clock[0] += 2.0
    progress.advance(700)
    assert stream.getvalue().endswith("\r\x1b[Kreading sessions 700/1,500 (350/s)")
    with progress.named(ADDING_UP):
        # Named at once over the line shown, and counted without the delay: the line before
        # it stood still for seconds, saying what was done no longer (pass 53).
        assert stream.getvalue().endswith("\r\x1b[Kadding up tokens")
        progress.expect(500)
        clock[0] += 0.5
        progress.advance(100)
        # No rate before the phase has run a second (pass 54: its first tenths read ``(4/s)``)
        assert stream.getvalue().endswith("\r\x1b[Kadding up tokens 100/500")
        clock[0] += 1.5
        progress.advance(300)
    # Its own count and rate: not 1,100/2,000, for a home of 1,500 sessions.
    assert stream.getvalue().endswith("\r\x1b[Kadding up tokens 400/500 (200/s)")
    clock[0] += 2.0
    progress.advance(1)  # the count before it goes on under its name
    # At its own rate: 701 in the 4 s of its own (not 6 s, the phase's 2 s included).
    assert stream.getvalue().endswith("\r\x1b[Kreading sessions 701/1,500 (175/s)")
