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
from typing import Iterable

#: beyond this many entries the census is not worth it (and may be a hostile tree)
MAX_ENTRIES = 400_000
#: symlinked directories are followed (discovery follows them) but never twice
_MAX_DEPTH = 24


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
    facts: list[tuple] = []
    seen: set[tuple[int, int]] = set()
    for path in paths:
        try:
            info = os.stat(path)
        except FileNotFoundError:
            facts.append((path, "missing"))
            continue
        except OSError:
            return None
        facts.append((path, info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev))
        if info.st_mode & 0o170000 == 0o040000 and not _walk(path, facts, seen, 0):
            return None
    if len(facts) > MAX_ENTRIES:
        return None
    return hashlib.blake2b(repr(facts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def _walk(directory: str, facts: list[tuple], seen: set[tuple[int, int]], depth: int) -> bool:
    """Adds ``directory``'s entries and recurses into its directories; ``False``: incomplete."""
    if depth > _MAX_DEPTH or len(facts) > MAX_ENTRIES:
        return False
    append = facts.append
    try:
        info = os.stat(directory)
        identity = (info.st_dev, info.st_ino)
        if identity in seen:
            append((directory, "loop"))
            return True
        seen.add(identity)
        append((directory,))
        subdirs = []
        with os.scandir(directory) as listing:
            for entry in listing:
                try:
                    info = entry.stat()
                except OSError:
                    # A dangling link or a file gone since the listing: its absence is the fact.
                    append((entry.name, "gone"))
                    continue
                append((entry.name, info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino))
                if info.st_mode & 0o170000 == 0o040000:
                    subdirs.append(entry.path)
    except OSError:
        return False
    return all(_walk(subdir, facts, seen, depth + 1) for subdir in subdirs)
