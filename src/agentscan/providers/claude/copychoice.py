"""Which of a Claude transcript's copies is read when one session's (or subagent's) file is
found under more than one root (``~/.claude`` and ``~/.config/claude``, ``CLAUDE_CONFIG_DIR``
naming several) or in more than one project folder of a root: docs/providers/claude.md,
"A session found under two roots".

Every copy is collected first and chosen among at once, so the choice does not depend on the
order of the roots: each copy that another holds (one the start of another: a stale
snapshot) is left out; among the rest, the fresher is read, and each other one left out is
said, naming the one counted (its calls only in it are not).  Compared two at a time before,
a third copy could turn the answer with the order, and lose calls silently.

A copy made by ``cp -a`` or ``rsync -a`` keeps its size and modification time: two such copies
are taken as the same without a read.  How two others stand is remembered by both files'
stamps (``ScanContext.remembered``), so a warm run re-reads only a pair one file of which
changed: a home whose every session is under two roots was read whole by every discovery.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Generic, NamedTuple, TypeVar

from agentscan.context import ScanContext, stat_stamp
from agentscan.toolkit.appendcopies import DIFFERENT, FLIPPED, LONGER, SAME, SHORTER, compare_copies

T = TypeVar("T")

#: ``ScanContext.remembered`` kind: how a copy stands to the other copies of its file, by
#: their paths (the pair's first by path holds it), each with the other's stamp then
_FACTS = "claude.copies/1"
_FLIPPED = FLIPPED


class Copy(NamedTuple, Generic[T]):
    """One copy found: its path as a string, what discovery keeps of it, and its stat."""

    path: str
    item: T
    stat: os.stat_result


def choose(copies: list[Copy[T]], ctx: ScanContext) -> Copy[T]:
    """The copy read among ``copies`` (found in the roots' order, two or more)."""
    distinct: list[Copy[T]] = []
    files: set[tuple[int, int]] = set()
    for copy in copies:  # one file reached twice (a linked project folder): its first path
        identity = (copy.stat.st_dev, copy.stat.st_ino)
        # (``DirEntry.stat()`` on Windows leaves ``st_ino`` 0: no identity, every copy compared)
        if copy.stat.st_ino == 0 or identity not in files:
            files.add(identity)
            distinct.append(copy)
    held: set[int] = set()
    relations: dict[tuple[int, int], int | None] = {}
    for at, one in enumerate(distinct):
        for other_at in range(at + 1, len(distinct)):
            relation = relations[at, other_at] = _relation(one, distinct[other_at], ctx)
            if relation == SHORTER:
                held.add(at)
            elif relation == LONGER:
                held.add(other_at)
            elif relation == SAME:  # (the same bytes: the staler one is left, as it was)
                held.add(at if _fresher(distinct[other_at], one) else other_at)
    rest = [at for at in range(len(distinct)) if at not in held]
    kept = rest[0] if rest else 0  # (never empty: the largest, freshest copy is held by none)
    for at in rest[1:]:
        if _fresher(distinct[at], distinct[kept]):
            kept = at
    for at in rest:
        if at != kept and relations[min(at, kept), max(at, kept)] == DIFFERENT:
            ctx.warn(Path(distinct[at].path), "differs from another copy of its session in another folder, which "
                                              f"is counted instead (calls only in this copy are not): {distinct[kept].path}")
    return distinct[kept]


def _fresher(one: Copy[T], than: Copy[T]) -> bool:
    return one.stat.st_mtime > than.stat.st_mtime


def _relation(one: Copy[T], other: Copy[T], ctx: ScanContext) -> int | None:
    """How ``one`` stands to ``other`` (``appendcopies``); ``None``: one cannot be read."""
    if (one.stat.st_size, one.stat.st_mtime_ns) == (other.stat.st_size, other.stat.st_mtime_ns):
        return SAME  # (a copy that kept its size and time: ``cp -a``, ``rsync -a``)
    first, second = (one, other) if one.path <= other.path else (other, one)
    facts = ctx.remembered(_FACTS)
    known = facts.get(first.path, first.stat)
    known = known if isinstance(known, dict) else {}
    seen = known.get(second.path)
    if isinstance(seen, list) and len(seen) == 2 and seen[0] == stat_stamp(second.stat) and seen[1] in _FLIPPED:
        relation: int | None = seen[1]
    else:
        relation = compare_copies(first.path, second.path)
        if relation is not None:
            facts.put(first.path, first.stat, {**known, second.path: [stat_stamp(second.stat), relation]})
    if relation is None or first is one:
        return relation
    return _FLIPPED[relation]
