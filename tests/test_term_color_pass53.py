"""Colour as gh, git and CMake users set it: ``NO_COLOR`` (no-color.org) wins; ``CLICOLOR_FORCE``
or ``FORCE_COLOR`` (force-color.org, bixense.com/clicolors) set to anything but ``0`` colour a
pipe too (``FORCE_COLOR=1 agentscan list | less -R``); ``CLICOLOR=0``, ``FORCE_COLOR=0`` and
``TERM=dumb`` turn a terminal's colour off.  Before, colour was the terminal's alone: a forced
pipe came out plain."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.term import colored

COLOR_VARS = ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "CLICOLOR", "TERM")


@pytest.mark.parametrize(("env", "tty", "expected"), [
    ({}, True, True),
    ({}, False, False),
    ({"FORCE_COLOR": "1"}, False, True),
    ({"FORCE_COLOR": "3"}, False, True),
    ({"CLICOLOR_FORCE": "1"}, False, True),
    ({"CLICOLOR_FORCE": "0"}, False, False),
    ({"FORCE_COLOR": ""}, False, False),  # empty is unset
    ({"FORCE_COLOR": "0"}, True, False),  # chalk's "no colour"
    ({"FORCE_COLOR": "false"}, True, False),
    ({"CLICOLOR": "0"}, True, False),
    ({"CLICOLOR": "1"}, False, False),  # colour where supported: not in a pipe
    ({"TERM": "dumb"}, True, False),
    ({"TERM": "dumb", "FORCE_COLOR": "1"}, True, True),
    ({"CLICOLOR": "0", "CLICOLOR_FORCE": "1"}, True, True),
    ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False, False),
    ({"NO_COLOR": "1", "CLICOLOR_FORCE": "1"}, True, False),
    ({"NO_COLOR": ""}, True, True),
])
def test_colored(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], tty: bool, expected: bool) -> None:
    for name in COLOR_VARS:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert colored(tty) is expected


def test_forced_colour_in_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    forced = CliRunner().invoke(app, ["--demo", "list"])
    assert forced.exit_code == 0 and "\x1b[1mID" in forced.stdout
    monkeypatch.setenv("NO_COLOR", "1")
    plain = CliRunner().invoke(app, ["--demo", "list"])
    assert plain.exit_code == 0 and "\x1b[" not in plain.stdout


def test_clicolor_zero_on_a_terminal(monkeypatch: pytest.MonkeyPatch, tty) -> None:
    tty(120, color=True)
    monkeypatch.setenv("CLICOLOR", "0")
    result = CliRunner().invoke(app, ["--demo", "list"])
    assert result.exit_code == 0 and "\x1b[" not in result.stdout
