"""``doctor`` on a terminal keeps every path whole (``doctor_text._fitted``).

A path too long for the PATH column was cut in its middle
(``/tmp/cli41/a/very/…/and/on/.claude/projects``): it could not be copied, and the
report is pasted into bug reports.  Now such a path goes under its row, whole; one that
fits stays in its column, and a pipe gets every path on its row, as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.doctor_text import HOOK_COLUMNS, _fitted
from agentscan.cli.term import Terminal, width_of

ROOTS = (".claude/projects", ".config/claude/projects", ".codex/sessions", ".gemini/tmp", ".cursor/projects")


def long_home(tmp_path: Path) -> Path:
    home = tmp_path / "a" / "very" / "long" / "path" / "that" / "goes" / "on" / "and" / "on" / "and" / "on"
    home.mkdir(parents=True)
    return home


def doctor_lines(*args: str) -> list[str]:
    result = CliRunner().invoke(app, [*args, "doctor"])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def is_row(line: str) -> bool:
    return line.split()[:1] in (["sessions"], ["index"], ["database"]) and line.startswith("  ") and line[2] != " "


def where(lines: list[str], path: str) -> str:
    """Where ``path`` is shown: ``row`` (in its column), ``below`` (a line of its own under its row)."""
    for index, line in enumerate(lines):
        if is_row(line) and line.endswith(f"  {path}"):
            return "row"
        if line == f"      {path}" and is_row(lines[index - 1]):
            assert lines[index - 1].endswith(("--home", "HOME")), lines[index - 1]  # its row keeps its status
            return "below"
    raise AssertionError(f"{path} not shown whole: {lines}")


@pytest.mark.parametrize("width", [80, 200])
def test_a_path_under_a_long_home_is_whole_at_any_width(tmp_path: Path, tty: Callable[..., None], width: int) -> None:
    tty(width, color=False)
    home = long_home(tmp_path)
    lines = doctor_lines("--home", str(home))
    assert not any("…" in line for line in lines), lines
    for root in ROOTS:
        path = f"{home}/{root}"
        fits = width_of(f"  sessions  does not exist  --home  {home}/.config/claude/projects") <= width
        assert where(lines, path) == ("row" if fits else "below"), (root, width)
    assert all(width_of(line) <= width for line in lines if is_row(line))


def test_at_80_columns_a_short_path_stays_in_its_column(isolated_home: Path, tty: Callable[..., None]) -> None:
    tty(80, color=False)
    lines = doctor_lines()  # the home, shown as ~: its paths fit
    assert where(lines, "~/.claude/projects") == "row"
    assert where(lines, "~/.config/Cursor/User/globalStorage/state.vscdb") == "below"  # 2 columns too long


def test_in_a_pipe_every_path_is_on_its_row(tmp_path: Path) -> None:
    home = long_home(tmp_path)
    lines = doctor_lines("--home", str(home))
    for root in ROOTS:
        assert where(lines, f"{home}/{root}") == "row"


def test_a_hook_config_too_long_for_its_column_is_under_its_row() -> None:
    config = "/srv/a/very/long/path/that/goes/on/and/on/and/on/.claude/settings.json"
    rows = [["claude", "user", "not installed", config], ["cursor", "user", "not installed", "/p/hooks.json"]]
    lines = _fitted(HOOK_COLUMNS, rows, Terminal(tty=True, width=60, color=False), lambda row: "")
    assert lines[0].split() == ["AGENT", "SCOPE", "STATE", "CONFIG"]
    assert lines[1].split() == ["claude", "user", "not", "installed"]
    assert lines[2] == f"      {config}"
    assert lines[3].split() == ["cursor", "user", "not", "installed", "/p/hooks.json"]
