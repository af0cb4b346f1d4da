"""`agentscan hooks install|uninstall --json`: the contract's "every command takes --json",
with what changed (or would) file by file, and the same files written as without it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.hooks.install import CLAUDE_EVENTS, CURSOR_EVENTS
from hooks_builders import HARNESSSPY

runner = CliRunner()


def document(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["schema"] == "agentscan.hooks/1" and found["warnings"] == []
    return found


@pytest.mark.parametrize(("agent", "relative", "events"), [("claude", ".claude/settings.json", CLAUDE_EVENTS),
                                                          ("cursor", ".cursor/hooks.json", CURSOR_EVENTS)])
def test_install_then_uninstall_say_what_they_did(isolated_home: Path, agent: str, relative: str, events: tuple) -> None:
    path = isolated_home / relative
    installed = document("hooks", "install", "--agent", agent)
    assert (installed["action"], installed["agent"], installed["scope"], installed["dry_run"]) == ("install", agent, "user", False)
    [change] = installed["changes"]
    assert change == {"path": str(path), "events": list(events), "backup": None, "removed_file": False,
                      "removed_dirs": [], "relaid": False, "diff": None,
                      "added": list(events), "replaced": []}
    assert installed["restart"] and path.is_file()
    again = document("hooks", "install", "--agent", agent)
    assert again["changes"] == [] and again["restart"] is None
    before = path.read_text()
    dry = document("hooks", "uninstall", "--agent", agent, "--dry-run")
    [planned] = dry["changes"]
    assert dry["dry_run"] and dry["restart"] is None and planned["diff"].startswith("--- ")
    assert planned["removed_file"] and planned["removed_dirs"] == []  # it would remove the file
    assert path.read_text() == before  # a dry run writes nothing
    removed = document("hooks", "uninstall", "--agent", agent)
    [change] = removed["changes"]
    assert change["removed_file"] and change["backup"] is None and not path.exists()
    assert change["removed_dirs"] == [str(path.parent)] and not path.parent.exists()


def test_json_writes_what_the_text_command_writes(isolated_home: Path, tmp_path: Path) -> None:
    config = isolated_home / ".claude" / "settings.json"
    config.parent.mkdir()
    shutil.copy(HARNESSSPY / "claude-settings.example.json", config)
    text = runner.invoke(app, ["hooks", "install", "--agent", "claude"])
    assert text.exit_code == 0 and not text.stdout.lstrip().startswith("{")
    by_text = config.read_text()
    shutil.copy(HARNESSSPY / "claude-settings.example.json", config)
    [change] = document("hooks", "install", "--agent", "claude")["changes"]
    assert config.read_text() == by_text
    # An existing config is kept beside it first, and the document says where.
    assert change["backup"] and Path(change["backup"]).read_text() == (HARNESSSPY / "claude-settings.example.json").read_text()
