"""Pass 56: ``--strict hooks install|uninstall`` fails on a warning, as ``--strict`` does in
every other command: the result first (the change made, or the ``--dry-run``'s diff), then
exit 1 with ``error: N warnings (--strict)``.  Before, it printed the warning and exited 0.
"""

from __future__ import annotations

import json
from pathlib import Path

from builders import invoke


def _disabled(home: Path) -> Path:
    """A Claude settings file whose hooks are all off: ``hooks install claude`` warns of it."""
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"disableAllHooks": True}, indent=2) + "\n")
    return path


def test_strict_dry_run_fails_on_its_warning_after_the_diff(isolated_home: Path) -> None:
    path = _disabled(isolated_home)
    before = path.read_bytes()
    result = invoke("--strict", "hooks", "install", "claude", "--dry-run")
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("---") and "+" in result.stdout  # the diff, as without --strict
    assert '"disableAllHooks": true here turns off every Claude Code hook' in result.stderr
    assert result.stderr.rstrip().endswith("error: 1 warning (--strict)"), result.stderr
    assert path.read_bytes() == before  # a dry run writes nothing, --strict or not
    assert invoke("hooks", "install", "claude", "--dry-run").exit_code == 0  # without --strict: 0, as before


def test_strict_install_makes_the_change_then_fails(isolated_home: Path) -> None:
    """As ``export --strict`` writes its file and exits 1: the config is changed all the same."""
    path = _disabled(isolated_home)
    result = invoke("--strict", "hooks", "install", "claude")
    assert result.exit_code == 1
    assert "agentscan hook" in path.read_text()
    assert "error: 1 warning (--strict)" in result.stderr


def test_strict_quiet_still_says_the_warning_it_fails_on(isolated_home: Path) -> None:
    _disabled(isolated_home)
    result = invoke("-q", "--strict", "hooks", "install", "claude", "--dry-run")
    assert result.exit_code == 1
    assert "disableAllHooks" in result.stderr and "error: 1 warning (--strict)" in result.stderr


def test_strict_json_fails_with_the_warning_in_the_document(isolated_home: Path) -> None:
    _disabled(isolated_home)
    result = invoke("--strict", "hooks", "install", "claude", "--dry-run", "--json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert [w["message"][:18] for w in document["warnings"]] == ['"disableAllHooks":']


def test_strict_with_no_warning_exits_0(isolated_home: Path) -> None:
    assert invoke("--strict", "hooks", "install", "claude", "--dry-run").exit_code == 0
    assert invoke("--strict", "hooks", "install", "claude").exit_code == 0
    assert invoke("--strict", "hooks", "uninstall", "claude").exit_code == 0


def test_install_help_lists_strict() -> None:
    """It changes what the command does now: listed in its --help (it was taken and unlisted)."""
    said = invoke("hooks", "install", "--help").stdout
    assert "--strict" in said and "--dry-run's diff" in " ".join(said.split())
