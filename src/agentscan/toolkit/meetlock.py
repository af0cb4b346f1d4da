"""The second lock of an export: one every run of this user meets at, whatever its cache.

The lock in agentscan's cache directory (``export.locks``) is found through
``AGENTSCAN_CACHE_DIR``: a cron job and a shell that set it apart took two locks of one
output, and the slower run's older scan, written after the newer one's, marked a session
that had just appeared gone.  This one is named after the output as that one is
(``meet-<hash>.lock``), in ``/tmp/agentscan-<uid>/locks``
(``locks.meeting_path``, with ``locks.fallback_dir``'s checks: a folder of this user's that no one else may enter), and
in ``/tmp`` itself, not ``$TMPDIR``: a macOS shell's ``TMPDIR`` is a folder of its own, which
cron's environment does not name (``AGENTSCAN_LOCK_DIR`` names another folder: ``toolkit.lockdir``).  Nothing is left beside the output.

Best effort, never a failure of its own: no such private folder (another user's, said as a
warning; a read-only ``/tmp``) or no ``flock`` (Windows) leave the cache's lock alone.  Runs of one output
as two users, or under systemd's ``PrivateTmp`` (unless both name one ``AGENTSCAN_LOCK_DIR``), do
not meet here (docs/cron.md).

``flock``, not ``fcntl``'s POSIX locks, which are the process's and would be dropped when
any of its descriptors of the file closed.  The file is removed as the run ends, still
held: a file per output ever exported piled up in ``/tmp``.  A run that waited on it
then holds a file no longer at that name, and a third could take a new one: so each run,
once it has the lock, checks that its file is still the one the name leads to, and opens
the name again when it is not.

An earlier agentscan (before ``meet-`` files) met at ``export-<hash>.lock`` in the same
folder, a file it kept, and waited on the file it had opened.  A run takes that one too, before its own, when it is there
(``legacy``): a cron job of an older install, still running through an upgrade in place,
and a run of this one then wait for each other.  It is never made (an older run makes it as
it starts) nor removed (an older run waiting on it would not open the name again).
"""

from __future__ import annotations

import os
import stat
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from agentscan.filemodes import open_private

#: seconds between two tries of a lock held by another run
_POLL = 0.05
#: where every run of this user meets (``TMPDIR`` varies between a shell and cron)
MEETING_BASE = "/tmp"


class MeetingBusy(Exception):
    """Another run held the meeting lock past the timeout (its path, the message)."""


def _open(lock: Path, create: bool = True) -> int | None:
    """The lock file opened (made 0600 unless ``create`` is false), or ``None`` when it cannot
    be used (or, not to be created, is not there)."""
    try:
        fd = open_private(lock, os.O_RDWR | (os.O_CREAT if create else 0))
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


@contextmanager
def meeting_lock(lock: Path | None, timeout: float, *, legacy: bool = False) -> Iterator[Path | None]:
    """Hold ``lock`` (``locks.meeting_path``): its path, or ``None`` when it is left to the
    cache's lock alone; ``MeetingBusy`` when another run held it ``timeout`` seconds.

    ``legacy``: the name an older agentscan met at (``locks.legacy_meeting_path``), taken only
    when there (never made: a file per output would pile up again) and never removed (an older
    run waits on the file it opened, and would hold it alongside a run that made it anew)."""
    try:
        import fcntl
    except ImportError:  # Windows
        yield None
        return
    fd = _open(lock, create=not legacy) if lock is not None else None
    if lock is None or fd is None:
        yield None
        return
    held: Path | None = None  # (set once the lock is this run's: only then is its file removed)
    try:
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise MeetingBusy(str(lock)) from None
                time.sleep(_POLL)
                continue
            except OSError:  # a file system without flock
                break
            if legacy or _same_file(fd, lock):
                held = lock
                break
            # The run it waited for removed the file as it ended: the name's file now.
            os.close(fd)
            fd = _open(lock)
            if fd is None:
                break
        yield held
    finally:
        if fd is not None:
            if held is not None and not legacy:
                try:
                    os.unlink(lock)  # while held: a run waiting on it opens the name again
                except OSError:
                    pass
            os.close(fd)  # (releases the lock)


def _same_file(fd: int, lock: Path) -> bool:
    """Whether ``lock`` names the file ``fd`` has open (not removed, nor made anew since)."""
    try:
        named = os.lstat(lock)
    except OSError:
        return False
    return os.path.samestat(named, os.fstat(fd))
