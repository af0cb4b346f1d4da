"""A Ctrl-C in the first tenth of a second of a run ends it with 130, saying nothing, as git
does (pass 58): it printed a ``KeyboardInterrupt`` traceback (the imports of the start-up had
no handler around them), and one landing in orjson's first load killed the process with a
segmentation fault (orjson imports ``uuid``, ``dataclasses``… from its native code, and an
interrupted one left it a null pointer: ``agentscan.orjsonguard``).

Interrupts at varied delays, in a subprocess: from the moment the program's own code runs
(its entry module imported, as the console script's first line does), not from the process's
start: a Ctrl-C in the interpreter's own start-up (``site``) is Python's to answer."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

#: the console script's lines, with a byte on stdout once ``main`` has taken Ctrl-C in hand (its
#: ``_run`` begun): a signal between the import and that is the interpreter's, not the program's
#: (sent there, it landed now and then on ``main``'s first line and printed a traceback)
READY = """
import os, sys
from agentscan import entry
sys.argv = ["agentscan", *sys.argv[1:]]
run = entry._run

def ready():
    os.write(1, b"r")
    run()

entry._run = ready
entry.main()
"""

#: a Ctrl-C inside a callback Python runs for itself (a weakref's, as importlib's module-lock
#: cleanup is): Python cannot raise it, and printed "Exception ignored in ..." and ran on
SWALLOWED = """
import sys, weakref
from agentscan import entry

class Thing:
    pass

def run():
    thing = Thing()

    def callback(ref):
        raise KeyboardInterrupt

    kept = weakref.ref(thing, callback)
    del thing
    print("ran on", kept() is None)

entry._run = run
entry.main()
"""

#: a Ctrl-C in the import orjson's native code makes of ``uuid`` (or whichever it imports
#: first that is not loaded yet): that import fails, and orjson's init went on with nothing
TRIP = """
import signal, sys
from agentscan import entry

class Trip:
    tripped = False

    @staticmethod
    def find_spec(name, path=None, target=None):
        orjson = sys.modules.get("orjson")
        if not Trip.tripped and orjson is not None and not hasattr(orjson, "dumps") and name != "orjson.orjson":
            Trip.tripped = True
            signal.raise_signal(signal.SIGINT)
        return None

sys.meta_path.insert(0, Trip)
sys.argv = ["agentscan", "--demo", "tokens", "--json"]
entry.main()
"""


def _env(tmp_path: Path) -> dict[str, str]:
    scratch = tmp_path / "s"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
               HOME=str(tmp_path / "home"), AGENTSCAN_CACHE_DIR=str(scratch / "cache"),
               AGENTSCAN_DATA_DIR=str(scratch / "data"), AGENTSCAN_LOCK_DIR=str(scratch / "lock"))
    (tmp_path / "home").mkdir(exist_ok=True)
    env.pop("COLUMNS", None)
    return env


def _interrupted(tmp_path: Path, args: list[str], delay: float) -> tuple[int, str]:
    child = subprocess.Popen([sys.executable, "-c", READY, *args], env=_env(tmp_path), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    assert child.stdout is not None
    assert child.stdout.read(1) == b"r"
    time.sleep(delay)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    return child.returncode, err.decode(errors="replace")


@pytest.mark.parametrize("args", [["--demo", "list"], ["--demo", "doctor"]])
def test_a_ctrl_c_during_the_start_up_exits_130_quietly(tmp_path: Path, args: list[str]) -> None:
    codes = []
    for delay in (0.0, 0.002, 0.005, 0.01, 0.02, 0.035, 0.05, 0.08, 0.12):
        code, err = _interrupted(tmp_path, args, delay)
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, (delay, err)
        # (one that came after the command was done: 0; in the interpreter's last teardown,
        # where Python has given SIGINT back to the system: killed by it, as a shell says 130)
        assert code in (130, 0, -signal.SIGINT), (delay, code, err)
        assert code != -signal.SIGINT or err == "", (delay, err)
        codes.append(code)
    assert codes[0] == 130 and codes.count(130) >= 3, codes  # (the start-up itself was interrupted)


def test_a_ctrl_c_in_orjsons_first_load_is_no_crash(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", TRIP], env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert done.returncode == 130, (done.returncode, done.stderr)  # (it was -11: SIGSEGV)
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_the_guard_is_the_clis_alone_and_raises_once_loaded() -> None:
    """The library's imports are left as they are (``orjsonguard.install`` is the CLI's), and a
    Ctrl-C held through the load is raised after it."""
    from agentscan import orjsonguard

    script = (
        "import signal, sys\n"
        "from agentscan import orjsonguard\n"
        "orjsonguard.install()\n"
        "assert sys.meta_path[0] is orjsonguard._Finder\n"
        "held = orjsonguard._held\n"
        "try:\n"
        "    held(lambda: signal.raise_signal(signal.SIGINT) or sum(range(100000)))\n"
        "except KeyboardInterrupt:\n"
        "    print('raised after', signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "raised after True", done.stderr
    assert orjsonguard._Finder not in sys.meta_path  # (this process never installed it: a library's)


def test_a_ctrl_c_python_swallows_in_a_callback_ends_the_run(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", SWALLOWED], env=_env(tmp_path), capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "")  # (was 0, "ran on True", "Exception ignored")


def test_main_takes_ctrl_c_in_hand_from_its_first_line() -> None:
    """Nothing of ``main`` runs before its ``try`` (``gc.disable()`` did: a Ctrl-C there was a traceback)."""
    import ast
    import inspect

    from agentscan import entry

    body = ast.parse(inspect.getsource(entry.main)).body[0].body  # type: ignore[attr-defined]
    assert [type(node) for node in body] == [ast.Try], [ast.dump(node)[:60] for node in body]
