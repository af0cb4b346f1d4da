"""The console-script entry point, kept tiny on purpose.

``agentscan hook`` runs on every event of every agent session, so it must
not pay for Typer and the rest of the CLI (~80 ms): it is recognised here,
from ``sys.argv`` alone, and handed straight to the capture module.  Every
other command goes to the Typer app.
"""

from __future__ import annotations

import sys


def _hook_option(argv: list[str], name: str) -> str | None:
    """``--name X`` / ``--name=X`` from the hook's arguments; anything odd is ignored."""
    for index, arg in enumerate(argv):
        if arg == name and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def _hook_agent(argv: list[str]) -> str | None:
    return _hook_option(argv, "--agent")


def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["hook"] and not {"-h", "--help"} & set(argv):
        from agentscan.hooks.capture import run

        run(_hook_agent(argv[1:]), _hook_option(argv[1:], "--otlp-endpoint"))
        sys.exit(0)
    from agentscan.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
