"""One rule for every file agentscan writes: only its owner may read it.

Exports, the cache, hook events, the live-export counters and every lock
file hold titles, prompts or paths, so each is created ``0600`` (each
directory agentscan creates, ``0700``, parents included), whatever the
umask.  An export that exists already keeps its mode and group (through a symlink, the
mode of the file it leads to), replaced (``toolkit.atomicfile``) or updated in
place (SQLite, with its ``-wal``/``-shm``): its owner chose it (a team share,
a dashboard running as another user); ``atomicfile.output_target`` refuses one
another user could have planted.  Documented in docs/security.md.
Stdlib only: the hook imports it.
"""

from __future__ import annotations

import os

FILE_MODE = 0o600
DIR_MODE = 0o700


def create_private(path: str | os.PathLike[str]) -> None:
    """Create ``path`` empty with ``FILE_MODE`` if it does not exist; one that exists keeps its mode.

    For files another library opens by name (SQLite): it would create them
    with the umask's mode.  SQLite gives its ``-wal``/``-shm`` the mode of
    the database, so those follow.
    """
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), FILE_MODE))
    except FileExistsError:
        pass


def open_private(path: str | os.PathLike[str], flags: int = os.O_WRONLY | os.O_CREAT | os.O_TRUNC) -> int:
    """``os.open`` for writing, creating with ``FILE_MODE``; never through a link (``OSError``):
    each caller writes a file of its own in agentscan's data folder, whose temp names
    (``<name>.<pid>.tmp``) can be guessed, and an existing ``AGENTSCAN_DATA_DIR`` keeps its
    mode: a link another user planted there would have this run truncate the file it names."""
    return os.open(path, flags | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)


def make_private_dirs(directory: str | os.PathLike[str]) -> None:
    """Create ``directory`` and any missing parents, each ``DIR_MODE`` whatever the umask.

    Only what agentscan creates is chmodded: an existing directory (a shared
    ``AGENTSCAN_CACHE_DIR``, ``~/.cache``) keeps its mode.
    """
    missing = []
    current = os.path.abspath(directory)
    while not os.path.isdir(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    for path in reversed(missing):
        try:
            os.mkdir(path, DIR_MODE)
        except FileExistsError:
            continue  # made meanwhile by another process: not ours to chmod
        os.chmod(path, DIR_MODE)  # mkdir's mode is masked by the umask
