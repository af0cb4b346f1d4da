"""The console script registers only the command it runs: the map it uses must be complete."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

import typer
from typer.main import get_command

from agentscan.cli import COMMAND_HOMES, COMMAND_MODULES, app
from agentscan.entry import _command_in


def test_every_command_is_mapped_to_the_module_that_registers_it() -> None:
    registered = set(get_command(app).commands)  # type: ignore[attr-defined]
    assert registered == set(COMMAND_HOMES)
    for module_name in COMMAND_MODULES:
        alone = typer.Typer()
        importlib.import_module(module_name).register(alone)
        names = {info.name for info in alone.registered_commands} | {group.name for group in alone.registered_groups}
        assert names == {name for name, home in COMMAND_HOMES.items() if home == module_name}


def test_the_command_is_found_after_global_options() -> None:
    assert _command_in(["--home", "list", "tokens", "--json"]) == "tokens"
    assert _command_in(["--home=/x", "-q", "show", "abc"]) == "show"
    assert _command_in(["--version"]) is None


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    # At exit, the agentscan modules this run imported go to stderr.
    script = ("import atexit, sys; atexit.register(lambda: print(*sorted(m for m in sys.modules if m.startswith('agentscan')), "
              "file=sys.stderr)); sys.argv[0] = 'agentscan'; from agentscan.entry import main; main()")
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **env})


def test_one_command_runs_with_only_its_module_and_typos_still_get_suggestions() -> None:
    shown = _run("prices", "--json")
    assert shown.returncode == 0, shown.stderr
    imported = set(shown.stderr.split())
    assert "agentscan.cli.prices_commands" in imported
    assert not {"agentscan.cli.commands", "agentscan.cli.otlp_commands", "agentscan.cli.ops_commands"} & imported
    typo = _run("tokns")
    assert typo.returncode == 2 and "Did you mean 'tokens'" in typo.stderr
