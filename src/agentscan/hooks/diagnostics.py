"""The hook's own error log (``hook-errors.log`` in the events store).

The hook never fails the agent, so what goes wrong is written here, and
``doctor`` shows it.  Stdlib only: the hook's hot path imports it, and so does
the live OTLP sender.
"""

from __future__ import annotations

import os
import time

from agentscan.hooks import store

#: the log is rotated past this size, keeping one old generation
DIAGNOSTICS_MAX = 1024 * 1024


def log_once(root: str, agent: str, message: str) -> None:
    """``log_problem``, unless the log's last line already says ``message``: a setting that
    is wrong on every event (a relative ``AGENTSCAN_DATA_DIR``) is said once, not thousands of
    times, which would push the real problems out of the bounded log."""
    from pathlib import Path

    from agentscan.toolkit.jsonl import read_tail

    try:
        tail, _ = read_tail(Path(root, store.DIAGNOSTICS_LOG), 4096)
        if tail.rstrip(b"\n").rsplit(b"\n", 1)[-1].endswith(b" " + message.encode("utf-8", "replace")):
            return
    except OSError:
        pass
    log_problem(root, agent, message)


def log_problem(root: str, agent: str, message: str) -> None:
    """One line in ``hook-errors.log``; if even that fails, give up silently."""
    try:
        store.make_private_dirs(root)
        path = os.path.join(root, store.DIAGNOSTICS_LOG)
        try:
            if os.path.getsize(path) > DIAGNOSTICS_MAX:
                os.replace(path, path + ".1")  # keep one old generation, bounded
        except OSError:
            pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        line = f"{stamp} agent={agent or '?'} pid={os.getpid()} {message}\n"
        store.append_line(path, line.encode("utf-8", "replace"))
    except Exception:  # noqa: BLE001 - the diagnostics log is best effort by design
        return
