"""A terminal purist's pass (30 to 200 columns, CJK paths, an ASCII-only stderr, a SIGTERM):
an error's lines were wrapped by characters, not columns (a CJK path ran past the terminal);
``Try`` or ``hint:`` was left alone on a line above a command that ran past it anyway;
``show``'s subagent rows ran past 30 columns (Claude's 17-character run ids, a cost column);
an error on an ASCII stderr said ``'/tmp/\\u9879\\u76ee'`` where a table says ``?``; and a
SIGTERM'd export left its progress line for the shell's prompt to follow."""

from __future__ import annotations

import io
import sys
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agentscan.cli.term import width_of


def _fitted(monkeypatch: pytest.MonkeyPatch, line: str, width: int) -> list[str]:
    from agentscan.cli import term

    monkeypatch.setattr(term, "stderr_is_tty", lambda: True)
    monkeypatch.setattr(term, "terminal_width", lambda: width)
    return term.fitted_error(line).splitlines()


# --- 1. columns, not characters ---------------------------------------------------------------


@pytest.mark.parametrize("width", [30, 40, 60])
def test_an_error_naming_a_cjk_path_fits_the_terminal(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    """``export -o /tmp/项目一二三四五六七/天气/a.csv``: 50 columns in a 40-column pane (its 36
    characters fit, by ``textwrap``'s count)."""
    lines = _fitted(monkeypatch, "error: /tmp/项目一二三四五六七/天气 does not exist", width)
    assert all(width_of(line) <= width for line in lines), lines
    assert any("/tmp/项目一二三四五六七/天气" in line for line in lines), lines  # a path is kept whole


def test_a_note_of_cjk_words_is_wrapped_by_columns() -> None:
    from agentscan.cli.term import wrap

    lines = wrap("no session in 天气应用 天气应用 天气应用 天气应用 天气应用 天气应用 matched", 30)
    assert all(width_of(line) <= 30 for line in lines), lines
    assert " ".join(line.strip() for line in lines).count("天气应用") == 6


# --- 2. no word left alone above a command ------------------------------------------------------


@pytest.mark.parametrize(("line", "lead"), [
    ("hint: `/work/venv/bin/agentscan --demo list --grep TEXT` finds it by title", "hint:"),
    ("Try '/work/venv/bin/agentscan list --help' for help.", "Try"),
])
def test_a_short_word_stays_with_the_command_after_it(monkeypatch: pytest.MonkeyPatch, line: str, lead: str) -> None:
    """The command runs past 30 columns wherever it goes; ``hint:`` alone on the line above it
    read as a line cut off."""
    lines = _fitted(monkeypatch, line, 30)
    assert lines[0].startswith(f"{lead} ") and "/work/venv/bin/agentscan" in lines[0], lines
    assert all(width_of(one) <= 30 for one in lines[1:]), lines


def test_a_short_word_above_a_command_that_fits_keeps_its_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """At 40 columns the command fits a line of its own: nothing runs past the terminal."""
    lines = _fitted(monkeypatch, "hint: `agentscan --demo list --grep TEXT` finds it by title", 40)
    assert lines[:2] == ["hint:", "  `agentscan --demo list --grep TEXT`"], lines


# --- 3. show's subagent rows at 30 columns ------------------------------------------------------


def _detail(sub_id: str, tokens: int, cost: str) -> Any:
    sub = SimpleNamespace(id=sub_id, agent_type=None, model=None, recovered_from=None, cost=Decimal(cost),
                          cost_priced=Decimal(cost), tokens=SimpleNamespace(total=tokens))
    return SimpleNamespace(subagents=[sub], tools=[], extra={}, row=SimpleNamespace(native_id="0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"))


def test_a_claude_run_id_is_named_short_on_a_terminal_as_tokens_names_it() -> None:
    from agentscan.cli.show_subagents import subagent_names
    from agentscan.cli.term import Terminal

    detail = _detail("a0ad4f44468bdf20d", 6313, "0.004")
    assert subagent_names(detail, Terminal(tty=True, width=200, color=False)) == {"a0ad4f44468bdf20d": "a0ad4f44"}
    assert subagent_names(detail, Terminal(tty=False, width=80, color=False)) == {}  # a pipe: whole


@pytest.mark.parametrize("width", [30, 34])
def test_subagent_rows_too_wide_leave_their_costs_out(width: int) -> None:
    from agentscan.cli.show_subagents import subagent_lines
    from agentscan.cli.term import Terminal

    detail = _detail("agent-a1b2c3d4", 123_456_789, "1234.56")
    lines = subagent_lines(detail, Terminal(tty=True, width=width, color=False), {})
    assert all(width_of(line) <= width for line in lines), lines
    assert lines[-1].strip() == "(costs left out to fit)" and "123,456,789" in lines[1], lines


def test_subagent_rows_that_fit_keep_their_costs() -> None:
    from agentscan.cli.show_subagents import subagent_lines
    from agentscan.cli.term import Terminal

    lines = subagent_lines(_detail("a1b2c3d", 6313, "0.004"), Terminal(tty=True, width=30, color=False), {})
    assert lines[0].split()[-1] == "cost" and "left out" not in lines[-1], lines


# --- 4. an ASCII-only stderr --------------------------------------------------------------------


def test_an_error_on_an_ascii_stderr_gives_stand_ins_not_escapes(monkeypatch: pytest.MonkeyPatch) -> None:
    """``PYTHONIOENCODING=ascii``: stderr's ``backslashreplace`` wrote ``\\u9879\\u76ee``; a
    table writes a ``?`` a column, as the error now does."""
    from agentscan.cli import render, term

    raw = io.BytesIO()
    stderr = io.TextIOWrapper(raw, encoding="ascii", errors="backslashreplace")
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(term, "stderr_is_tty", lambda: False)
    term.error_line("error: /tmp/项目 does not exist")
    render._say_warning("cannot read /tmp/天气/x.jsonl ≥ 2", None)
    stderr.flush()
    said = raw.getvalue().decode("ascii")
    assert "\\u" not in said, said
    assert "/tmp/???? does not exist" in said and "/tmp/????/x.jsonl > 2" in said, said


# --- 5. a SIGTERM'd export ----------------------------------------------------------------------


def test_a_sigtermed_export_erases_its_progress_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import signal

    from agentscan.cli.progress import StderrProgress
    from agentscan.export import locks, run

    stream = io.StringIO()
    progress = StderrProgress(stream)
    progress._visible = True  # drawn: ``reading sessions 812/1,700``
    scanner = SimpleNamespace(ctx=SimpleNamespace(env={"AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")},
                                                  warn=lambda *args: None, progress=progress))

    def terminated(*args: object, **kwargs: object) -> None:
        raise locks._Terminated(signal.SIGTERM)

    monkeypatch.setattr(run, "_run_export", terminated)
    monkeypatch.setattr(run, "checked_format", lambda *args: "jsonl")  # (pass 54: ``_check`` moved to ``formats``)
    monkeypatch.setattr(locks, "_end_by_signal", lambda signum: None)  # (the test's process lives on)
    with pytest.raises(SystemExit):
        run.run_export(scanner, "jsonl", tmp_path / "out.jsonl", filters=None, lock_timeout=1.0)  # type: ignore[arg-type]
    assert stream.getvalue().endswith("\r\x1b[K"), repr(stream.getvalue())


# --- and what the persona tripped over ----------------------------------------------------------


def test_the_hooks_line_of_a_card_fits_30_columns(tty: Any) -> None:
    """``  hooks    15 captured hook events:`` was 35 columns at 30: wrapped under the card's
    values now, the command to copy on its own line (wider only where even the short id is)."""
    from builders import invoke

    tty(30)
    result = invoke("--demo", "show", "7f3c9a12")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    at = next(index for index, line in enumerate(lines) if line.startswith("  hooks "))
    # (pass 59: the command stays at the value column, run past the width whole, where at
    # indent 2 it looked like a field's label)
    assert lines[at:at + 3] == ["  hooks    15 captured hook", "           events:",
                                "           agentscan --demo trace claude:7f3c9a12"], lines[at:at + 3]


def test_a_help_usage_too_long_for_its_arguments_ends_in_no_space() -> None:
    """``Usage: agentscan hooks install `` was 31 columns at 30: its space folded onto a line of its own."""
    from agentscan.cli.helpformat import NarrowHelpFormatter

    formatter = NarrowHelpFormatter(width=28)  # (a 30-column terminal's)
    formatter.write_usage("agentscan hooks install", "[OPTIONS] [AGENT]")
    assert formatter.getvalue() == "Usage: agentscan hooks install\n           [OPTIONS] [AGENT]\n"


@pytest.mark.parametrize("width", [30, 80])
def test_the_progress_line_fits_the_terminal(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    """At 30 columns ``adding up tokens 1,057/1,500 (448/s)`` was folded in two, and each
    redraw's carriage return went back to its second row only: a trail of first rows."""
    import time

    from agentscan.cli.progress import StderrProgress

    monkeypatch.setenv("COLUMNS", str(width))
    stream = io.StringIO()
    progress = StderrProgress(stream)
    with progress.named("adding up tokens"):
        progress.expect(1500)
        progress._started = time.monotonic() - 5
        progress.advance(1057)
        progress.reading("rollout-2026-11-26T09-14-03-019ab7c1-5e2f-7a30-9c41-2d8e6f0b1a57.jsonl", 10**8, 10**9)
    drawn = [part for part in stream.getvalue().split("\r\x1b[K") if part]
    assert drawn and all(width_of(line) < width for line in drawn), drawn
    assert drawn[0].startswith("adding up tokens 1,057/1,500"), drawn
    assert ("(" in drawn[0]) == (width == 80)  # the rate, where it fits


def test_export_s_line_is_wrapped_on_a_terminal_and_whole_in_a_pipe(tmp_path: Path, tty: Any) -> None:
    """``wrote 11 sessions to /…/a.csv (csv)`` was 50 columns at 30; a cron log keeps its one line."""
    from builders import invoke

    target = tmp_path / "a.csv"
    piped = invoke("--demo", "export", "-o", str(target))
    assert piped.stdout == f"wrote 11 sessions to {target} (csv)\n", piped.output
    tty(30)
    shown = invoke("--demo", "export", "-o", str(target))
    assert shown.stdout.splitlines() == ["wrote 11 sessions to", f"  {target}", "  (csv)"], shown.output


@pytest.mark.parametrize("session", ["claude:7f3c9a12", "gemini:5e1f0c2a", "cursor:7c0a1e55"])
def test_a_demo_card_fits_30_columns_but_its_paths_and_commands(tty: Any, session: str) -> None:
    """A tool call of a subagent (``Grep [a1b2c3d]: class For…``) ran 5 to 7 columns past 30:
    with fewer than 6 columns left for its summary the line ends at the call's name."""
    from builders import invoke

    tty(30)
    result = invoke("--demo", "show", session)
    assert result.exit_code == 0, result.output
    wide = [line for line in result.stdout.splitlines() if width_of(line) > 30
            and "/demo/home/" not in line and not line.lstrip().startswith("agentscan ")]
    assert wide == [], wide
    assert any(line.endswith("]") and line.startswith("  ok ") or line.startswith("  ? ")
               for line in result.stdout.splitlines() if "[" in line), result.stdout


def test_a_trace_header_too_wide_even_by_the_short_id_says_its_status_below(tty: Any) -> None:
    """``session claude:7f3c9a12  (stopped)`` was 34 columns at 30."""
    from builders import invoke

    tty(30)
    result = invoke("--demo", "trace", "7f3c9a12")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:2] == ["session claude:7f3c9a12", "  status      stopped"], result.stdout


def test_a_note_never_breaks_a_command_run_by_its_path(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """From a venv not on PATH the hint names ``/work/venv/bin/agentscan``: at 40 columns the
    note ended a line with "(or try `" and began the next with the command, cut from its quote."""
    from agentscan.cli import render, term

    monkeypatch.setattr(term, "stderr_is_tty", lambda: True)
    monkeypatch.setattr(term, "terminal_width", lambda: 40)
    render.note("no sessions found; `/work/venv/bin/agentscan doctor` shows where agentscan looked"
                " (or try `/work/venv/bin/agentscan --demo tokens`)")
    lines = capsys.readouterr().err.splitlines()
    assert "  `/work/venv/bin/agentscan --demo tokens`)" in lines, lines
