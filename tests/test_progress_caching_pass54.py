"""Pass 54: once the workers have read a cold ``list --all``'s (or an export's) rows, keeping
each in the index is a phase of its own, ``caching sessions N/M``, counted as they are kept:
the line stood at ``reading sessions 15,000/15,000`` for 1.3 s at the bench's scale 10 (the
rows were counted as the workers finished them, not as they were kept)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.progress import CACHING, READING
from agentscan.toolkit import workers
from test_row_build import _session, run, travelled  # noqa: F401 - ``travelled`` is a fixture

pytestmark = pytest.mark.skipif(not workers.usable_workers(), reason="needs two cores and fork")

SESSIONS = 40


@pytest.fixture
def phases(monkeypatch: pytest.MonkeyPatch, tty) -> list[tuple[str, int, int]]:  # noqa: ANN001
    """(phase, done, total) each time the line on a terminal changes."""
    from agentscan.cli import progress as cli_progress

    seen: list[tuple[str, int, int]] = []

    class Recording(cli_progress.StderrProgress):
        def changed(self) -> None:
            seen.append((self.phase, self.done, self.total))
            super().changed()

    monkeypatch.setattr(cli_progress, "StderrProgress", Recording)
    tty(120)
    return seen


@pytest.mark.parametrize("command", [["list", "--all"], ["list", "--all", "--json"],
                                     ["export", "--format", "jsonl", "--output", "-"]])
def test_rows_read_in_workers_are_counted_as_they_are_kept(isolated_home: Path, travelled: list[str],  # noqa: F811
                                                            phases: list[tuple[str, int, int]],
                                                            command: list[str]) -> None:
    for number in range(SESSIONS):
        _session(isolated_home, number)
    run(*command)
    assert travelled  # the rows were read in workers
    caching = [(done, total) for phase, done, total in phases if phase == CACHING]
    assert caching[-1] == (SESSIONS, SESSIONS), phases
    assert [done for done, _ in caching] == sorted(done for done, _ in caching)
    assert len(caching) >= SESSIONS  # one a row kept, not the whole count at once
    # The reading's count comes before, and is not said again after.
    reading = [index for index, (phase, _, _) in enumerate(phases) if phase == READING]
    first_caching = next(index for index, (phase, _, _) in enumerate(phases) if phase == CACHING)
    assert reading and max(reading) < first_caching


def test_a_warm_list_has_nothing_to_cache(isolated_home: Path, travelled: list[str],  # noqa: F811
                                          phases: list[tuple[str, int, int]]) -> None:
    for number in range(SESSIONS):
        _session(isolated_home, number)
    run("list", "--all")
    phases.clear()
    run("list", "--all")
    assert all(phase != CACHING for phase, _, _ in phases)
