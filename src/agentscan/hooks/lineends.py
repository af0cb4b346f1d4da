"""Whether an events file ends mid-line, looked at under a lock (``store.append_line``): a
hook stopped while appending (a full disk cut its write short, or it was killed) leaves the
start of a line, and the next event must start a line of its own, not be glued to it.
Stdlib only: the hook's hot path imports it.
"""

from __future__ import annotations

import os

#: the longest a hook waits for the lock another hook holds
WAIT_S = 0.05


def locked(fd: int) -> bool:
    """Take an exclusive ``flock`` on ``fd`` (held until it is closed) within 50 ms; ``False``
    where there is none (Windows), it fails (some network file systems), or another holds it
    that long (a hook stopped mid-append must not hold the agent up): nothing is checked then."""
    try:
        import fcntl
    except ImportError:
        return False
    deadline = None
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            # A deadline, not a count of tries: on a loaded machine each 1 ms sleep lasts far
            # longer, and 50 of them held the agent up to 200 ms and more.
            import time

            now = time.monotonic()
            if deadline is None:
                deadline = now + WAIT_S
            if now >= deadline:
                return False
            time.sleep(min(0.001, deadline - now))
        except OSError:
            return False


def ends_whole(fd: int) -> bool:
    """Whether the file open on ``fd`` is empty or ends in a newline (its last byte read)."""
    try:
        size = os.fstat(fd).st_size
        return not size or os.pread(fd, 1, size - 1) in (b"\n", b"")
    except OSError:
        return True  # cannot tell: append as before
