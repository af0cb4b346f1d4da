"""Which thread-index rows name a rollout discovery takes for their thread.

Discovery walks the rollouts; a row of the thread index (``state_*.sqlite``) whose thread
no walked file is of names its rollout in ``rollout_path``.  The index is another
program's cache, so that path is not trusted: it is taken only when it resolves inside the
session roots (``Confinement``), is a file, and is that thread's: its name's uuid is the
row's id, or its own ``session_meta`` is (a later segment of a paginated thread, named for
its own rollout id, whose meta names the thread).  A row naming another thread's rollout
(a stale or damaged index) made a phantom session of that rollout, its calls counted twice:
it is ignored, and said (``doctor`` counts them too).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Collection, NamedTuple

from agentscan.context import ScanContext
from agentscan.providers.codex.header import read_header
from agentscan.providers.codex.index import IndexRow, ThreadIndex
from agentscan.toolkit.paths import is_within
from agentscan.toolkit.roots import Root

#: a rollout's file name, and the thread id it carries
ROLLOUT_NAME = re.compile(
    r"^rollout-.*?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(?:\.zst)?$", re.IGNORECASE
)


class Confinement:
    """Whether a path from the thread index names a file inside the session roots.

    The index is another program's cache, so its paths are not trusted: only
    one that resolves (symlinks followed) under ``sessions/`` or
    ``archived_sessions/`` of a Codex home may be opened.
    """

    def __init__(self, roots: list[Root]) -> None:
        self._roots = [os.path.realpath(root.path) for root in roots]

    def __call__(self, path: Path) -> bool:
        try:
            target = os.path.realpath(path)
        except (OSError, ValueError):
            return False
        return any(target != root and is_within(target, root) for root in self._roots)


class IndexPaths(NamedTuple):
    """What ``index_paths`` found (a named tuple: see ``cli.term.Terminal``)."""

    taken: dict[str, Path]  # thread id -> the rollout its row names, taken
    orphans: int = 0  # rows whose rollout is gone
    outside: int = 0  # rows whose rollout_path leads out of the session roots
    foreign: int = 0  # rows whose rollout_path names another thread's rollout


def index_paths(index: ThreadIndex, walked: Collection[str], walked_paths: Collection[Path],
                roots: list[Root], ctx: ScanContext) -> IndexPaths:
    """The rollouts of the index's rows whose thread no walked file is of (``walked``: their
    ids; ``walked_paths``: their files), and how many rows were not taken, and why (said)."""
    taken: dict[str, Path] = {}
    orphans = outside = foreign = 0
    inside = Confinement(roots)
    for thread_id, row in index.rows.items():
        if thread_id in walked or thread_id.lower() in walked:  # (file names' ids are lower-cased)
            continue
        path = row.rollout_path
        if path is not None and not inside(path):
            outside += 1  # /proc/self/environ, /proc/kmsg, a FIFO elsewhere: never opened
        elif path is None or not os.path.isfile(path):
            orphans += 1
        elif _of_thread(row, path, walked_paths, ctx):
            taken[thread_id] = path
        else:
            foreign += 1
    where = index.databases[0] if len(index.databases) == 1 else "thread index"
    # The count after the kind (doctor counts warnings by what precedes the colon: "1 × 1 …").
    if outside:
        ctx.warn(where, f"thread index rows point outside CODEX_HOME, their files not opened: "
                        f"{outside:,} {'row' if outside == 1 else 'rows'}")
    if foreign:
        ctx.warn(where, f"thread index rows name another thread's rollout, ignored: "
                        f"{foreign:,} {'row' if foreign == 1 else 'rows'}")
    return IndexPaths(taken, orphans, outside, foreign)


def _of_thread(row: IndexRow, path: Path, walked_paths: Collection[Path], ctx: ScanContext) -> bool:
    """Whether ``path`` is the rollout of ``row``'s thread: named for it, or its own meta is
    (read quietly: what the file lacks, its own thread's passes say), and not the file of
    another thread discovery walked, unless a later segment of this one."""
    thread_id = row.thread_id.lower()
    named = ROLLOUT_NAME.match(path.name)
    if named is not None and named.group(1).lower() == thread_id:
        return True
    # Read for the id its name carries, as discovery reads it (a header is kept per file, for
    # one id: another would be kept for discovery's read, which would find no meta of its own).
    header = read_header(path, ctx, named.group(1).lower() if named else None, ctx.stat(path), quiet=True)
    if header.thread_id is None or header.thread_id.lower() != thread_id:
        return False
    return header.history_base is not None or path not in walked_paths


