"""The ``agentscan`` command line: a thin layer over ``agentscan.scan.scanner``.

The Typer app lives in ``cli.typer_app``; importing this package does not
import Typer, so the typer-free parts (``cli.fastpath``, the renderers) stay
cheap.  ``from agentscan.cli import app`` still gives the app.
"""

from __future__ import annotations

from typing import Any

_FROM_TYPER_APP = frozenset({"app", "main", "COMMAND_HOMES", "COMMAND_MODULES"})


def __getattr__(name: str) -> Any:
    if name in _FROM_TYPER_APP:
        from agentscan.cli import typer_app

        return getattr(typer_app, name)
    raise AttributeError(f"module 'agentscan.cli' has no attribute {name!r}")


__all__ = ["app", "main"]
