"""The live sender's counts in ``otlp-live.json`` (sent, failed, dropped, skipped, the last
problem), which ``agentscan doctor`` shows, and the file lock they are written under.

Apart from ``live.py`` (what a sender reads and sends) because ``doctor`` reads the counts
without the sender's code, and every outcome of a sender is counted through one function.
Imported by the hook process: ``os`` and ``time`` at import time.
"""

from __future__ import annotations

import os
import time
from typing import Any

from agentscan.filemodes import make_private_dirs, open_private
from agentscan.otlp import livequeue
from agentscan.otlp.livequeue import SPOOL_DIR

COUNTER_FILE = "otlp-live.json"


def count_outcome(root: str, outcome: str, message: str | None, *, spans: int = 0, times: int = 1,
                  extra: dict[str, int] | None = None) -> None:
    """Add to ``otlp-live.json`` (under a lock where the platform has one) and log failures."""
    try:
        import json

        if message and outcome != "sent":
            # Logged before it is counted: whoever sees the count (``agentscan doctor``,
            # a test waiting on it) finds its line in the log too.
            from agentscan.hooks.diagnostics import log_problem

            log_problem(root, "otlp", f"live export {outcome}: {message}")
        make_private_dirs(os.path.join(root, SPOOL_DIR))
        with FileLock(os.path.join(root, SPOOL_DIR, "counters.lock")):
            path = os.path.join(root, COUNTER_FILE)
            try:
                with open(path, encoding="utf-8") as handle:
                    counters = json.load(handle)
                if not isinstance(counters, dict):
                    counters = {}
            except (OSError, ValueError):
                counters = {}
            counters[outcome] = int(counters.get(outcome) or 0) + times
            for key, value in {"spans_sent": spans, **(extra or {})}.items():
                if value:
                    counters[key] = int(counters.get(key) or 0) + value
            if message:
                counters["last_problem"] = message
            counters["updated_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            temp = f"{path}.{os.getpid()}.tmp"
            with os.fdopen(open_private(temp), "w", encoding="utf-8") as handle:  # 0600, as every file we write
                json.dump(counters, handle, sort_keys=True)
            os.replace(temp, path)
    except Exception:  # noqa: BLE001 - counting is best effort, like the diagnostics log
        return


def read_counts(root: str) -> dict[str, Any] | None:
    """``otlp-live.json``'s counts (a count not written yet is 0), with ``pending``: the senders
    at work now (slots taken, not stale) and the jobs queued for them; ``None`` before the
    first live span (sent or not)."""
    import json

    try:
        with open(os.path.join(root, COUNTER_FILE), encoding="utf-8") as handle:
            doc = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict):
        return None
    found: dict[str, Any] = {key: doc[key] if type(doc.get(key)) is int and doc[key] >= 0 else 0
                             for key in ("sent", "spans_sent", "failed", "dropped", "skipped")}
    problem = doc.get("last_problem")
    found["last_problem"] = problem if isinstance(problem, str) else None
    found["pending"] = livequeue.busy_slots(root) + livequeue.waiting(root)  # at work, and queued for them
    return found


class FileLock:
    """An exclusive ``flock`` on ``path`` while the ``with`` block runs (none on Windows:
    what it guards is best effort there); closing the file releases it."""


    def __init__(self, path: str) -> None:
        self.path = path
        self.fd: int | None = None

    def __enter__(self) -> None:
        self.fd = open_private(self.path, os.O_WRONLY | os.O_CREAT)
        try:
            import fcntl

            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except ImportError:  # Windows: counters are best effort there
            pass

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the flock
