"""Pass 54 (mend QA): the phases of a long run's progress line say what is being done.

* ``export``'s ``adding up days N/M`` counts each session as its calls come, not a batch
  of 1,000 at once after it (it stood 2-3 s, then jumped by 1,000, at the bench's scale 10);
  a cold export's sums read for it are no ``adding up tokens`` phase inside it.
* ``list --all`` after an upgrade: the rows the workers read are counted by ``reading
  sessions`` as they come; ``caching sessions`` is only the keeping of them (it labelled
  the whole parse, once the newest few rows, a batch of their own, were kept).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.export import days as export_days
from agentscan.export import daymemo
from agentscan.progress import CACHING, READING
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.scan import collect, usageparse
from agentscan.toolkit import workers
from test_row_build import _session, run, travelled  # noqa: F401 - ``travelled`` is a fixture

SESSIONS = 40


@pytest.fixture
def counted_by_then(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int]]:
    """(phase, sessions asked for, count done) as each ``usage_by_session`` call returns."""
    seen: list[tuple[str, int, int]] = []
    real = collect.usage_by_session

    def recording(scanner, refs, **kwargs):  # noqa: ANN001, ANN202
        found = real(scanner, refs, **kwargs)
        progress = scanner.ctx.progress
        seen.append((progress.phase, len(refs), progress.done))
        return found
    monkeypatch.setattr(collect, "usage_by_session", recording)
    return seen


@pytest.mark.parametrize("before", ["cold", "calls kept", "upgraded"])
def test_export_days_are_counted_as_each_sessions_calls_come(isolated_home: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             counted_by_then: list[tuple[str, int, int]],
                                                             before: str) -> None:
    for number in range(12):
        _session(isolated_home, number)
    monkeypatch.setattr(export_days, "BATCH", 5)
    if before != "cold":
        run("export", "-f", "sqlite", "-o", str(tmp_path / "first.sqlite"))
        counted_by_then.clear()
        # Every session's calls read again (not its days taken back from the last export).
        monkeypatch.setattr(daymemo.DayMemo, "for_export", classmethod(lambda cls, scanner, zone: None))
    if before == "upgraded":
        monkeypatch.setattr(ClaudeProvider, "parser_version", str(int(ClaudeProvider.parser_version) + 1))
    phases: list[str] = []
    real_named = usageparse.UsageParser._run

    def noting(self, refs, *args, **kwargs):  # noqa: ANN001, ANN202
        phases.append(self.ctx.progress.phase)
        return real_named(self, refs, *args, **kwargs)
    monkeypatch.setattr(usageparse.UsageParser, "_run", noting)
    run("export", "-f", "sqlite", "-o", str(tmp_path / "out.sqlite"))
    batches = [entry for entry in counted_by_then if entry[0] == export_days.ADDING_UP_DAYS]
    assert [asked for _, asked, _ in batches] == [5, 5, 2]
    # Each batch counted by the time its calls are read: 5, 10, 12 (it was 0, 5, 10).
    assert [done for _, _, done in batches] == [5, 10, 12]
    # The parse for them is counted in the days' phase, not one of its own.
    assert set(phases) <= {export_days.ADDING_UP_DAYS}
    assert phases or before == "calls kept"  # (those read from the index: none parsed)


@pytest.mark.skipif(not workers.usable_workers(), reason="needs two cores and fork")
def test_list_all_after_an_upgrade_reads_then_caches(isolated_home: Path, travelled: list[str],  # noqa: F811
                                                      monkeypatch: pytest.MonkeyPatch, tty) -> None:  # noqa: ANN001
    from agentscan.cli import progress as cli_progress
    from agentscan.scan.scanner import Scanner

    for number in range(SESSIONS):
        _session(isolated_home, number, mtime=1_800_000_000 + number * 60)
    run("list", "--all")
    monkeypatch.setattr(ClaudeProvider, "parser_version", str(int(ClaudeProvider.parser_version) + 1))
    # As on the bench after ``tokens``: the index's top rows decide the newest ten, a batch of
    # their own (``MergedRefs.decided``), read before the rest.
    from agentscan.scan import listing

    class Headed(list):
        decided_once = False

        def decided(self, stop: int) -> int:
            first, Headed.decided_once = not Headed.decided_once, True
            return min(stop, 10) if first else stop

    real_refs = Scanner.refs
    monkeypatch.setattr(Scanner, "refs", lambda self, *args, **kwargs: Headed(real_refs(self, *args, **kwargs)))
    monkeypatch.setattr(listing, "MergedRefs", Headed)
    seen: list[tuple[str, str, int, int]] = []  # (what, phase, done, total)

    class Recording(cli_progress.StderrProgress):
        def changed(self) -> None:
            seen.append(("changed", self.phase, self.done, self.total))
            super().changed()

        def ahead(self, count: int = 1) -> None:
            seen.append(("ahead", self.phase, self.done, self.total))
            super().ahead(count)

    monkeypatch.setattr(cli_progress, "StderrProgress", Recording)
    batches: list[int] = []
    real_prefetch = Scanner.prefetch_rows

    def prefetch(self, refs, **kwargs):  # noqa: ANN001, ANN202
        batches.append(len(refs))
        return real_prefetch(self, refs, **kwargs)
    monkeypatch.setattr(Scanner, "prefetch_rows", prefetch)
    tty(120)
    travelled.clear()
    run("list", "--all")
    assert len(batches) >= 2, batches  # the newest first, then the rest
    assert len(travelled) == SESSIONS  # all read again
    # Every row a worker read is counted while the line says "reading sessions".
    assert {phase for what, phase, _, _ in seen if what == "ahead"} == {READING}
    reading = [(done, total) for what, phase, done, total in seen if what == "changed" and phase == READING]
    caching = [(done, total) for what, phase, done, total in seen if what == "changed" and phase == CACHING]
    assert reading[-1] == (SESSIONS, SESSIONS)
    assert caching[-1] == (SESSIONS, SESSIONS)
    first_caching = next(index for index, entry in enumerate(seen) if entry[1] == CACHING)
    assert all(entry[1] != READING for entry in seen[first_caching:] if entry[0] == "changed"), seen


def test_an_export_after_an_upgrade_says_why_it_reads_the_calls_again(isolated_home: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     tty) -> None:  # noqa: ANN001
    """``export`` after ``list --all``, both after an upgrade: its rows and sums are the new
    parser's, but the calls its days are made of are read again; it says so as they do.  (After
    an upgrade's ``tokens`` it reads none again: that parse kept them, ``test_upgrade_speed_pass55``.)"""
    from agentscan.cli import progress as cli_progress

    for number in range(6):
        _session(isolated_home, number)
    run("export", "-f", "sqlite", "-o", str(tmp_path / "before.sqlite"))
    monkeypatch.setattr(ClaudeProvider, "parser_version", str(int(ClaudeProvider.parser_version) + 1))
    told: list[tuple[int, str]] = []
    real = cli_progress.StderrProgress.upgraded

    def upgraded(self, count: int, what: str = "rows") -> None:  # noqa: ANN001
        told.append((count, what))
        real(self, count, what)
    monkeypatch.setattr(cli_progress.StderrProgress, "upgraded", upgraded)
    tty(120)
    run("list", "--all")
    assert [what for _, what in told] == ["rows"]
    told.clear()
    run("export", "-f", "sqlite", "-o", str(tmp_path / "after.sqlite"))
    assert told == [(6, "calls")]
    told.clear()
    run("export", "-f", "sqlite", "-o", str(tmp_path / "again.sqlite"))
    assert told == []  # (warm: nothing read again)
