"""Whether a parse may use worker processes, and how much a job reads.

Apart from ``toolkit.workers``, whose pool needs ``pickle``, ``selectors``,
``threading`` and ``signal`` (about 7 ms of imports on a 2-core machine):
a ``tokens`` right after one session grew decides, here, to parse that one
session in this process, and imports none of them.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef


def usable_workers(limit: int = 8) -> int:
    """How many workers are worth forking here (0: stay in this process)."""
    if not hasattr(os, "fork") or sys.platform == "win32":
        return 0
    try:
        cores = len(os.sched_getaffinity(0))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return min(cores, limit) if cores > 1 else 0


def job_bytes(ref: SessionRef, ctx: ScanContext) -> int:
    """How much a job over ``ref`` reads: its files' sizes (jobs go out largest first, so
    that the workers finish together)."""
    total = 0
    for path in ref.read_files:
        stat = ctx.stat(path)
        total += stat.st_size if stat is not None else 0
    return total


#: pools of ``workers.run_parallel`` whose workers are at work now (their parent's
#: ``meanwhile`` too), and, in a worker, 1 for its own pool
_running = 0


def pool_started() -> None:
    global _running
    _running += 1


def pool_ended() -> None:
    global _running
    _running -= 1


def busy() -> bool:
    """Whether this process's workers hold the cores now: a helper forked meanwhile
    would share them with the workers rather than take a free one."""
    return _running > 0
