"""``show``'s ``path`` line on a narrow terminal (pass 47).

The demo's transcript path (133 characters from a checkout, longer from a venv) was printed
after its label at column 11, past an 80-column terminal, which folded it under the card's
labels.  A path is still never cut or split (it is copied whole, docs/cli.md); one too wide
for its line now goes on a line of its own under its label, as ``doctor`` puts one, so
every line wider than the terminal holds the path alone.  A pipe, and a path that fits,
keep ``  path     …`` on one line.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.term import width_of

runner = CliRunner()


def _show(*args: str) -> list[str]:
    result = runner.invoke(app, ["--demo", "show", "7f3c9a12", "--no-pager", *args])
    assert result.exit_code == 0, result.stderr
    return result.stdout.splitlines()


def _path() -> str:
    doc = json.loads(runner.invoke(app, ["--demo", "show", "7f3c9a12", "--json"]).stdout)
    return str(doc["session"]["path"])


def test_a_path_too_wide_for_its_line_has_a_line_of_its_own(tty) -> None:
    path = _path()
    assert width_of(f"  path     {path}") > 80  # (the demo's, from any checkout)
    tty(80)
    lines = _show()
    at = lines.index("  path")
    assert lines[at + 1] == f"    {path}"
    assert lines[at + 2].startswith("  tokens   ")
    assert all(width_of(line) <= 80 or line.strip() == path for line in lines), lines


def test_a_path_that_fits_and_a_pipe_keep_it_beside_its_label(tty) -> None:
    path = _path()
    assert f"  path     {path}" in _show()  # a pipe
    tty(width_of(f"  path     {path}"))
    assert f"  path     {path}" in _show()
