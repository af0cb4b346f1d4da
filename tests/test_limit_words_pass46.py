"""``--limit abc`` is said as ``--limit 0`` is, not in click's own words (pass 46)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()


@pytest.mark.parametrize(("argv", "shown"), [
    (["list", "-n", "abc"], "'abc'"),
    (["tokens", "--limit", "1.5"], "'1.5'"),
    (["list", "--limit=x"], "'x'"),
    (["list", "-n", "0"], "0"),
    (["list", "--limit", "a'b"], '"a\'b"'),  # (click quotes it with ", review of pass 46)
])
def test_a_limit_that_is_no_count_is_said_one_way(argv: list[str], shown: str) -> None:
    result = runner.invoke(app, ["--demo", *argv])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == f"error: --limit must be a whole number of 1 or more, not {shown}"
    assert "Invalid value" not in result.stderr


def test_the_console_script_says_it_too() -> None:
    # (through ``entry.main``: its fast path hands a value it cannot read to Typer)
    done = subprocess.run([sys.executable, "-m", "agentscan", "--demo", "list", "-n", "abc"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("error: --limit must be a whole number of 1 or more, not 'abc'\n")
