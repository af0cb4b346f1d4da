"""The threads a fork's copied history came through, when its parent is gone.

A fork's rollout begins with its own ``session_meta``, then the copy of its parent's
history, which begins with the parent's own ``session_meta`` (Codex copies a rollout's
items, metas included), and so on up the chain: C forked from B, forked from A, begins
with C's meta, B's (``forked_from_id`` A), A's, then A's lines, B's, C's.  With B gone,
C's copy is the only record of B's calls, but those it copied from A are A's, counted in
A when A is found (``usage``'s rule 4): the nearest thread of the chain that is found
(``nearest_found``) holds the calls up to where the next thread forked from it, which
``goneparent`` leaves out of C's count as it leaves out an earlier fork's.  A gone thread
the copy came through may have other forks on disk: A gone too, with E an earlier fork of A
than B, A's calls C's copy holds count in E (``goneparent``'s rule among forks of one gone
parent), so the walk also tells, for each gone thread past the parent, the thread it was
copied through and that thread's start (``Ancestry.passed``), from the copied metas.

Only the leading ``session_meta`` lines are read (a few, each up to
``header.META_LINE_BYTES``), remembered across runs until the file changes; only a fork
whose parent is gone asks.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import orjson

from agentscan.context import ScanContext
from agentscan.providers.codex.header import HEADER_BYTES, META_LINE_BYTES, meta_of
from agentscan.providers.codex.records import as_dict, as_str, link_of, time_value
from agentscan.toolkit import laxjson
from agentscan.toolkit.jsonl import BOM, HEAD_BUFFER, open_binary

if TYPE_CHECKING:
    from agentscan.providers.codex.discovery import Thread

#: the ``session_meta`` lines read at most (a chain of forks this deep is told, no deeper)
MAX_METAS = 16
#: ``ctx.remembered``: a rollout's leading metas' [[id, forked_from_id, start], …]
_FACTS = "codex.copied_metas/2"


class Ancestry(NamedTuple):
    """The chain a gone parent's copy names, and the nearest thread of it found."""

    #: the thread ids walked past the gone parent, nearest first, each found or not
    walked: tuple[tuple[str, bool], ...]
    found: Thread | None  # the nearest found (its calls count there), else ``None``
    #: each gone thread walked past, with the thread copied from it that the walk came
    #: through and that one's start (``None``: unknown), nearest first
    passed: tuple[tuple[str, str, datetime | None], ...] = ()


def copied_links(path: Path, ctx: ScanContext, stat: os.stat_result) -> dict[str, tuple[str | None, datetime | None]]:
    """Each leading ``session_meta`` of ``path`` by its id (lower-cased): the thread it names
    as forked from (lower-cased), else ``None``, and its start, else ``None``."""
    facts = ctx.remembered(_FACTS)
    triples = facts.get(str(path), stat)
    if not (isinstance(triples, list) and all(isinstance(one, list) and len(one) == 3 for one in triples)):
        try:
            triples = _read(path)
        except Exception:  # noqa: BLE001 - OSError, a corrupt zstd frame: the passes that read it say so
            return {}
        facts.put(str(path), stat, triples)
    return {str(one): (str(two) if isinstance(two, str) else None, time_value(three))
            for one, two, three in triples if isinstance(one, str)}


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
                record = laxjson.loads(line)
            except orjson.JSONDecodeError:
                record = None
            meta = meta_of(record)
            if meta is None:
                other += len(line)
                continue
            thread_id = as_str(meta.get("id")) or as_str(meta.get("session_id"))
            forked = link_of(meta).forked_from
            # (as a header's start: its meta's time, else its line's, which a copy may rewrite)
            started = time_value(meta.get("timestamp")) or time_value(as_dict(record).get("timestamp"))
            if thread_id is not None:
                pairs.append([thread_id.lower(), forked.lower() if forked else None,
                              started.isoformat() if started else None])
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
    passed: list[tuple[str, str, datetime | None]] = []
    seen = {thread.thread_id.lower(), parent.lower()}
    child = parent.lower()  # the thread copied from ``current``, which the walk came through
    current = links.get(child, (None, None))[0]
    while current is not None and current not in seen:
        seen.add(current)
        found = threads.get(current)  # (discovery's ids are lower-cased, as file names have them)
        walked.append((current, found is not None))
        if found is not None:
            return Ancestry(tuple(walked), found, tuple(passed))
        passed.append((current, child, links[child][1]))
        child, current = current, links.get(current, (None, None))[0]
    return Ancestry(tuple(walked), None, tuple(passed))


__all__ = ["Ancestry", "copied_links", "nearest_found"]
