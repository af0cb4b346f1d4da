"""`trace` at a narrow terminal keeps the reason beside a transcript's path whole (pass 53).

At 40 columns "  transcript  <path> (under no folder agentscan reads)" was cut at its end:
the path was kept and the words saying why `show` cannot read it were lost.  The path is cut
(from its start), the reason goes whole on a line of its own."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from hooks_builders import Replay

SESSION = "f4f68c50-6310-4805-971c-49da8a517dbd"
runner = CliRunner()


def _send(tmp_path: Path, folder: str) -> Path:
    path = tmp_path / folder / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("{}\n", encoding="utf-8")
    Replay(Path(os.environ["AGENTSCAN_DATA_DIR"]), agent="claude").send(
        {"hook_event_name": "UserPromptSubmit", "session_id": SESSION, "cwd": "/tmp/proj", "prompt": "hi",
         "prompt_id": "p-1", "transcript_path": str(path)})
    return path


@pytest.mark.parametrize(("width", "indent"), [(30, "  "), (40, "  "), (50, " " * 14)])
def test_the_reason_stays_whole_and_the_path_is_cut(isolated_home: Path, tmp_path: Path, tty: Any, width: int,
                                                    indent: str) -> None:
    tty(width, color=False)
    path = _send(tmp_path, "loose")
    lines = runner.invoke(app, ["trace", SESSION]).stdout.splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.startswith("  transcript  ")]
    # the path cut from its start, so its file name (the session id) stays; the reason whole under it
    assert lines[at].startswith("  transcript  …") and lines[at].endswith(".jsonl") and len(lines[at]) <= width, lines
    assert str(path).endswith(lines[at][len("  transcript  …"):]), lines
    assert lines[at + 1] == f"{indent}(under no folder agentscan reads)", lines


def test_a_line_wide_enough_keeps_both_on_it(isolated_home: Path, tmp_path: Path, tty: Any) -> None:
    tty(100, color=False)  # (room for the whole file name beside the reason: ``_MIN_NAME_SHOWN``)
    _send(tmp_path, "loose")
    lines = runner.invoke(app, ["trace", SESSION]).stdout.splitlines()
    (line,) = [line for line in lines if line.startswith("  transcript  ")]
    assert line.startswith("  transcript  …") and line.endswith(f"/{SESSION}.jsonl (under no folder agentscan reads)"), lines
    assert len(line) <= 100, lines


def test_a_wide_terminal_keeps_one_line(isolated_home: Path, tmp_path: Path, tty: Any) -> None:
    tty(400, color=False)
    path = _send(tmp_path, "loose")
    text = runner.invoke(app, ["trace", SESSION]).stdout
    assert f"  transcript  {path} (under no folder agentscan reads)\n" in text

