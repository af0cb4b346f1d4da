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
told, ``None``), once per (path, size, mtime): that read is also the fork's whole pass
(``usage.scan_file``: its tally kept, its scanner handed to the row's and the usage pass's
``scan_file`` of this scan, ``fullcounts.shared_scanner``), and where a turn marker told the copy's end
the part is remembered in agentscan's index (``_FACTS``) while the file is unchanged,
so that a row built again or ``show`` does not read it again for this.
"""

from __future__ import annotations

from contextlib import closing
from datetime import datetime
from os import stat_result
from pathlib import Path
from typing import NamedTuple

from cachetools import LRUCache

from agentscan.context import Told, ScanContext
from agentscan.model import Counts
from agentscan.providers.codex.callscan import FileUsageScanner
from agentscan.providers.codex.fullcounts import keep_scanner, remember, wants_tally
from agentscan.providers.codex.messages import PROMPT_KINDS, add_kind, counts_of, line_kind
from agentscan.providers.codex.records import ThreadLink
from agentscan.toolkit.jsonl import ReadProgress, iter_json_lines

#: the kinds of line a fork's own part may begin at, after its last copied call
_STARTS = frozenset({"turn", *PROMPT_KINDS})
_CACHE: LRUCache[tuple[str, int, int, str, str], ForkPart] = LRUCache(maxsize=256)
#: the facts kind of a fork's part told by a turn marker, in agentscan's index (``ctx.remembered``)
_FACTS = "codex.forkpart/1"


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
        found = _recalled(path, ctx, stat, started, thread_id, parent)
    if found is None:
        found = _read(path, ctx, stat, started, thread_id, parent)
    _CACHE[key] = found
    return found


def _recalled(path: Path, ctx: ScanContext, stat: stat_result, started: datetime | None, thread_id: str,
              parent: str) -> ForkPart | None:
    """The part remembered in agentscan's index of the unchanged file, for this thread and start."""
    fact = ctx.remembered(_FACTS).get(str(path), stat)
    try:
        start, own, copied, known = fact
        if known != [thread_id, parent, started.isoformat() if started else None]:
            return None
        return ForkPart(int(start), Counts(*map(int, own)), Counts(*map(int, copied)), parent)
    except (TypeError, ValueError):  # nothing remembered (``None``), or not what this build keeps
        return None


def _read(path: Path, ctx: ScanContext, stat: stat_result, started: datetime | None, thread_id: str,
          parent: str) -> ForkPart:
    from agentscan.providers.codex.usage import parent_events

    # No ``history_start``: openai/codex writes ``subagent_history_start_ordinal`` in a spawned
    # subagent's meta alone.  A fork's meta names ``forked_from_ordinal_exclusive`` (0.158+), an
    # ordinal of its parent's rollout, whose history it references (``history_base``) and does
    # not copy: no line of the fork's own file is below it (``goneparent``, ``goneshow`` alike).
    scanner = FileUsageScanner(replay=True, started=started, thread_id=thread_id)
    kinds: list[tuple[int, str]] = []  # each counted line's offset and kind
    tally: dict[str, int] = {}  # the whole file's, as ``usage.scan_file`` keeps it
    calls: list[int] = []  # the offset of each call's line, in ``scanner.events``' order
    marker: int | None = None
    progress = ReadProgress()
    # What the lines say wrong, the pass that reads them for the row or ``show`` says (the
    # usage pass that takes this read's scanner too: ``fullcounts.shared_scanner``).
    with ctx.held_warnings() as held, closing(iter_json_lines(path, ctx, progress=progress)) as lines:
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
                add_kind(tally, kind)
    said: list[Told] = list(held.said)
    whole = not any(passing for *_, passing in said)  # (not cut short by an I/O error)
    if whole:
        keep_scanner(path, ctx, scanner, said)
    if wants_tally(path, ctx):  # as ``scan_file`` would keep it (``fullcounts``)
        remember(path, ctx, tally, progress, scanner.model_use(), scanner.position, scanner.copy_end(),
                 recount=scanner.recount)
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
    part = ForkPart(start, _counted(kinds, start, None), _counted(kinds, 0, start), parent)
    if marker is not None and whole:
        # Told by a turn marker, the part holds while the file is unchanged (a fork told by its
        # calls may be told again by its parent's, which may come or go: not kept).
        ctx.remembered(_FACTS).put(str(path), stat, [start, _fact(part.counts), _fact(part.copied),
                                                     [thread_id, parent, started.isoformat() if started else None]])
    return part


def _fact(counts: Counts) -> list[int]:
    return [counts.prompts, counts.responses, counts.tool_calls]


def _counted(kinds: list[tuple[int, str]], start: int, end: int | None) -> Counts:
    tally: dict[str, int] = {}
    for offset, kind in kinds:
        if offset >= start and (end is None or offset < end):
            add_kind(tally, kind)
    return counts_of(tally)


__all__ = ["ForkPart", "fork_part", "is_fork"]
