"""A terminal purist's pass 54: ASCII-only stdout, the progress line between phases, and
``--help`` at 30 columns.

- On a stdout that cannot hold ``…`` (``PYTHONIOENCODING=ascii``) a cut read ``?``
  (``Upgrade to Python 3.?``): a cut's end is now ``~`` (the stream's stand-in, one column,
  ``cli.streams``), and a path cut from its start ``...`` (``term.cut_left``: ``~/src/app``
  would read as the home), the cut keeping widths exact.
- ``export`` erased its line before its day and write phases (a second of nothing), and an
  ``export --days -o -`` wrote its CSV header on the line after ``adding up days 1,001/1,500``.
- A phase's rate in its first tenths of a second (``(4/s)``) said nothing of the rest.
- Two ``--help`` examples ran past a 30-column terminal.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from agentscan.cli import progress as progress_module
from agentscan.cli import term
from agentscan.progress import Progress
from builders import claude_sessions


def _ascii_stdout(monkeypatch: pytest.MonkeyPatch) -> io.TextIOWrapper:
    """stdout as ``PYTHONIOENCODING=ascii`` makes it, settled as a command settles it."""
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    monkeypatch.setattr(sys, "stdout", stream)
    term.settle_streams()
    return stream


# --- an ASCII-only stdout ---------------------------------------------------------------


def test_a_path_cut_from_its_start_begins_with_three_dots_on_an_ascii_stdout(monkeypatch: pytest.MonkeyPatch) -> None:
    path = "/home/me/src/clients/weather-app"
    assert term.cut_left(path, 18) == "…/weather-app"  # (the test's stdout holds it)
    _ascii_stdout(monkeypatch)
    shown = term.cut_left(path, 18)
    assert shown == ".../weather-app" and len(shown) <= 18
    assert term.width_of(term.cut_left(path, 12)) == 12  # exact: ``...`` and the end that fits
    assert term.cut_left("/abcdef", 3) == "..."


def test_a_cut_s_end_is_a_tilde_on_an_ascii_stdout(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = _ascii_stdout(monkeypatch)
    print(term.cut("Upgrade to Python 3.13", 21), flush=True)
    assert stream.buffer.getvalue() == b"Upgrade to Python 3.~\n"  # not ``3.?``: a column as ``…``


def test_a_recorded_table_cuts_as_its_stream_can_show(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table is recorded to be printed again (``cli.recorded``) into a ``StringIO``, which
    names no encoding: its paths were cut with ``…``, printed ``~/weather-app`` (the home)."""
    from agentscan.cli import recorded

    _ascii_stdout(monkeypatch)
    _, out, _ = recorded.recording(lambda: print(term.cut_left("/home/me/src/weather-app", 16)))
    assert out == ".../weather-app\n"
    facts = recorded.terminal_facts(term.terminal())
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    assert recorded.terminal_facts(term.terminal()) != facts  # not printed again on the other


def test_a_list_on_an_ascii_terminal_cuts_its_paths_with_dots(isolated_home: Path) -> None:
    from builders import claude_session_file, claude_user
    from test_streams_pass33 import _on_a_terminal

    for number, folder in enumerate(("alpha-service", "beta-service")):
        native = f"{number:08x}-1111-4111-8111-111111111111"
        cwd = f"/srv/deeply/nested/workspaces/of/a/team/{folder}"
        claude_session_file(isolated_home, native, [claude_user(native, "2026-11-30T12:00:00Z", "a title " * 12, cwd=cwd)])
    done, printed = _on_a_terminal("list", PYTHONIOENCODING="ascii", COLUMNS="100", NO_COLOR="1")
    assert done.returncode == 0, done.stderr
    rows = printed.decode("ascii").splitlines()[1:]
    assert rows and all(".../alpha-service" in row or ".../beta-service" in row for row in rows), rows
    assert all(len(row) <= 100 for row in rows) and "  ~/" not in printed.decode("ascii")
    assert len({row.index("a title") for row in rows}) == 1  # the columns stay aligned


def test_a_trace_s_path_cut_from_its_start_begins_with_three_dots(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.hooks.text import _one_line

    long_path = "/home/me/src/" + "x" * 60 + "/app.py"
    assert _one_line(long_path, 60, str, from_left=True).startswith("…x")
    _ascii_stdout(monkeypatch)
    shown = _one_line(long_path, 60, str, from_left=True)
    assert shown.startswith("...x") and shown.endswith("/app.py") and len(shown) == 60


# --- the progress line ------------------------------------------------------------------


def test_a_phase_named_at_once_shows_no_rate_before_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    progress = progress_module.StderrProgress(stream)
    progress.expect(10)
    clock[0] += 2.0
    progress.advance(10)
    progress.handover()
    with progress.named("adding up days"):
        progress.expect(1500)
        clock[0] += 0.25
        progress.advance(1)
        assert stream.getvalue().endswith("\r\x1b[Kadding up days 1/1,500")  # not "(4/s)"
        clock[0] += 1.0
        progress.advance(999)
        assert stream.getvalue().endswith("\r\x1b[Kadding up days 1,000/1,500 (800/s)")
        clock[0] += 0.05  # (within a redraw's tenth: not drawn)
        progress.advance(500)
        assert stream.getvalue().endswith("1,000/1,500 (800/s)")
    # Its last count drawn as it ends: the line stands while an export writes its file.
    assert stream.getvalue().endswith("\r\x1b[Kadding up days 1,500/1,500 (1,154/s)")


class _Told(Progress):
    """What a run tells its progress, in order, with what it writes to stdout."""

    def __init__(self, events: list[str]) -> None:
        super().__init__()
        self.events = events

    def handed_over(self) -> None:
        self.events.append("handover")

    def cleared(self) -> None:
        self.events.append("clear")

    def named(self, phase: str):  # type: ignore[no-untyped-def]
        self.events.append(phase)
        return super().named(phase)


class _Stdout(io.TextIOWrapper):
    def __init__(self, events: list[str]) -> None:
        events_ = events

        class Raw(io.BytesIO):
            def write(self, data):  # type: ignore[no-untyped-def]
                events_.append("stdout")
                return super().write(data)

        super().__init__(Raw(), encoding="utf-8")


def _export(home: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, output: Path, events: list[str]) -> None:
    from agentscan.export.run import run_export
    from agentscan.scan.listing import ListFilter
    from agentscan.scan.scanner import Scanner

    claude_sessions(home, 3)
    monkeypatch.setattr(sys, "stdout", _Stdout(events))
    with Scanner(use_cache=True) as scanner:
        scanner.ctx.progress = _Told(events)
        run_export(scanner, fmt, output, filters=ListFilter(), days=fmt != "sqlite")


def test_export_hands_its_line_to_the_days_phase(isolated_home: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    _export(isolated_home, monkeypatch, "sqlite", tmp_path / "out.sqlite", events)
    phases = [event for event in events if event != "stdout"]
    at = phases.index("adding up days")
    assert phases[at - 1] == "handover", phases  # not erased, then a second of nothing
    assert "writing the index" in phases[at:]


def test_export_to_stdout_erases_the_line_before_its_first_line(isolated_home: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.export.run import STDOUT

    events: list[str] = []
    _export(isolated_home, monkeypatch, "csv", STDOUT, events)
    first = events.index("stdout")
    assert "adding up days" in events[:first] and events[first - 1] == "clear", events


# --- --help at 30 columns ---------------------------------------------------------------


@pytest.mark.parametrize("command", ["export", "otlp"])
def test_every_help_example_fits_a_30_column_terminal(command: str) -> None:
    from test_terminal_fit_pass49 import _help

    examples = _help(command, columns=30).split("Examples:")[1]
    assert all(len(line) <= 30 for line in examples.splitlines()), examples
    joined = " ".join(line.strip().rstrip("\\").strip() for line in examples.splitlines() if "#" not in line)
    assert "--endpoint http://localhost:4318" in joined or "-o ~/sessions.sqlite" in joined


def test_an_option_and_value_wider_than_a_line_go_on_two() -> None:
    from agentscan.cli.helpformat import _continued

    lines = _continued("agentscan otlp -p claude --endpoint http://localhost:4318", 28)
    assert lines == ["agentscan otlp -p claude \\", "    --endpoint \\", "    http://localhost:4318"]
    # One that fits a line of its own stays whole on it.
    assert _continued("agentscan otlp --since 1d --output traces.jsonl", 28)[-1] == "    --output traces.jsonl"


# --- tokens --by session: the others' line and TOTAL ------------------------------------


@pytest.mark.parametrize("tty", [False, True])
def test_the_others_line_of_claude_sessions_reads_no_reasoning_as_its_rows_do(isolated_home: Path, tty: bool) -> None:
    """A home with Codex sessions too, all before ``--since``: each Claude row's REASONING
    read ``-``, and the line of the others' sums and TOTAL (in a pipe) ``0``."""
    import codex_builders as cx
    from test_peer_traps_pass51 import CODEX, codex_rollout
    from test_streams_pass33 import _on_a_terminal, _run

    claude_sessions(isolated_home, 8)  # (2026-11-02)
    cx.write_rollout(cx.rollout_path(isolated_home / ".codex", CODEX, cx.at(0)), codex_rollout())
    argv = ("tokens", "--by", "session", "-n", "3", "--since", "2026-11-02")
    if tty:
        done, printed = _on_a_terminal(*argv, NO_COLOR="1", COLUMNS="200")
    else:
        done = _run(*argv)
        printed = done.stdout
    assert done.returncode == 0, done.stderr
    lines = printed.decode().splitlines()
    summed = next(line for line in lines if line.startswith(("+5 more", "others")))
    total = next(line for line in lines if line.startswith("TOTAL"))
    for line in (summed, total):
        fields = line.split()
        cost = next(index for index, field in enumerate(fields) if field.lstrip("<").startswith("$"))
        assert fields[cost - 2] == "-", line  # REASONING, before TOTAL and COST
