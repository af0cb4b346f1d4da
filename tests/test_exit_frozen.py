"""A command's heap is frozen as ``entry.main`` ends: the collections after it (the one that
turning the collector back on sets off, the interpreter's last) do not go over it."""

from __future__ import annotations

import os
import subprocess
import sys

# At exit (``atexit`` runs before the interpreter's last collection): the objects a collection
# would go over (``gc.get_objects`` leaves the frozen ones out) and those frozen.
_SCRIPT = (
    "import atexit, gc, sys\n"
    "atexit.register(lambda: sys.stderr.write('HEAP %d %d\\n' % (len(gc.get_objects()), gc.get_freeze_count())))\n"
    "sys.argv[0] = 'agentscan'\n"
    "from agentscan.entry import main\n"
    "main()\n"
)


def test_the_heap_left_at_exit_is_frozen_not_collected() -> None:
    done = subprocess.run([sys.executable, "-c", _SCRIPT, "--no-cache", "--demo", "list", "--all", "--json"],
                          env=dict(os.environ), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("HEAP ")]
    tracked, frozen = map(int, line.split()[1:])
    # Before: nothing frozen, and every object of the run (the modules' included) tracked.
    assert frozen > 10_000 and tracked < frozen // 10
