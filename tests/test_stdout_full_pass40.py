"""Output to a stdout that refuses it (a file on a full disk, ``> /dev/full``): one line on
stderr and exit 1, as ``export -o -`` says it, never a traceback, for every command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FULL = Path("/dev/full")

pytestmark = pytest.mark.skipif(not FULL.exists(), reason="/dev/full is Linux's")


def _run(args: list[str], home: Path) -> tuple[int, str]:
    env = {**os.environ, "HOME": str(home)}
    with FULL.open("wb") as full:
        done = subprocess.run([sys.executable, "-c", "import sys; sys.argv[0] = 'agentscan'; "
                               "from agentscan.entry import main; main()", *args],
                              stdout=full, stderr=subprocess.PIPE, env=env, timeout=120)
    return done.returncode, done.stderr.decode()


@pytest.mark.parametrize("args", [
    ["--demo", "list"], ["--demo", "list", "--json"], ["--demo", "tokens"], ["--demo", "tokens", "--json"],
    ["--demo", "show", "7f3c9a12"], ["--demo", "doctor", "--json"], ["prices", "claude-sonnet-4-5"],
    ["--demo", "export", "--format", "csv", "--output", "-"], ["--version"], ["--help"], ["list", "--help"],
])
def test_a_full_disk_is_said_in_one_line(isolated_home: Path, args: list[str]) -> None:
    code, err = _run(args, isolated_home)
    assert (code, err) == (1, "error: cannot write to stdout: No space left on device\n")


@pytest.mark.parametrize("target, said", [("pipe", "False"), ("full", "True")])
def test_only_stdout_s_own_refusal_is_said_as_stdout_s(target: str, said: str) -> None:
    """A full disk's error of another file while stdout is a pipe is not said as stdout's (its
    traceback shows the real cause); /dev/full's is."""
    code = ("import errno, sys; from agentscan.cli.streams import stdout_refused; "
            "print(stdout_refused(OSError(errno.ENOSPC, 'No space left on device')), file=sys.stderr)")
    with FULL.open("wb") as full:
        done = subprocess.run([sys.executable, "-c", code], stdout=full if target == "full" else subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=60)
    assert done.stderr.decode().strip() == said


@pytest.mark.parametrize("code", ["ENOSPC", "EIO"])
def test_an_error_of_another_file_is_not_stdout_s_when_stdout_is_the_null_device(code: str) -> None:
    """``> /dev/null`` (cron) takes everything: an error there is another file's."""
    run = ("import errno, sys; from agentscan.cli.streams import stdout_refused; "
           f"print(stdout_refused(OSError(errno.{code}, 'x')), file=sys.stderr)")
    with open(os.devnull, "wb") as null:
        done = subprocess.run([sys.executable, "-c", run], stdout=null, stderr=subprocess.PIPE, timeout=60)
    assert done.stderr.decode().strip() == "False"
