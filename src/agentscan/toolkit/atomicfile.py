"""The one way agentscan replaces a file it writes whole: a temp file in the same
directory, fsynced, renamed over the file, the rename made durable.

Readers see the old file or the new one, never half of one; a failure leaves the
old one as it was.  Used by the exports (JSON Lines, CSV, OTLP), the price data
an update fetches, and the agent configs ``hooks install`` changes.
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
from pathlib import Path
from typing import Callable


def atomic_write(path: Path, write: Callable[[io.BufferedWriter], object], before_rename: Callable[[], None] | None = None,
                 *, mode: int | None = None) -> None:
    """Write via a temp file in the same dir, fsync, then rename over ``path``.

    A ``path`` that is a symlink (an export kept in a synced folder, a config a dotfile
    manager links) is written through: its target is replaced and the link stays.  So is
    one that is no regular file (a FIFO a reader waits on, ``/dev/null``, ``/dev/stdout``):
    written into, never renamed over (a root cron job would have replaced ``/dev/null``
    with a file).  ``mode``: the new file's (else the mode of the file it replaces, which
    its owner chose; else the temp file's 0600); ``before_rename``: a last check, which
    may raise to leave ``path`` as it is.
    """
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    try:
        found = os.stat(path)
    except OSError:
        found = None
    if found is not None and not stat.S_ISREG(found.st_mode) and not stat.S_ISDIR(found.st_mode):
        with open(path, "wb") as handle:
            write(handle)
        return
    if mode is None and found is not None and stat.S_ISREG(found.st_mode):
        mode = stat.S_IMODE(found.st_mode)
    directory = path.parent
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        if before_rename is not None:
            before_rename()
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)  # make the rename itself durable
    except OSError:
        pass
    finally:
        os.close(dir_fd)
