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


#: the log's last lines ``log_once`` looks through for its message: two mis-wired hooks taking
#: turns (``--agent gemini`` in Gemini CLI's config, ``--agent codex`` in Codex's) each said
#: theirs on every event while it looked at the last line alone
LOG_ONCE_LINES = 8


def log_once(root: str, agent: str, message: str, recent: int = 1) -> None:
    """``log_problem``, unless one of the log's last lines (``LOG_ONCE_LINES``, or ``recent``
    if more) already says ``message``: a setting that is wrong on every event (a relative
    ``AGENTSCAN_DATA_DIR``, a mistyped argument of the installed command, a hook wired into
    an agent it does not capture) is said once, not thousands of times, which would push the
    real problems out of the bounded log.  ``recent``: how many such lines one event writes
    (one for each unknown argument)."""
    # ``fsutil`` (os, stat, io), not ``toolkit.jsonl``: a mistyped argument brings every event
    # here, and that module imports the scanner's world (orjson, context).
    from agentscan.toolkit.fsutil import read_tail

    said = b" " + _one_line(message).encode("utf-8", "replace")  # (as written)
    recent = max(recent, LOG_ONCE_LINES)
    try:
        tail = read_tail(os.path.join(root, store.DIAGNOSTICS_LOG), 4096 * recent)[0]
        if any(line.endswith(said) for line in tail.rstrip(b"\n").split(b"\n")[-recent:]):
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
        # One line an entry, whatever the message quotes (an argument with a newline in it
        # would write a line of its own, and ``log_once`` would never find it said).
        line = f"{stamp} agent={agent or '?'} pid={os.getpid()} {_one_line(message)}\n"
        store.append_line(path, line.encode("utf-8", "replace"))
    except Exception:  # noqa: BLE001 - the diagnostics log is best effort by design
        return


def _one_line(message: str) -> str:
    """``message`` as a log line holds it: its CR and LF written as ``\\r`` and ``\\n``."""
    return message.replace("\r", "\\r").replace("\n", "\\n")

