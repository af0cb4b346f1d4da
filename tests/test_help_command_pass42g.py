"""``agentscan help [COMMAND [SUBCOMMAND]]``, as git and gh users type it: the text of
``agentscan COMMAND --help``; alone, ``agentscan --help`` from the same fast snapshot."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.static_help import TOP_LEVEL_HELP

runner = CliRunner()

_AS_CONSOLE_SCRIPT = ("import atexit, sys; atexit.register(lambda: print(*sorted(m for m in sys.modules "
                      "if m.startswith(('agentscan', 'typer', 'click'))), file=sys.stderr)); "
                      "sys.argv[0] = 'agentscan'; from agentscan.entry import main; main()")


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def console(*args: str, columns: int = 120) -> subprocess.CompletedProcess[str]:
    """As the console script runs it; stderr ends with the modules it imported."""
    return subprocess.run([sys.executable, "-c", _AS_CONSOLE_SCRIPT, *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": str(columns)})


@pytest.mark.parametrize("words", [["list"], ["show"], ["tokens"], ["doctor"], ["hooks"], ["hooks", "install"],
                                   ["hooks", "status"], ["trace"], ["hook"], ["help"]])
def test_help_command_is_command_help(words: list[str]) -> None:
    code, out, err = run("help", *words)
    assert (code, err) == (0, "")
    assert out == run(*words, "--help")[1]
    assert out.startswith(f"Usage: agentscan {' '.join(words)} ")


def test_help_alone_is_the_top_level_help() -> None:
    code, out, _err = run("help")
    assert code == 0 and out == run("--help")[1]
    assert "\n  help    " in TOP_LEVEL_HELP  # and it is listed there


def test_global_options_around_it_change_nothing() -> None:
    assert run("--demo", "help", "list")[1] == run("list", "--help")[1]
    assert run("help", "-q", "tokens")[1] == run("tokens", "--help")[1]


@pytest.mark.parametrize("words, said, where", [
    (["lst"], "error: No such command 'lst'. Did you mean 'list'?\n", "agentscan --help"),
    (["hooks", "stauts"], "error: No such command 'stauts'. Did you mean 'status'?\n", "agentscan hooks --help"),
    (["nosuchthing"], "error: No such command 'nosuchthing'.\n", "agentscan --help"),
    (["list", "install"], "error: No such command 'install': agentscan list has no commands of its own.\n",
     "agentscan help --help"),
])
def test_an_unknown_command_is_a_usage_error_with_its_neighbours(words: list[str], said: str, where: str) -> None:
    code, out, err = run("help", *words)
    assert (code, out) == (2, "")
    assert err == f"{said}Try '{where}' for help.\n"


def test_help_alone_comes_from_the_snapshot_without_typer() -> None:
    for columns in (80, 200):
        done = console("help", columns=columns)
        assert done.returncode == 0
        assert done.stdout == TOP_LEVEL_HELP
        imported = set(done.stderr.split())
        assert not {"typer", "click"} & imported


def test_help_command_registers_only_that_commands_module() -> None:
    """Startup: ``help list`` costs what ``list --help`` does (one command module, not five)."""
    done = console("help", "list")
    assert done.returncode == 0
    assert done.stdout.startswith("Usage: agentscan list [OPTIONS]")
    imported = set(done.stderr.split())
    assert "agentscan.cli.commands" in imported
    assert not {"agentscan.cli.ops_commands", "agentscan.cli.otlp_commands", "agentscan.cli.prices_commands",
                "agentscan.cli.hooks_commands"} & imported
    typo = console("help", "tokns")
    assert typo.returncode == 2 and "Did you mean 'tokens'?" in typo.stderr


def test_help_on_a_narrow_terminal_is_typers() -> None:
    done = console("help", columns=60)
    assert done.returncode == 0 and done.stdout != TOP_LEVEL_HELP and done.stdout.startswith("Usage: agentscan")
    assert max(len(line) for line in done.stdout.splitlines()) <= 60


def test_help_has_two_to_four_examples() -> None:
    out = run("help", "--help")[1]
    examples = out.split("\nExamples:\n", 1)[1].splitlines()
    assert 2 <= len(examples) <= 4 and all(line.startswith("  agentscan help") for line in examples)
