"""A second Ctrl-C that comes as the command ends (the first one's work still being stored:
``scan.usageparse``) ends the process with 130, silently (pass 52 review): one delivered while
the process froze its heap for the exit (``entry.main``) printed a traceback, ``SystemExit: 130``
and ``KeyboardInterrupt`` chained, before the handler that keeps it quiet was put in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import gc, os, signal, sys
from agentscan import entry

real = gc.freeze
def freeze():
    os.kill(os.getpid(), signal.SIGINT)  # the second Ctrl-C, here
    real()
entry.gc.freeze = freeze
sys.argv = ["agentscan", "--version"]
entry.main()
"""


def test_a_ctrl_c_as_the_command_ends_is_quiet(tmp_path: Path) -> None:
    src = Path(__file__).resolve().parents[1] / "src"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr
    assert done.returncode == 130
