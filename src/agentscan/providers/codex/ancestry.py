"""The threads a fork's copied history came through, when its parent is gone.

A fork's rollout begins with its own ``session_meta``, then the copy of its parent's
history, which begins with the parent's own ``session_meta`` (Codex copies a rollout's
items, metas included), and so on up the chain: C forked from B, forked from A, begins
with C's meta, B's (``forked_from_id`` A), A's, then A's lines, B's, C's.  With B gone,
C's copy is the only record of B's calls, but those it copied from A are A's, counted in
A when A is found (``usage``'s rule 4): the nearest thread of the chain that is found
(``nearest_found``) holds the calls up to where the next thread forked from it, which
``goneparent`` leaves out of C's count as it leaves out an earlier fork's.

Only the leading ``session_meta`` lines are read (a few, each up to
``header.META_LINE_BYTES``), remembered across runs until the file changes; only a fork
whose parent is gone asks.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import orjson

from agentscan.context import ScanContext
from agentscan.providers.codex.header import HEADER_BYTES, META_LINE_BYTES, meta_of
from agentscan.providers.codex.records import as_str, link_of
from agentscan.toolkit import laxjson
from agentscan.toolkit.jsonl import BOM, HEAD_BUFFER, open_binary

if TYPE_CHECKING:
    from agentscan.providers.codex.discovery import Thread

#: the ``session_meta`` lines read at most (a chain of forks this deep is told, no deeper)
MAX_METAS = 16
#: ``ctx.remembered``: a rollout's leading metas' [[id, forked_from_id], …]
_FACTS = "codex.copied_metas/1"


class Ancestry(NamedTuple):
    """The chain a gone parent's copy names, and the nearest thread of it found."""

    #: the thread ids walked past the gone parent, nearest first, each found or not
    walked: tuple[tuple[str, bool], ...]
    found: Thread | None  # the nearest found (its calls count there), else ``None``


def copied_links(path: Path, ctx: ScanContext, stat: os.stat_result) -> dict[str, str | None]:
    """Each leading ``session_meta`` of ``path`` by its id (lower-cased): the thread it names
    as forked from (lower-cased), else ``None``."""
    facts = ctx.remembered(_FACTS)
    pairs = facts.get(str(path), stat)
    if not (isinstance(pairs, list) and all(isinstance(pair, list) and len(pair) == 2 for pair in pairs)):
        try:
            pairs = _read(path)
        except Exception:  # noqa: BLE001 - OSError, a corrupt zstd frame: the passes that read it say so
            return {}
        facts.put(str(path), stat, pairs)
    return {str(one): (str(two) if isinstance(two, str) else None) for one, two in pairs if isinstance(one, str)}


def _read(path: Path) -> list[list[str | None]]:
    pairs: list[list[str | None]] = []
    other = 0  # bytes of lines that were no meta (a build may write some among them)
    with open_binary(path, HEAD_BUFFER) as handle:
        while len(pairs) < MAX_METAS and other < HEADER_BYTES:
            line = handle.readline(META_LINE_BYTES)
            if not line:
                break
            if not pairs and line.startswith(BOM):
                line = line[len(BOM):]
            try:
                meta = meta_of(laxjson.loads(line))
            except orjson.JSONDecodeError:
                meta = None
            if meta is None:
                other += len(line)
                continue
            thread_id = as_str(meta.get("id")) or as_str(meta.get("session_id"))
            forked = link_of(meta).forked_from
            if thread_id is not None:
                pairs.append([thread_id.lower(), forked.lower() if forked else None])
    return pairs


def nearest_found(thread: Thread, parent: str, ctx: ScanContext) -> Ancestry:
    """Past ``thread``'s gone ``parent``, the threads its copy's metas name, up to the nearest
    found (``Ancestry``); none when the copy names none (an older build's meta names no
    ``forked_from_id``)."""
    from agentscan.providers.codex.discovery import discover

    path = thread.rollout.path
    stat = ctx.stat(path)
    links = copied_links(path, ctx, stat) if stat is not None else {}
    threads = discover(ctx).threads
    walked: list[tuple[str, bool]] = []
    seen = {thread.thread_id.lower(), parent.lower()}
    current = links.get(parent.lower())
    while current is not None and current not in seen:
        seen.add(current)
        found = threads.get(current)  # (discovery's ids are lower-cased, as file names have them)
        walked.append((current, found is not None))
        if found is not None:
            return Ancestry(tuple(walked), found)
        current = links.get(current)
    return Ancestry(tuple(walked), None)


__all__ = ["Ancestry", "copied_links", "nearest_found"]
