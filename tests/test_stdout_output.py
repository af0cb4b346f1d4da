"""``-o -`` writes to stdout: a stdout that is closed or full is a one-line error (exit 1),
not a traceback, and only a bare ``-`` means stdout (``./-`` is a file named ``-``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

AGENTSCAN = [sys.executable, "-m", "agentscan"]


def run(args: list[str], cwd: Path, stdout: object) -> subprocess.CompletedProcess:
    return subprocess.run([*AGENTSCAN, *args], cwd=cwd, stdout=stdout, stderr=subprocess.PIPE, text=True,
                          env=dict(os.environ), timeout=120)


@pytest.mark.parametrize("args", [["export", "-f", "jsonl", "-o", "-"], ["otlp", "-o", "-"]])
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full is Linux's")
def test_a_full_stdout_is_a_one_line_error(isolated_home: Path, tmp_path: Path, args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        result = run(["--demo", *args], tmp_path, full)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "error: cannot write to stdout: No space left on device" in result.stderr


@pytest.mark.parametrize("args", [["export", "-f", "csv", "-o", "-"], ["otlp", "-o", "-"]])
def test_a_closed_stdout_is_a_one_line_error(isolated_home: Path, tmp_path: Path, args: list[str]) -> None:
    result = subprocess.run([*AGENTSCAN, "--demo", *args], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ), timeout=120,
                            preexec_fn=lambda: os.close(1))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "error: cannot write to stdout: it is closed" in result.stderr


@pytest.mark.parametrize("args", [["export", "-f", "jsonl", "-o", "./-"], ["otlp", "-o", "./-"]])
def test_dot_slash_dash_is_a_file(isolated_home: Path, tmp_path: Path, args: list[str]) -> None:
    result = run(["--demo", *args], tmp_path, subprocess.PIPE)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "-").is_file() and (tmp_path / "-").stat().st_size > 0
    assert not result.stdout.lstrip().startswith("{")  # the summary, not the document
