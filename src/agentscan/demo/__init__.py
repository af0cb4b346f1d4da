"""The small demo home shipped inside the package (``agentscan --demo``)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping


def demo_home() -> Path:
    """The demo home shipped with agentscan (what ``--demo`` reads): a library caller's
    ``Scanner(home=demo_home(), env={})`` sees the demo's sessions, and none of the shell's
    provider variables (``env={}``), as ``--demo`` does."""
    return Path(__file__).resolve().parent / "home"


def demo_events() -> Path:
    """The demo's hook events store (``make_hook_demo``): ``--demo`` reads it, as ``trace``
    and ``show`` read ``AGENTSCAN_DATA_DIR`` otherwise, and never writes to it."""
    return Path(__file__).resolve().parent / "events"


def with_demo_events(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with the events store set to the demo's (``AGENTSCAN_DATA_DIR``): what
    ``--demo`` reads hook events from, in place of the user's."""
    from agentscan.datadir import ENV_VAR

    return {**env, ENV_VAR: str(demo_events())}


#: the home the demo's files say they were written in (``make_*_demo``): ``demo_home()``
#: is where it is now
WRITTEN_HOME = "/home/demo"


def in_demo_home(path: str | None) -> str | None:
    """A path a demo file names (``/home/demo/…``), where the shipped demo home holds it."""
    if path is None or not path.startswith(WRITTEN_HOME + "/"):
        return path
    return str(demo_home()) + path[len(WRITTEN_HOME):]
