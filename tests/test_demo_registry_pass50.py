"""The demo home has Claude Code's registry of its running processes (``~/.claude/sessions/``),
as any home a current Claude Code ran in: its Claude sessions show ``running: false``, not
``null`` ("could not be told"), and ``--demo list --running`` leaves none of them out.  Git keeps
no empty folder: the registry holds a stale entry, of a pid no process can have and a session
that is none of the demo's, which the registry's checks (pid, ``procStart``) skip."""

from __future__ import annotations

import fnmatch
import sys
import tomllib
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.demo import demo_home
from agentscan.demo.make_claude_demo import STALE_PID, stale_registry_entry
from agentscan.providers.claude.liveprocs import live_sessions

REGISTRY = demo_home() / ".claude" / "sessions"


def test_the_demo_registry_is_what_the_generator_writes_and_names_no_live_session() -> None:
    entry = REGISTRY / f"{STALE_PID}.json"
    assert orjson.loads(entry.read_bytes()) == stale_registry_entry()
    assert live_sessions(str(REGISTRY)) == {}  # a registry (not None), naming nothing that runs
    demo_ids = {path.stem for path in (demo_home() / ".claude" / "projects").rglob("*.jsonl")}
    assert stale_registry_entry()["sessionId"] not in demo_ids


def test_the_registry_is_in_the_package_data() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"]["agentscan"]
    shipped = f"demo/home/.claude/sessions/{STALE_PID}.json"
    assert any(fnmatch.fnmatch(shipped, pattern) for pattern in globs)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="liveness is read from /proc")
def test_demo_claude_sessions_are_told_not_running() -> None:
    result = CliRunner().invoke(app, ["--demo", "list", "--json"])
    assert result.exit_code == 0, result.output
    claude = [row for row in orjson.loads(result.stdout)["sessions"] if row["provider"] == "claude"]
    assert claude and all(row["running"] is False for row in claude)  # before: null
    result = CliRunner().invoke(app, ["--demo", "list", "--running"])
    assert "claude session" not in result.stderr  # before: "2 claude sessions left out, … not known"
