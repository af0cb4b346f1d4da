"""A fork's own part: the lines after the copy of its parent's history it begins with.

A fork (``forked_from_id``, no spawn) is a session of its own whose rollout starts with a
copy of its parent's history.  Its tokens and model leave the copied calls out
(``usage``'s rule 4); its counts, its title and ``show``'s conversation leave the copied
lines out by the same rule, never a second one (``FileUsageScanner``): the own part
starts at the thread's first ``task_started`` not older than the thread (the line that
tells the copy's end by a turn marker), or at the turn or prompt written before it after
the last copied call (0.146 writes a turn's ``turn_context`` and prompt first); else, once the copied calls are told (the parent's
own calls up to the fork, else those dated before the thread, else the leading burst),
at the first turn (``turn_context``) or prompt after the last copied call: the copied
call's own reply lines follow it (0.39 writes a call's ``token_count`` before its items),
and the fork's first turn or prompt begins its own part.  No copied call told: the whole
file is the fork's.

The whole file is read (at most ``runs.MAX_READ_BYTES``: a larger fork's part is not
told, ``None``), once per (path, size, mtime).
"""

from __future__ import annotations

from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from cachetools import LRUCache

from agentscan.context import ScanContext
from agentscan.model import Counts
from agentscan.providers.codex.callscan import FileUsageScanner
from agentscan.providers.codex.messages import PROMPT_KINDS, add_kind, counts_of, line_kind
from agentscan.providers.codex.records import ThreadLink
from agentscan.toolkit.jsonl import iter_json_lines

#: the kinds of line a fork's own part may begin at, after its last copied call
_STARTS = frozenset({"turn", *PROMPT_KINDS})
_CACHE: LRUCache[tuple[str, int, int, str, str], ForkPart] = LRUCache(maxsize=256)


class ForkPart(NamedTuple):
    """Where a fork's own part starts and what each part counts (a named tuple: see
    ``cli.term.Terminal``)."""

    start: int  # the offset of the own part's first line (0: the whole file is the fork's)
    counts: Counts  # the own part's, counted as a row counts a rollout's lines (``messages``)
    copied: Counts  # the copied history's
    parent: str  # the thread it was forked from


def is_fork(link: ThreadLink) -> bool:
    """A fork of a session, a session of its own (not a subagent spawned with its parent's context)."""
    return link.forked_from is not None and link.spawn_parent is None and not link.subagent


def fork_part(path: Path, ctx: ScanContext, link: ThreadLink, started: datetime | None,
              thread_id: str) -> ForkPart | None:
    """``path``'s own part, when the thread is a fork (``is_fork``) and the file no larger than
    ``runs.MAX_READ_BYTES``; else ``None``."""
    from agentscan.providers.codex.runs import MAX_READ_BYTES

    parent = link.forked_from
    if parent is None or not is_fork(link):
        return None
    stat = ctx.stat(path)
    if stat is None or stat.st_size > MAX_READ_BYTES:
        return None
    key = (str(path), stat.st_size, stat.st_mtime_ns, thread_id, parent)
    found = _CACHE.get(key)
    if found is None:
        found = _CACHE[key] = _read(path, ctx, started, thread_id, parent)
    return found


def _read(path: Path, ctx: ScanContext, started: datetime | None, thread_id: str, parent: str) -> ForkPart:
    from agentscan.providers.codex.usage import parent_events

    scanner = FileUsageScanner(replay=True, started=started, thread_id=thread_id)
    kinds: list[tuple[int, str]] = []  # each counted line's offset and kind
    calls: list[int] = []  # the offset of each call's line, in ``scanner.events``' order
    marker: int | None = None
    # What the lines say wrong, the pass that reads them for the row or ``show`` says.
    with ctx.held_warnings(), closing(iter_json_lines(path, ctx)) as lines:
        for line in lines:
            before = len(scanner.events)
            decided = scanner.decided
            scanner.feed(line.record)
            if not decided and scanner.decided:
                marker = line.offset
            if len(scanner.events) > before:
                calls.append(line.offset)
            kind = line_kind(line.record)
            if kind is not None:
                kinds.append((line.offset, kind))
    if marker is not None:
        # Some builds write a turn's ``turn_context`` and prompt before its ``task_started``
        # (0.146's order): the fork's own part starts at the first of them after the last
        # copied call, when one comes before the marker.
        copied_at = [offset for offset in calls if offset < marker]
        start = marker if not copied_at else next(
            (offset for offset, kind in kinds if copied_at[-1] < offset < marker and kind in _STARTS), marker)
    else:
        copied = scanner.copied_calls(lambda: parent_events(parent, ctx))
        if copied == 0:
            start = 0
        else:
            last = calls[copied - 1]
            start = next((offset for offset, kind in kinds if offset > last and kind in _STARTS), 1 << 62)
    return ForkPart(start, _counted(kinds, start, None), _counted(kinds, 0, start), parent)


def _counted(kinds: list[tuple[int, str]], start: int, end: int | None) -> Counts:
    tally: dict[str, int] = {}
    for offset, kind in kinds:
        if offset >= start and (end is None or offset < end):
            add_kind(tally, kind)
    return counts_of(tally)


__all__ = ["ForkPart", "fork_part", "is_fork"]
