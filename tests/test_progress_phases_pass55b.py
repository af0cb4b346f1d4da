"""Pass 55 (progress on a terminal, scale 10): no step after the counted ones stands still.

* ``tokens`` after an upgrade stood ~2.4 s on "caching sessions" with no count: its sessions'
  sums bucketed and priced (``pricing sessions N/M``), then its rows kept for the next run
  (``caching the report's rows N/M``), before ``naming sessions``.
* An SQLite export stood 0.9-1.6 s on "writing the index 15,000/15,000" while its days and
  subagents were compared and written: ``writing token days N/M`` now, each session counted
  as it is compared.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.export import children, sqlite as export_sqlite
from agentscan.progress import KEEPING_ROWS, PRICING, Progress
from agentscan.scan.cache import Cache
from builders import claude_sessions, invoke

SESSIONS = 6


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int]]:
    """(phase, done, total) after each ``advance`` of the run's progress (whatever shows it)."""
    seen: list[tuple[str, int, int]] = []
    real = Progress.advance

    def advance(self: Progress, count: int = 1) -> None:
        real(self, count)
        seen.append((self.phase, self.done, self.total))
    monkeypatch.setattr(Progress, "advance", advance)
    return seen


def _phases(seen: list[tuple[str, int, int]]) -> list[str]:
    """The phases counted, in order, each once per stretch."""
    order: list[str] = []
    for phase, _, _ in seen:
        if not order or order[-1] != phase:
            order.append(phase)
    return order


def test_tokens_counts_its_pricing_and_the_rows_it_keeps(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                          counted: list[tuple[str, int, int]]) -> None:
    claude_sessions(isolated_home, SESSIONS)
    kept_in: list[str] = []  # the phase each batch of report rows was kept in
    real_put = Cache.put_report_rows

    def put(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        kept_in.append(counted[-1][0] if counted else "?")
        return real_put(self, *args, **kwargs)
    monkeypatch.setattr(Cache, "put_report_rows", put)
    result = invoke("tokens")
    assert result.exit_code == 0, result.output
    assert (PRICING, SESSIONS, SESSIONS) in counted
    assert (KEEPING_ROWS, SESSIONS, SESSIONS) in counted
    order = _phases(counted)
    # After the sums are added up, before the table's facts are read: never a count going back.
    assert order.index(PRICING) < order.index(KEEPING_ROWS) < order.index("naming sessions"), order
    assert order.index("adding up tokens") < order.index(PRICING), order
    assert kept_in and set(kept_in) == {KEEPING_ROWS}, kept_in
    # Off a terminal: no line at all.
    assert "pricing sessions" not in result.stderr and "caching the report" not in result.stderr


def test_tokens_on_a_terminal_names_the_new_phases(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                    tty) -> None:  # noqa: ANN001
    from agentscan.cli import progress as cli_progress

    claude_sessions(isolated_home, SESSIONS)
    monkeypatch.setattr(cli_progress, "DELAY_S", 0.0)
    monkeypatch.setattr(cli_progress, "REDRAW_S", 0.0)
    tty(100)
    result = invoke("tokens")
    assert result.exit_code == 0, result.output
    assert f"pricing sessions {SESSIONS}/{SESSIONS}" in result.stderr
    assert f"caching the report's rows {SESSIONS}/{SESSIONS}" in result.stderr


def test_an_export_counts_its_days_after_its_sessions(isolated_home: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      counted: list[tuple[str, int, int]]) -> None:
    claude_sessions(isolated_home, SESSIONS)
    written_in: list[str] = []  # the phase the days were written in
    real = children.replace_children

    def replacing(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        told = kwargs.get("advance")  # the run's progress' ``advance``
        written_in.append(told.__self__.phase if told is not None else "not counted")
        return real(*args, **kwargs)
    monkeypatch.setattr(export_sqlite, "replace_children", replacing)
    for run in ("first", "unchanged"):
        counted.clear()
        written_in.clear()
        result = invoke("export", "-f", "sqlite", "-o", str(tmp_path / "out.sqlite"))
        assert result.exit_code == 0, result.output
        order = _phases(counted)
        assert (export_sqlite.WRITING, SESSIONS, SESSIONS) in counted, run
        assert (export_sqlite.WRITING_DAYS, SESSIONS, SESSIONS) in counted, (run, counted)
        # The days' phase comes after the sessions' rows and is the last: the line does not go
        # back to "writing the index" (its last count was drawn again as its phase ended).
        assert order[-2:] == [export_sqlite.WRITING, export_sqlite.WRITING_DAYS], (run, order)
        assert written_in == [export_sqlite.WRITING_DAYS], run
        assert "writing token days" not in result.stderr  # (no terminal: no line)


def test_an_export_on_a_terminal_shows_its_days_phase(isolated_home: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch, tty) -> None:  # noqa: ANN001
    from agentscan.cli import progress as cli_progress

    claude_sessions(isolated_home, SESSIONS)
    monkeypatch.setattr(cli_progress, "DELAY_S", 0.0)
    monkeypatch.setattr(cli_progress, "REDRAW_S", 0.0)
    tty(100)
    result = invoke("export", "-f", "sqlite", "-o", str(tmp_path / "out.sqlite"))
    assert result.exit_code == 0, result.output
    shown = result.stderr
    assert f"writing token days {SESSIONS}/{SESSIONS}" in shown
    # Not drawn again over it: "writing the index 6/6" after the days read as a step back.
    assert shown.rindex("writing the index") < shown.rindex("writing token days")


@pytest.mark.parametrize("argv", [("list", "--all"), ("export", "-f", "jsonl", "-o", "OUT")])
def test_rows_are_priced_in_a_counted_phase(isolated_home: Path, tmp_path: Path,
                                            counted: list[tuple[str, int, int]], argv: tuple[str, ...]) -> None:
    """A cold ``list --all`` stood 0.5 s (a JSON Lines export 0.9 s, on "caching sessions
    15,000/15,000") at scale 10 while its rows were priced: ``pricing sessions N/M`` now."""
    claude_sessions(isolated_home, SESSIONS)
    result = invoke(*(str(tmp_path / "out.jsonl") if arg == "OUT" else arg for arg in argv))
    assert result.exit_code == 0, result.output
    assert (PRICING, SESSIONS, SESSIONS) in counted, counted
    assert "pricing sessions" not in result.stderr  # (no terminal: no line)
