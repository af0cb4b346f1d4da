"""A reader that closes the pipe early (``agentscan doctor | head -1``) is no failure for a
report: exit 0, nothing said; an export to stdout so cut was not written, and fails (1).
Another ``EPIPE`` (a socket's) is not taken for it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentscan.cli.state import run_guarded

MAIN = "from agentscan.entry import main; main()"


def _into_a_closed_pipe(args: list[str]) -> tuple[int, str]:
    """``agentscan ARGS`` whose stdout's reader is gone before it begins."""
    reader, writer = os.pipe()
    os.close(reader)
    with os.fdopen(writer, "w") as closed:
        done = subprocess.run([sys.executable, "-c", MAIN, *args], stdout=closed, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    return done.returncode, done.stderr


@pytest.mark.parametrize("args", [["--demo", "doctor"], ["--demo", "list", "--json"], ["--demo", "trace", "--list"],
                                  ["--demo", "prices", "sonnet-4-5"]], ids=" ".join)
def test_a_report_whose_reader_is_gone_ends_with_0_and_says_nothing(args: list[str], isolated_home: Path) -> None:
    assert _into_a_closed_pipe(args) == (0, "")


def test_an_export_to_stdout_whose_reader_is_gone_fails_and_says_so(isolated_home: Path) -> None:
    code, said = _into_a_closed_pipe(["--demo", "export", "-f", "csv", "-o", "-"])
    assert code == 1 and said.startswith("error: stdout was closed before the export was written whole"), said


def test_a_broken_pipe_that_is_not_stdout_s_is_not_swallowed() -> None:
    def body() -> None:
        raise BrokenPipeError(32, "Broken pipe")  # a collector's socket, say: stdout is fine

    with pytest.raises(BrokenPipeError):
        run_guarded(body)
