"""Pass 54: a module a command needs only for one option is imported only then, so every
other run's start does not pay for it: ``scan.collect`` imports ``windowsettle`` and
``windowspans`` (a ``--since``/``--until`` report's) when a window is asked, and ``list``
imports ``unreadrows`` for ``--archived``/``--no-archived`` (``leftout.shelf_asked``), not for
every plain ``list``."""

from __future__ import annotations

import subprocess
import sys

import pytest

_WINDOW = {"agentscan.scan.windowsettle", "agentscan.scan.windowspans"}


def _imported(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "agentscan", "--demo", *args, "--no-cache"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize(("args", "absent", "present"), [
    (("list",), {"agentscan.scan.unreadrows", *_WINDOW}, {"agentscan.scan.listing"}),
    (("list", "--archived"), _WINDOW, {"agentscan.scan.unreadrows"}),
    (("tokens",), _WINDOW, {"agentscan.scan.collect"}),
    (("tokens", "--since", "2020-01-01"), set(), {*_WINDOW}),
])
def test_imported_only_for_the_option_that_needs_it(args: tuple[str, ...], absent: set[str], present: set[str]) -> None:
    imported = _imported(*args)
    assert not absent & imported
    assert present <= imported


def test_archived_unknown_is_said_only_when_asked() -> None:
    """The shelf's count (``archived_unknown``) is in ``list --json`` with ``--archived`` or
    ``--no-archived`` alone, as it was when every list made the shelf and asked it."""
    import json

    from typer.testing import CliRunner

    from agentscan.cli import app

    for flags in (["--archived"], ["--no-archived"], []):
        result = CliRunner().invoke(app, ["--demo", "list", *flags, "--json", "--no-cache"])
        assert result.exit_code == 0
        assert json.loads(result.stdout).get("archived_unknown") == ([] if flags else None)
