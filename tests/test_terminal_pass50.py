"""Pass 50, a newcomer at a laptop terminal (40, 80 and 120 columns) and in pipes: the
things that read differently from what ``gh``, ``git`` and ``ccusage`` taught them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()


@pytest.mark.parametrize("words", [[], ["hooks"]])
def test_a_group_alone_prints_its_help_on_stdout_and_succeeds(words: list[str]) -> None:
    # ``gh`` alone prints its help on stdout, exit 0: ``agentscan | less`` showed nothing, and
    # a newcomer's first command "failed" with exit 2.
    result = runner.invoke(app, words)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout == runner.invoke(app, [*words, "--help"]).stdout
    assert result.stdout.startswith("Usage: ")


@pytest.mark.parametrize("words", [[], ["hooks"]])
def test_a_group_alone_with_stdout_closed_says_so_in_one_line(tmp_path: Path, words: list[str]) -> None:
    # As ``--help`` does: no traceback from the help written where no one reads.
    result = subprocess.run([sys.executable, "-m", "agentscan", *words], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ), timeout=120,
                            preexec_fn=lambda: os.close(1))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr == "error: cannot write to stdout: it is closed\n"


def _tokens_cells(out: str) -> dict[str, str]:
    """Each row's id and its TOKENS cell, from a ``list`` of ID, UPDATED, TOKENS, ... columns."""
    return {line.split()[0]: line.split()[3] for line in out.splitlines()[1:]}


def test_list_on_a_terminal_prints_whole_token_numbers_as_tokens_does(tty) -> None:
    # ``list`` said 75.4k where ``tokens`` said 75,433 for the same session, on the same screen.
    tty(80)
    listed = runner.invoke(app, ["--demo", "list"])
    assert listed.exit_code == 0, listed.output
    cells = _tokens_cells(listed.stdout)
    assert cells["claude:7f3c9a12"] == "75,433" and cells["gemini:5e1f0c2a"] == "130,883"
    tty(200)
    totals = runner.invoke(app, ["--demo", "tokens"]).stdout
    assert "claude:7f3c9a12 " in totals and " 75,433 " in totals
    assert "numbers rounded" not in listed.stderr


def test_list_rounds_its_numbers_only_where_that_keeps_a_column(tty) -> None:
    # At 50 columns whole numbers (130,883) leave the title out; rounded (130.9k) keep it:
    # rounded, and said so, as ``tokens`` says it.
    tty(50)
    result = runner.invoke(app, ["--demo", "list"])
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ID", "UPDATED", "TOKENS", "TITLE"]
    assert any(line.startswith("claude:7f3c9a12 ") and " 75.4k " in line for line in lines)
    assert "numbers rounded" in result.stderr
    tty(51)  # one more column: whole again
    assert " 75,433 " in runner.invoke(app, ["--demo", "list"]).stdout


def test_list_in_a_pipe_gets_plain_integers() -> None:
    out = runner.invoke(app, ["--demo", "list"]).stdout
    assert any(line.startswith("claude:7f3c9a12-") and "  75433  " in line for line in out.splitlines())


def _full(tty, width: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    tty(width)
    monkeypatch.setenv("PAGER", "")  # (no pager: the text itself)
    result = runner.invoke(app, ["--demo", "show", "claude:7f3c9a12", "--full"])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_show_full_response_heads_fit_a_40_column_pane(tty, monkeypatch: pytest.MonkeyPatch) -> None:
    # ``2026-11-28 09:00  response (claude-sonnet-4-5-20250929)`` is 55 columns: every reply's
    # head wrapped in a split pane.  The model as ``list`` names it, else none (the card has it).
    heads = [line for line in _full(tty, 40, monkeypatch) if line.lstrip().startswith("2026") and "response" in line]
    assert heads and all(len(line) <= 40 for line in heads), heads
    assert "2026-11-28 09:00  response (sonnet-4.5)" in heads
    assert "    2026-11-28 09:01  response" in heads  # the subagent's, indented: no room for a model
    assert "    2026-11-28 09:01  response (haiku-4.5)" in _full(tty, 48, monkeypatch)
    assert "2026-11-28 09:00  response (claude-sonnet-4-5-20250929)" in _full(tty, 120, monkeypatch)


def test_show_full_in_a_pipe_names_the_model_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    out = runner.invoke(app, ["--demo", "show", "claude:7f3c9a12", "--full"]).stdout
    assert "2026-11-28 09:00  response (claude-sonnet-4-5-20250929)" in out


def test_one_word_for_each_thing_across_commands(tty, monkeypatch: pytest.MonkeyPatch) -> None:
    # The contract's words (``responses``, ``cwd``, ``id``) and ``--full``'s/``--json``'s
    # statuses, in every command's text: ``show``'s help said replies where its card said
    # responses, ``trace`` said workspace where ``list`` said CWD, ``tokens`` headed the ids
    # ``list`` heads ID with SESSION, and the card marked ERR what ``--full`` calls error.
    assert "prompts, responses, tool calls" in runner.invoke(app, ["--help"]).stdout
    assert "replies" not in runner.invoke(app, ["--help"]).stdout
    tty(120)
    assert runner.invoke(app, ["--demo", "tokens"]).stdout.split()[0] == "ID"
    assert runner.invoke(app, ["--demo", "list"]).stdout.split()[0] == "ID"
    trace = runner.invoke(app, ["--demo", "trace", "claude:7f3c9a12"]).stdout.splitlines()
    assert "  cwd         /home/demo/src/weather-app" in trace and not any("workspace" in line for line in trace)
    card = runner.invoke(app, ["--demo", "show", "claude:7f3c9a12"]).stdout.splitlines()
    assert "  error  Bash: pytest -q tests/test_forecast.py" in card
    assert "  ok     Read: /home/demo/src/weather-app/app/routes.py" in card  # (aligned with it)
    assert not any(" ERR " in line for line in card)


def test_show_full_subagent_and_compaction_heads_fit_a_40_column_pane(isolated_home: Path, tty) -> None:
    # The real spotter session: ``2026-02-11 21:18  ── context compacted automatically
    # (167,094 tokens before)`` ran to 76 columns, a subagent's head to 58.
    import shutil

    from builders import REAL

    shutil.copytree(REAL / "claude" / "projects", isolated_home / ".claude" / "projects", copy_function=shutil.copyfile)
    tty(40)
    lines = runner.invoke(app, ["show", "258c7280", "--full", "--no-pager"]).stdout.splitlines()
    at = lines.index("2026-02-11 21:18  ── context compacted")
    assert lines[at + 1:at + 3] == ["                  automatically (167,094", "                  tokens before)"]
    # Its type left out (the card names it), its id whole: it opens the run.
    # (44 columns on one line: since pass 51 its id goes whole under ``↳ subagent``)
    at = lines.index("2026-02-11 21:17  ↳ subagent")
    assert lines[at + 1] == "    acompact-fffbd0"
    assert "    ↳ subagent a881341" in lines
    tty(120)
    wide = runner.invoke(app, ["show", "258c7280", "--full", "--no-pager"]).stdout.splitlines()
    assert "2026-02-11 21:18  ── context compacted automatically (167,094 tokens before)" in wide
    assert "    ↳ subagent a881341 (claude-code-guide)" in wide


def test_trace_list_shortens_updated_as_list_does(tty, local_zone, monkeypatch: pytest.MonkeyPatch) -> None:
    # At 40 columns ``list`` keeps ``11-28 09:02``; ``trace --list`` left UPDATED out.
    from datetime import date

    from agentscan.cli import render

    local_zone("UTC")
    monkeypatch.setattr(render, "today", lambda zone: date(2026, 12, 1))
    tty(40)
    lines = runner.invoke(app, ["--demo", "trace", "--list"]).stdout.splitlines()
    assert lines[0].split() == ["ID", "UPDATED", "EVENTS"]
    assert lines[1] == "claude:7f3c9a12  11-28 09:02      15"
    tty(80)  # room for the whole time: as before
    assert "claude:7f3c9a12  2026-11-28 09:02      15  Add a 5-day" in runner.invoke(
        app, ["--demo", "trace", "--list"]).stdout
