"""The cache's ``locks/`` folder kept small: one ``export-<hash>.lock`` per output ever
exported piled up there (a nightly ``-o sessions-$(date +%F).csv`` adds one a day, for good).

filelock's file must stay while it is in use: a run that opened it and waits may not lose it
to a new file of the same name.  So only a file no export has taken for ``STALE_S`` is removed,
and only while this run holds it (``flock``, not waiting): a run that opens it meanwhile
waits, then finds the name gone or new (filelock opens the name again at each try, and since
4.x also checks its file was not removed before taking it), and the meeting lock
(``toolkit.meetlock``) still keeps overlapping runs of one output apart.  Each run marks its own
file as used (its time), as it takes it."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

#: a lock file not taken for this long is removed (seconds: a week)
STALE_S = 7 * 86_400
#: at most this many removed by one run (the first run after an upgrade may find thousands)
MOST = 500
_NAME = re.compile(r"export-[0-9a-f]{32}\.lock")


def mark_used(lock: Path) -> None:
    """Its time set to now: the file is in use (``prune`` keeps it)."""
    try:
        # (Never through a link: the file is opened so too.)
        os.utime(lock, follow_symlinks=os.utime not in os.supports_follow_symlinks)
    except (OSError, NotImplementedError):
        pass


def prune(folder: Path, own: Path, now: float | None = None) -> int:
    """Remove the lock files in ``folder`` (the cache's ``locks/``) that no export took for
    ``STALE_S``, ``own`` aside; how many.  Best effort: nothing here fails an export."""
    try:
        import fcntl
    except ImportError:  # Windows: filelock removes its file itself there
        return 0
    from agentscan.toolkit.fsutil import stale_own_files

    cutoff = (time.time() if now is None else now) - STALE_S
    removed = 0
    for path, found in stale_own_files(folder, _NAME, cutoff):
        if removed >= MOST:
            break
        if path.name != own.name:
            removed += _remove_if_free(path, found, fcntl)
    return removed


def _remove_if_free(path: Path, found: os.stat_result, fcntl) -> int:  # noqa: ANN001 - the module
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return 0
    try:
        mine = os.fstat(fd)
        if not os.path.samestat(mine, found):
            return 0  # replaced since it was listed
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return 0  # held: a run is using it
        try:
            now = os.lstat(path)
        except OSError:
            return 0
        if not os.path.samestat(now, mine) or now.st_mtime != found.st_mtime:
            return 0  # taken (and marked used) since it was listed
        os.unlink(path)  # while held
        return 1
    except OSError:
        return 0
    finally:
        os.close(fd)  # (releases the lock)
