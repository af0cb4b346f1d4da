"""`trace`'s line for a transcript it cannot read keeps the file name whole (pass 53).

At 60 columns the reason stayed beside 12 columns of path, `…17dbd.jsonl (under no folder
agentscan reads)`: 5 characters of the session id, fewer than at 46 columns, where the
reason went on a line of its own.  At 20 columns the path was cut at both ends.  The reason
now stays beside the path only where the path keeps its whole file name; else it goes
below, and the path is only ever cut from its start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from test_trace_reason_whole_pass53 import SESSION, _send

runner = CliRunner()
REASON = "(under no folder agentscan reads)"


@pytest.mark.parametrize("width", [60, 70, 90])
def test_the_reason_goes_below_rather_than_cut_the_id(isolated_home: Path, tmp_path: Path, tty: Any,
                                                       width: int) -> None:
    tty(width, color=False)
    path = _send(tmp_path, "loose")
    lines = runner.invoke(app, ["trace", SESSION]).stdout.splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.startswith("  transcript  ")]
    assert lines[at].endswith(f"/{SESSION}.jsonl") and len(lines[at]) <= width, lines  # the id whole
    assert str(path).endswith(lines[at][len("  transcript  …"):]), lines
    assert lines[at + 1] == " " * 14 + REASON, lines


def test_a_terminal_narrower_than_the_least_path_cuts_it_at_its_start_alone(isolated_home: Path, tmp_path: Path,
                                                                            tty: Any) -> None:
    tty(20, color=False)
    path = _send(tmp_path, "loose")
    lines = runner.invoke(app, ["trace", SESSION]).stdout.splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.startswith("  transcript  ")]
    assert lines[at].startswith("  transcript  …") and lines[at].endswith(".jsonl"), lines  # not cut at its end
    assert str(path).endswith(lines[at][len("  transcript  …"):]), lines
    assert lines[at + 1] == "  " + REASON, lines
