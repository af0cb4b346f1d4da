"""The folders of the hook events store that are there but cannot be listed (one made by
``sudo``, its mode changed): ``store.stored_sessions`` leaves their sessions out, and ``trace``
says so, or ``trace --list`` omitted them without a word and ``trace ID`` said "no hook
events" of a session whose file is there."""

from __future__ import annotations

import os

from agentscan.hooks.store import EVENTS_DIR
from agentscan.model import ScanWarning

#: what is lost with such a folder, said after the reason it cannot be listed
LEFT_OUT = "the hook events of the sessions in it are left out"


def unlisted_folders(root: str) -> list[ScanWarning]:
    """A warning for each folder ``store.stored_sessions`` would list under ``root`` and cannot
    (the events folder, an agent's folder): its path, and ``cannot list directory: <why>``."""
    from agentscan.context import CANNOT_LIST

    found: list[ScanWarning] = []

    def listing(folder: str) -> list[str]:
        try:
            return sorted(os.listdir(folder))
        except (FileNotFoundError, NotADirectoryError):  # none yet, or a stray file: no session to miss
            return []
        except OSError as exc:
            found.append(ScanWarning(folder, f"{CANNOT_LIST}{exc.strerror or exc} ({LEFT_OUT})"))
            return []

    events = os.path.join(root, EVENTS_DIR)
    for agent in listing(events):
        listing(os.path.join(events, agent))
    return found
