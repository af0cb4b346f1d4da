"""A census of a provider's roots: one ``stat`` for every file and directory under them.

Discovery of a heavy user's history (15,000+ sessions) costs far more than
looking at it: grouping subagents with their parents, reading headers,
querying thread indexes, building a ``SessionRef`` per session.  If nothing
under a provider's roots changed since the last run (no file added, removed,
grown, rewritten or replaced, no permission changed), discovery would find
exactly what it found then.  The census says so with one pass of
``os.scandir`` and ``DirEntry.stat`` (the ``git status`` approach), so a
warm run can take the previous discovery from the index (``scan.memo``).

Anything the census cannot vouch for makes it return ``None`` (no memo):
a directory that cannot be listed, a walk larger than ``MAX_ENTRIES``.
"""

from __future__ import annotations

import hashlib
import os
from array import array
from typing import Iterable

#: beyond this many entries the census is not worth it (and may be a hostile tree)
MAX_ENTRIES = 400_000
#: symlinked directories are followed (discovery follows them) but never twice
_MAX_DEPTH = 24
#: the mode column of a real directory's entry (no stat is taken for it)
_DIRECTORY = -2


def census(paths: Iterable[str]) -> str | None:
    """A digest of every entry under ``paths`` (files and directories, recursively).

    Each entry contributes its name, mode, size, mtime, ctime and inode (a
    file replaced by ``os.replace`` has another inode; one rewritten in place
    a new ctime); a missing path contributes that it is missing.  ``None``
    when the census cannot be complete.  Entries are taken in the order the
    file system lists them: were that order ever to change for an unchanged
    directory, the digest would differ and the run would merely discover
    afresh (never the other way round).
    """
    digest = hashlib.blake2b(digest_size=16)
    seen: set[tuple[int, int]] = set()
    counted = [0]
    for path in paths:
        try:
            info = os.stat(path)
        except FileNotFoundError:
            digest.update(f"{path}\0missing\n".encode("utf-8", "surrogateescape"))
            continue
        except OSError:
            return None
        digest.update(f"{path}\0{info.st_mode}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\0"
                      f"{info.st_ino}\0{info.st_dev}\n".encode("utf-8", "surrogateescape"))
        if info.st_mode & 0o170000 == 0o040000 and not _walk(path, (info.st_dev, info.st_ino), digest, seen, counted, 0):
            return None
    return digest.hexdigest()


def _walk(directory: str, identity: tuple[int, int], digest, seen: set[tuple[int, int]],  # noqa: ANN001
          counted: list[int], depth: int) -> bool:
    """Adds ``directory``'s entries and recurses into its directories; ``False``: incomplete.

    Per directory, the names go in as one string and the numbers as one
    array: a heavy user's roots hold 25,000 entries in 7,000 directories.
    """
    if depth > _MAX_DEPTH:
        return False
    if identity in seen:
        digest.update(b"\0loop\n")
        return True
    seen.add(identity)
    names: list[str] = []
    numbers: list[int] = []
    subdirs: list[tuple[str, tuple[int, int]]] = []
    try:
        with os.scandir(directory) as listing:
            for entry in listing:
                names.append(entry.name)
                try:
                    if entry.is_dir(follow_symlinks=False):
                        # A real directory is described by what it holds (walked next): its
                        # own stat adds nothing, and the listing already names its inode.
                        numbers.extend((_DIRECTORY, 0, 0, 0, entry.inode()))
                        subdirs.append((entry.path, (identity[0], entry.inode())))
                        continue
                    info = entry.stat()
                except OSError:
                    # A dangling link or a file gone since the listing: its absence is the fact.
                    numbers.extend((-1, -1, -1, -1, -1))
                    continue
                mode = info.st_mode
                numbers.extend((mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino))
                if mode & 0o170000 == 0o040000:  # a symlink to a directory
                    subdirs.append((entry.path, (info.st_dev, info.st_ino)))
    except OSError:
        return False
    counted[0] += len(names)
    if counted[0] > MAX_ENTRIES:
        return False
    digest.update(directory.encode("utf-8", "surrogateescape"))
    digest.update("\0".join(names).encode("utf-8", "surrogateescape"))
    digest.update(array("q", numbers).tobytes())
    return all(_walk(path, ident, digest, seen, counted, depth + 1) for path, ident in subdirs)
