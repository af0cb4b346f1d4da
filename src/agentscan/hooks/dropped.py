"""What the hook error log says a session lost: payloads the hook dropped unread (too large,
or too slow to arrive), which ``trace`` and ``otlp`` warn of.  Apart from ``store`` (the
events files themselves) since pass 55, which pushed that module past its size.
"""

from __future__ import annotations

import os
from typing import Any

from agentscan.hooks.store import DIAGNOSTICS_LOG


def dropped_payloads(root: str, session_id: str) -> tuple[str, int]:
    """The hook error log, and how many payloads of ``session_id`` it says were dropped unread
    (too large, or too slow to arrive): the log line names the session when the payload's
    start did (``capture._whose``).  The log and its old generation are 1 MiB each at most."""
    path = os.path.join(root, DIAGNOSTICS_LOG)
    mark = f"dropped (session {session_id}, ".encode("utf-8", "surrogatepass")  # as ``capture._whose`` writes it
    count = 0
    for name in (path + ".1", path):
        try:
            with open(name, "rb") as handle:
                count += handle.read(4 * 1024 * 1024).count(mark)
        except OSError:
            continue
    return path, count


def dropped_warnings(root: str, session_id: str) -> list[Any]:
    """The warning ``trace`` and ``otlp`` give for a session some of whose payloads the hook
    dropped unread (``dropped_payloads``): what they closed is missing from the tree."""
    log, dropped = dropped_payloads(root, session_id)
    if not dropped:
        return []
    from agentscan.model import ScanWarning
    from agentscan.toolkit.words import agreeing, plural

    return [ScanWarning(log, (
        f"{plural(dropped, 'hook payload')} of this session "
        f"{agreeing(dropped).was} dropped unread (larger than 8 MiB, or too slow to arrive): "
        "a call whose completion it was shows no status"))]
