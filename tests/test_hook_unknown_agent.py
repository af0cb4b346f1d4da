"""``agentscan hook --agent codex`` (a command wired by hand into Codex's config, or any
agent's with a name the hook does not take): nothing is stored, as before, but it is said once in ``hook-errors.log`` (which
``hooks status`` and ``doctor`` show), never on every event, and a value that may be a pasted
secret is not quoted.  Still exit 0 and nothing on stdout: the agent is never broken."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_hook(agent: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "agentscan", "hook", "--agent", agent], input=b'{"session_id": "s"}',
                          capture_output=True, env=dict(os.environ), timeout=60)


def test_an_agent_the_hook_does_not_capture_is_said_once() -> None:
    root = Path(os.environ["AGENTSCAN_DATA_DIR"])
    for _ in range(2):
        done = run_hook("Codex")
        assert (done.returncode, done.stdout) == (0, b"")
    lines = (root / "hook-errors.log").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    assert lines[0].endswith("unknown --agent 'codex': the hook captures only cursor, claude and gemini; "
                             "nothing stored")
    assert not (root / "events").exists()
    assert run_hook("sk-live token=abc").returncode == 0
    last = (root / "hook-errors.log").read_text(encoding="utf-8").splitlines()[-1]
    assert "unknown --agent (not quoted)" in last and "sk-live" not in last
