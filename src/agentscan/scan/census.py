"""A census of a provider's roots: one ``stat`` for every file under them.

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

import os
import time
from array import array
from typing import Callable, Iterable, NamedTuple

from agentscan.digests import blake2b
from agentscan.toolkit.paths import is_within

#: beyond this many entries the census is not worth it (and may be a hostile tree)
MAX_ENTRIES = 400_000
#: symlinked directories are followed (discovery follows them) but never twice
_MAX_DEPTH = 24
#: the mode column of a real directory's entry (no stat is taken for it)
_DIRECTORY = -2
_IS_DIR = 0o040000

#: each directory walked -> its entries, in listing order (``census``'s ``listings``)
Listings = dict[str, list[os.DirEntry[str]]]


class Census(NamedTuple):
    digest: str
    #: the newest mtime or ctime of any file seen (ns), but times more than ``skew_ns``
    #: ahead of the clock when the file was seen: a file changed within the file system's
    #: timestamp resolution of the census may change again unseen, and one dated in the
    #: future (a clock's skew, a copied home) must not hide it
    newest_ns: int
    #: the digest of what is there, without sizes and times: names, modes, inodes
    #: (equal shapes and different digests: files changed in place, none came or went)
    shape: str = ""
    #: each directory's (and each named path's) own digest, by path: which of them
    #: changed; ``None`` when a symlinked directory discovery follows was met (walked, or
    #: leading into its own root): a file then has two paths
    dirs: dict[str, bytes] | None = None
    #: how many entries were walked (what discovery will meet: ``scan.aside`` weighs it)
    entries: int = 0


class _Walk:
    __slots__ = ("digest", "shape", "dirs", "linked", "seen", "roots", "entries", "limit", "newest", "skew", "admits",
                 "root", "_root_real", "stats", "listings")

    def __init__(self, admits: Callable[[str], bool] | None, skew: int | None, root: str = "") -> None:
        self.digest = blake2b(digest_size=16)
        self.shape = blake2b(digest_size=16)
        self.dirs: dict[str, bytes] = {}
        self.linked = False
        self.seen: set[tuple[int, int]] = set()
        #: the identities of the roots walked (each subtree of a root is walked apart)
        self.roots: set[tuple[int, int]] = set()
        self.entries = 0
        #: past this many entries the walk gives up (a subtree's: what its root has left)
        self.limit = MAX_ENTRIES
        self.newest = 0
        self.skew = skew
        #: whether a symlinked directory's target may be walked (discovery follows
        #: a symlink only into a provider root: ``ScanContext.admit``)
        self.admits = admits
        #: the root being walked, and its real path once a symlinked directory asks
        self.root = root
        self._root_real: str | None = None
        #: where each entry's stat is kept, by path, when asked (``census``'s ``stats``)
        self.stats: dict[str, os.stat_result | None] | None = None
        #: where each directory's listing is kept, by path, when asked (``census``'s ``listings``)
        self.listings: Listings | None = None

    def in_root(self, real: str) -> bool:
        """Whether ``real`` (a real path) is the root or below it: walked there already."""
        if self._root_real is None:
            self._root_real = os.path.realpath(self.root)
        return is_within(real, self._root_real)


def _note_times(walk: _Walk, times: list[int]) -> None:
    newest = max(times)
    if walk.skew is not None:
        # Against the clock now, not at the walk's start: a file changed during a slow walk counts.
        horizon = time.time_ns() + walk.skew
        if newest > horizon:  # rare: leave the future-dated out
            newest = max((t for t in times if t <= horizon), default=0)
    if newest > walk.newest:
        walk.newest = newest


class Subtree(NamedTuple):
    """A root's subdirectory walked whole (here, or by a helper process: ``scan.stamps``):
    what it adds to the census of the root."""

    digest: bytes
    shape: bytes
    dirs: dict[str, bytes]
    entries: int
    newest: int
    linked: bool
    #: ``False``: it could not be walked whole (the census is then ``None``)
    complete: bool


#: a root's subdirectories ((path, identity), in listing order), the identities of the roots
#: above them and how many entries may still be walked -> each one walked whole
#: (``walk_subtree``), in the same order, up to the first that could not be
SubtreeWalker = Callable[[list[tuple[str, tuple[int, int]]], frozenset[tuple[int, int]], int], list[Subtree]]


def walk_subtree(path: str, identity: tuple[int, int], roots: frozenset[tuple[int, int]],
                 admits: Callable[[str], bool] | None, skew_ns: int | None, budget: int | None = None,
                 stats: dict[str, os.stat_result | None] | None = None, listings: Listings | None = None) -> Subtree:
    """One subdirectory of a root, walked whole as ``census`` walks it, giving up past
    ``budget`` entries (default ``MAX_ENTRIES``); ``stats`` and ``listings`` as ``census``
    takes them."""
    walk = _Walk(admits, skew_ns, os.path.dirname(path))
    walk.limit = MAX_ENTRIES if budget is None else budget
    walk.stats, walk.listings = stats, listings
    walk.seen = set(roots)
    complete = _walk(path, identity, walk, 1)
    return Subtree(walk.digest.digest(), walk.shape.digest(), walk.dirs, walk.entries, walk.newest, walk.linked, complete)


def walk_subtrees(subdirs: list[tuple[str, tuple[int, int]]], roots: frozenset[tuple[int, int]],
                  admits: Callable[[str], bool] | None, skew_ns: int | None, budget: int,
                  stats: dict[str, os.stat_result | None] | None = None,
                  listings: Listings | None = None) -> list[Subtree]:
    """``walk_subtree`` of each, in order, within ``budget`` entries in all: up to the first
    that could not be walked whole (a hostile tree is given up at once, not per subtree)."""
    walked = []
    for path, identity in subdirs:
        subtree = walk_subtree(path, identity, roots, admits, skew_ns, budget, stats, listings)
        walked.append(subtree)
        if not subtree.complete:
            break
        budget -= subtree.entries
    return walked


def census(paths: Iterable[str], *, stat_only: Iterable[str] = (),
           admits: Callable[[str], bool] | None = None, skew_ns: int | None = None,
           walker: SubtreeWalker | None = None, stats: dict[str, os.stat_result | None] | None = None,
           listings: Listings | None = None) -> Census | None:
    """A digest of every entry under ``paths`` (walked whole) and of ``stat_only`` (not walked).

    Each file contributes its name, mode, size, mtime, ctime and inode (a
    file replaced by ``os.replace`` has another inode; one rewritten in place
    a new ctime); a real directory contributes its name and inode, and what
    it holds; a missing path contributes that it is missing.  A symlinked
    directory is walked when ``admits`` its real path and that path is not
    in the root it was met in (else its target's name and stat stand for
    it: a target in the root is walked there anyway).  ``None`` when the census cannot be
    complete.  Entries are taken in the order the file system lists them:
    were that order ever to change for an unchanged directory, the digest
    would differ and the run would merely discover afresh (never the other
    way round).

    Each subdirectory of a root is walked apart (``walk_subtree``) and adds
    its own digests, so that ``walker`` may have some walked elsewhere (a
    helper process) with the same result: a symlink is then known for a loop
    when it leads back to a root or into its own subtree.

    ``stats``: each file's stat (following a symlink, as ``os.stat``) is put
    there by its path, for a discovery about to run to take instead of its own
    (those walked by ``walker`` are not).  ``listings``: likewise each directory's
    entries (``os.DirEntry``, their stats taken) by the path it was walked as, so that
    the discovery lists none of them again: it then finds what this census saw.
    """
    walk = _Walk(admits, skew_ns)
    walk.stats, walk.listings = stats, listings

    def here(subdirs: list[tuple[str, tuple[int, int]]], roots: frozenset[tuple[int, int]], budget: int) -> list[Subtree]:
        return walk_subtrees(subdirs, roots, admits, skew_ns, budget, stats, listings)

    try:
        for path in paths:
            walk.root, walk._root_real = path, None
            info = _stat_path(path, walk)
            if info is not None and info.st_mode & 0o170000 == _IS_DIR and not _walk(
                    path, (info.st_dev, info.st_ino), walk, 0, walker or here):
                return None
        for path in stat_only:
            _stat_path(path, walk)
    except OSError:  # a named path that cannot be looked at
        return None
    return Census(walk.digest.hexdigest(), walk.newest, walk.shape.hexdigest(), None if walk.linked else walk.dirs,
                  walk.entries)


def _stat_path(path: str, walk: _Walk) -> os.stat_result | None:
    """Feeds one named path; ``None``: it is missing (raises ``OSError``: it cannot be looked at)."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        line = f"{path}\0missing\n".encode("utf-8", "surrogateescape")
        walk.digest.update(line)
        walk.shape.update(line)
        walk.dirs[path + "\0"] = line  # not a directory's key: a walked root has both
        return None
    line = (f"{path}\0{info.st_mode}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\0"
            f"{info.st_ino}\0{info.st_dev}\n").encode("utf-8", "surrogateescape")
    walk.digest.update(line)
    walk.shape.update(f"{path}\0{info.st_mode}\0{info.st_ino}\0{info.st_dev}\n".encode("utf-8", "surrogateescape"))
    walk.dirs[path + "\0"] = blake2b(line, digest_size=16).digest()
    if info.st_mode & 0o170000 != _IS_DIR:
        _note_times(walk, [info.st_mtime_ns, info.st_ctime_ns])
    return info


def _walk(directory: str, identity: tuple[int, int], walk: _Walk, depth: int, walker: SubtreeWalker | None = None) -> bool:
    """Adds ``directory``'s entries and recurses into its directories (a root's, through
    ``walker``); ``False``: incomplete.

    Per directory, the names go in as one string and the numbers as one
    array: a heavy user's roots hold 25,000 entries in 7,000 directories.
    """
    if depth > _MAX_DEPTH:
        return False
    if identity in walk.seen:
        # A real directory's identity is its parent's device and its own inode: under a
        # mount point that guess can meet another directory's. Its true stat decides.
        try:
            info = os.stat(directory)
        except OSError:
            return False
        true_identity = (info.st_dev, info.st_ino)
        if true_identity in walk.seen:
            walk.digest.update(b"\0loop\n")
            walk.shape.update(b"\0loop\n")
            return True
        identity = true_identity  # its children inherit the true device
    walk.seen.add(identity)
    names: list[str] = []
    numbers: list[int] = []
    subdirs: list[tuple[str, tuple[int, int]]] = []
    try:
        with os.scandir(directory) as listing:
            entries = list(listing)  # whole first: kept for the discovery when asked (``listings``)
        for entry in entries:
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
            if walk.stats is not None:
                walk.stats[entry.path] = info
            mode = info.st_mode
            numbers.extend((mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino))
            if mode & 0o170000 == _IS_DIR:  # a symlink to a directory
                real = os.path.realpath(entry.path)
                if walk.in_root(real):
                    # Its files are walked where they are (a subtree walked apart would
                    # walk them again, once per link); discovery may see them twice.
                    names.append("->" + os.readlink(entry.path))
                    walk.linked = True
                elif walk.admits is None or walk.admits(real):
                    subdirs.append((entry.path, (info.st_dev, info.st_ino)))
                    walk.linked = True
                else:
                    names.append("->" + os.readlink(entry.path))  # discovery will not go there
    except OSError:
        return False
    if walk.listings is not None:
        walk.listings[directory] = entries  # whole: a listing that failed is not kept
    walk.entries += len(names)
    if walk.entries > walk.limit:
        return False
    packed = array("q", numbers)
    # Only a newer time can move ``newest``: when no number of the directory (times, sizes,
    # modes, inodes) is above it, no time is; one C pass rather than two slices (5,000 directories).
    if numbers and max(packed) > walk.newest:
        _note_times(walk, numbers[2::5] + numbers[3::5])
    listed = directory.encode("utf-8", "surrogateescape") + b"\0" + "\0".join(names).encode("utf-8", "surrogateescape")
    mine = blake2b(listed, digest_size=16)
    mine.update(packed)
    own = mine.digest()
    walk.dirs[directory] = own
    walk.digest.update(own)
    walk.shape.update(listed)
    walk.shape.update(packed[0::5])  # modes
    walk.shape.update(packed[4::5])  # inodes
    if walker is not None:
        # The roots walked so far: a link back to one of them is a loop, in any subtree.
        walk.roots.add(identity)
        for subtree in walker(subdirs, frozenset(walk.roots), walk.limit - walk.entries):
            if not subtree.complete:
                return False
            walk.digest.update(subtree.digest)
            walk.shape.update(subtree.shape)
            walk.dirs.update(subtree.dirs)
            walk.entries += subtree.entries
            walk.newest = max(walk.newest, subtree.newest)
            walk.linked = walk.linked or subtree.linked
        return walk.entries <= MAX_ENTRIES
    for path, ident in subdirs:
        if not _walk(path, ident, walk, depth + 1):
            return False
    return True
