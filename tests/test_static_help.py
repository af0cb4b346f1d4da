"""``agentscan --help`` is printed from a snapshot (no Typer import): it must be Typer's own text."""

from __future__ import annotations

import os
import subprocess
import sys

from agentscan.cli.help_snapshot import SNAPSHOT_COLUMNS, render_with_typer
from agentscan.static_help import TOP_LEVEL_HELP

_AS_CONSOLE_SCRIPT = "import sys; sys.argv[0] = 'agentscan'; from agentscan.entry import main; main()"


def _entry(*args: str, columns: int) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS=str(columns))
    return subprocess.run([sys.executable, "-X", "importtime", "-c", _AS_CONSOLE_SCRIPT, *args],
                          env=env, capture_output=True, text=True, timeout=60)


def test_snapshot_is_what_typer_renders() -> None:
    assert TOP_LEVEL_HELP == render_with_typer(), "run: python -m agentscan.cli.help_snapshot"


def test_help_on_a_wide_terminal_comes_from_the_snapshot_without_typer() -> None:
    for flag in ("--help", "-h"):
        for columns in (SNAPSHOT_COLUMNS, 200):
            done = _entry(flag, columns=columns)
            assert done.returncode == 0
            assert done.stdout == TOP_LEVEL_HELP
            imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
            assert "typer" not in imported and "click" not in imported


def test_narrow_terminal_and_other_arguments_go_to_typer() -> None:
    narrow = _entry("--help", columns=60)
    assert narrow.returncode == 0
    assert narrow.stdout != TOP_LEVEL_HELP and "Usage: agentscan" in narrow.stdout
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 60
    assert "typer" in narrow.stderr
    command_help = _entry("list", "--help", columns=120)
    assert command_help.returncode == 0 and "Usage: agentscan list" in command_help.stdout


def _imported(stderr: str) -> set[str]:
    return {line.split("|")[-1].strip() for line in stderr.splitlines() if "|" in line}


def test_bare_agentscan_prints_the_snapshot_without_typer() -> None:
    # A bare ``agentscan`` prints what ``--help`` does (Typer's ``no_args_is_help``): it went
    # through Typer, 165 imports against the snapshot's 31.
    for columns in (SNAPSHOT_COLUMNS, 200):
        done = _entry(columns=columns)
        assert done.returncode == 0
        assert done.stdout == TOP_LEVEL_HELP == _entry("--help", columns=columns).stdout
        imported = _imported(done.stderr)
        assert "typer" not in imported and "click" not in imported


def test_python_dash_m_prints_the_snapshot_under_the_name_its_hints_give_it() -> None:
    # ``python -m agentscan`` from a venv not on ``PATH``: the usage line names the program as
    # its ``Try '… --help'`` and hints do, the Python as run (pass 57: click's ``python -m
    # agentscan`` above a ``Try '/venv/bin/agentscan --help'``); the snapshot says the same as
    # Typer, without it.  With this venv's ``bin`` on ``PATH``: ``agentscan``.
    import shlex

    for path, named in (("/usr/bin:/bin", f"{shlex.quote(sys.executable)} -m agentscan"),
                        (os.path.dirname(sys.executable), "agentscan")):
        for args in (("--help",), ()):
            env = dict(os.environ, COLUMNS=str(SNAPSHOT_COLUMNS), PATH=path)
            done = subprocess.run([sys.executable, "-X", "importtime", "-m", "agentscan", *args],
                                  env=env, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0
            typer_render = subprocess.run(
                [sys.executable, "-c", f"from agentscan.cli import app; app(prog_name={named!r})", "--help"],
                env=env, capture_output=True, text=True, timeout=60).stdout
            assert done.stdout.startswith(f"Usage: {named} [OPTIONS]")
            if len(f"Usage: {named} [OPTIONS] COMMAND [ARGS]...") <= SNAPSHOT_COLUMNS:
                # (a longer name, a deep venv's Python as CI's clone has, Typer's rich wraps
                # after the name: the snapshot keeps the line whole, the same words)
                assert done.stdout == typer_render
            else:
                assert done.stdout.split() == typer_render.split()
            imported = _imported(done.stderr)
            assert "typer" not in imported and "click" not in imported
        error = subprocess.run([sys.executable, "-m", "agentscan", "lst"], env=env, capture_output=True, text=True,
                               timeout=60).stderr
        assert error.splitlines()[-1] == f"Try '{named} --help' for help."
