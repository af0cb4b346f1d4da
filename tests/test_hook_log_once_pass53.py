"""``hook-errors.log``: a problem said once per message, not per event (pass 53).

Two mis-wired hooks taking turns (``--agent kiro`` in one agent's config, ``--agent
codex`` in Codex's) each wrote a line on every event: ``log_once`` looked at the last line."""

from __future__ import annotations

import os
from pathlib import Path

def test_two_mis_wired_hooks_taking_turns_are_each_said_once(isolated_home: Path) -> None:
    # A hook wired by hand into another agent's config and one into Codex's, events alternating:
    # ``log_once`` looked at the log's last line alone, so each wrote a line on every event.
    from agentscan.hooks import capture

    for _ in range(5):
        for agent in ("kiro", "codex"):
            capture.run(agent)
    lines = (Path(os.environ["AGENTSCAN_DATA_DIR"]) / "hook-errors.log").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2, lines
    assert "unknown --agent 'kiro'" in lines[0] and "unknown --agent 'codex'" in lines[1]


def test_the_window_is_bounded(isolated_home: Path) -> None:
    # Said again once it has left the last lines: the log is not searched whole on every event.
    from agentscan.hooks.diagnostics import LOG_ONCE_LINES, log_once

    root = os.environ["AGENTSCAN_DATA_DIR"]
    log_once(root, "x", "first")
    for number in range(LOG_ONCE_LINES):
        log_once(root, "x", f"other {number}")
    log_once(root, "x", "first")
    lines = (Path(root) / "hook-errors.log").read_text(encoding="utf-8").splitlines()
    assert [line.endswith(" first") for line in lines].count(True) == 2
