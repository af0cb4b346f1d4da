"""Which of a Codex thread's calls count in it, a fork whose parent is gone included.

A thread's rollout that begins with a copy of its parent's history (a fork, a subagent
spawned with its context) leaves the copied calls to the parent (``usage``'s rule 4).  A
fork whose parent thread is not found (its rollout deleted, or in a home not read) holds
the only record of those calls: they count in the fork (docs/providers/codex.md), as a
resumed Claude session counts its copies when the session copied from is gone.  Several
forks of one gone parent each begin with a copy of its history: the calls an earlier fork
of it copied count there, so a later fork counts only the copied calls no earlier fork
copied, and its own.  No fork need copy more than the one before it (newer Codex forks at
a chosen turn): each copied call counts in the first fork, in ``forks_of``'s order, that
copied it.  ``forks_of`` finds a parent's forks (also ``show``'s ``forked_as``: ``lineage``).
A copy made through a gone parent from a thread that is found (C forked from gone B, forked
from A) holds A's calls too, which count in A: they are left out as an earlier fork's are
(``ancestry``, ``counted_elsewhere``).  A gone too, B is a fork of gone A, its copy held in
C: it stands among A's forks by its start (``_carried``), so A's calls count once, in A's
first fork, E on disk (C leaves out E's copy: ``passed_forks``) or B in C (E leaves out C's).

Only a fork asks whether its parent is found, which takes discovery: its row is read where
discovery is at hand (``CodexProvider.row_travels``), not in a worker that would walk the
home again.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Callable

from agentscan.context import ScanContext
from agentscan.model import sum_usage
from agentscan.providers.codex.forkpart import fork_part, is_fork
from agentscan.providers.codex.records import ThreadLink

if TYPE_CHECKING:
    from agentscan.providers.codex.ancestry import Ancestry
    from agentscan.providers.codex.callevent import UsageEvent
    from agentscan.providers.codex.callscan import FileUsageScanner
    from agentscan.providers.codex.discovery import Thread
    from agentscan.providers.codex.threadfacts import ThreadFacts

#: ``ctx.memo``: parent id (lower-cased) -> its forks, each (started, thread id, thread), by start
_FORKS = "codex.forks_of"
#: ``ctx.memo``: thread id -> every call in that earlier fork's files (``_calls_of``)
_CALLS = "codex.earlier_fork_calls"
#: ``ctx.memo``: thread id -> the calls of that passed fork's copied history (``_copy_of``)
_COPIES = "codex.passed_fork_copies"


def parent_found(parent_id: str, ctx: ScanContext) -> bool:
    """Whether discovery found thread ``parent_id`` (ids in file names are lower-cased)."""
    from agentscan.providers.codex.discovery import discover

    threads = discover(ctx).threads
    return parent_id in threads or parent_id.lower() in threads


def copies_count_here(link: ThreadLink, ctx: ScanContext) -> bool:
    """Whether a thread's copied calls count in it: a fork whose parent is not found."""
    return link.forked_from is not None and is_fork(link) and not parent_found(link.forked_from, ctx)


def forks_of(parent_id: str, ctx: ScanContext) -> list[tuple[datetime | None, str, Thread]]:
    """The forks of thread ``parent_id`` that discovery knows (their own header's
    ``forked_from_id`` names it; a subagent spawned with its context is no fork), oldest
    first (an unknown start first).  Every thread's header is read once a scan, for all
    parents: those discovery read, else remembered across runs until a file changes
    (``header.read_header``)."""
    from agentscan.providers.codex.discovery import discover
    from agentscan.providers.codex.header import read_header

    found = ctx.memo.get(_FORKS)
    if found is None:
        found = {}
        # What a header read finds wrong is its own session's to say (its passes say it).
        with ctx.held_warnings():
            for thread in discover(ctx).threads.values():
                if thread.spawn_parent is not None:
                    continue  # a subagent (the index or its header said so): never a fork
                # (a stat this scan took already, as the rows' fingerprints do)
                header = thread.header or read_header(thread.rollout.path, ctx, thread.thread_id,
                                                      ctx.stat(thread.rollout.path))
                link = header.link
                if link.forked_from is not None and is_fork(link):
                    found.setdefault(link.forked_from.lower(), []).append((header.started_at, thread.thread_id, thread))
                    if not parent_found(link.forked_from, ctx):
                        _carried(thread, link.forked_from, ctx, found)
        for forks in found.values():
            forks.sort(key=lambda fork: _order(fork[0], fork[1]))
        ctx.memo[_FORKS] = found
    return found.get(parent_id.lower(), [])


def _carried(thread: Thread, parent_id: str, ctx: ScanContext,
             found: dict[str, list[tuple[datetime | None, str, Thread]]]) -> None:
    """The gone forks whose copy ``thread``, a fork of gone ``parent_id``, holds, each among
    the forks of the gone thread it forked from (``ancestry``'s ``passed``: C forked from
    gone B, a fork of gone A, holds B's copy of A's history): by the gone fork's id and start,
    read through ``thread``.  A fork of A on disk made after B (E) then leaves the calls B
    copied of A to C, as it would to B found."""
    from agentscan.providers.codex.ancestry import nearest_found

    for gone, child, started in nearest_found(thread, parent_id, ctx).passed:
        found.setdefault(gone, []).append((started, child, thread))


def is_a_fork(thread_id: str, ctx: ScanContext) -> bool:
    """Whether thread ``thread_id`` is a fork of another (``forks_of``'s headers, read once a scan)."""
    forks_of("", ctx)  # (the memo of every parent's forks)
    return any(fork_id == thread_id for forks in ctx.memo[_FORKS].values() for _, fork_id, _ in forks)


def _order(started: datetime | None, thread_id: str) -> tuple[bool, float, str]:
    """Where a fork stands among its parent's (``forks_of``): by start, an unknown start
    first, a tie by id."""
    return (started is not None, started.timestamp() if started else 0.0, thread_id)


def earlier_forks(thread_id: str, parent_id: str, started: datetime | None, ctx: ScanContext) -> list[Thread]:
    """The forks of gone ``parent_id`` before thread ``thread_id`` (at ``started``) in
    ``forks_of``'s order: every one, not the last alone, for a fork made at an earlier turn
    copies less than the one before it; empty: the thread is its first fork found."""
    mine = _order(started, thread_id)
    return [thread for when, other, thread in forks_of(parent_id, ctx)
            if other != thread_id and _order(when, other) < mine]


def counted_elsewhere(thread_id: str, parent_id: str, started: datetime | None, ctx: ScanContext) -> list[Thread]:
    """The threads whose calls a fork of gone ``parent_id`` leaves out of its copy's: the
    earlier forks of that parent (``earlier_forks``), those of each gone thread its copy came
    through (``passed_forks``: C forked from gone B, a later fork of gone A than E, leaves
    A's calls to E), and the nearest thread its copy came through that is found
    (``ancestry.nearest_found``: its calls count there)."""
    whole, copies = _elsewhere(thread_id, parent_id, started, ctx)
    return whole + copies


def _elsewhere(thread_id: str, parent_id: str, started: datetime | None,
               ctx: ScanContext) -> tuple[list[Thread], list[Thread]]:
    """``counted_elsewhere``'s threads: those whose every call a copy may match, then the
    passed forks, of which only their copy's calls (``_copy_of``): a passed fork's own calls
    are never this thread's copies of the gone thread, though the running totals of the
    thread the walk came through, forked at the same turn, may equal them."""
    from agentscan.providers.codex.ancestry import nearest_found
    from agentscan.providers.codex.discovery import discover

    whole = earlier_forks(thread_id, parent_id, started, ctx)
    thread = discover(ctx).threads.get(thread_id)
    if thread is None:
        return whole, []
    ancestry = nearest_found(thread, parent_id, ctx)
    whole += [ancestry.found] if ancestry.found is not None else []
    taken = {one.thread_id for one in whole} | {thread_id}
    copies = {fork.thread_id: fork for fork in passed_forks(thread_id, ancestry, ctx) if fork.thread_id not in taken}
    return whole, list(copies.values())


def _left_out(thread_id: str, parent_id: str, started: datetime | None, ctx: ScanContext,
              calls_of: Callable[[str], list[UsageEvent]]) -> list[list[UsageEvent]]:
    """The calls a copy's leading calls are matched against (``FileUsageScanner.beyond``)."""
    whole, copies = _elsewhere(thread_id, parent_id, started, ctx)
    return [calls_of(one.thread_id) for one in whole] + [_copy_of(fork, ctx) for fork in copies]


def _copy_of(thread: Thread, ctx: ScanContext) -> list[UsageEvent]:
    """The calls of a fork's copied history (its first file's leading calls its usage rules
    tell copies, as its own count tells them), read once a scan."""
    from agentscan.providers.codex.header import thread_header
    from agentscan.providers.codex.usage import scan_file

    kept: dict[str, list[UsageEvent]] = ctx.memo.setdefault(_COPIES, {})
    if thread.thread_id not in kept:
        header = thread_header(thread, ctx)
        scanner = scan_file(thread.first.path, ctx, replay=True, started=header.started_at, thread_id=thread.thread_id)
        kept[thread.thread_id] = scanner.events[:scanner.copied_calls()]
    return kept[thread.thread_id]


def passed_forks(thread_id: str, ancestry: Ancestry, ctx: ScanContext) -> list[Thread]:
    """The forks of each gone thread a copy came through (``Ancestry.passed``) made before the
    thread the copy came through from it (``earlier_forks``): the calls they copied of it
    count there, as among forks of one gone parent.  Never ``thread_id`` itself."""
    return [fork for gone, child, started in ancestry.passed
            for fork in earlier_forks(child, gone, started, ctx) if fork.thread_id != thread_id]


def counted_calls(scanner: FileUsageScanner, link: ThreadLink, ctx: ScanContext,
                  calls_of: Callable[[str], list[UsageEvent]]) -> list[UsageEvent]:
    """The calls of the file ``scanner`` was fed whole (a thread's first file, ``replay`` as
    its header says) that count in the thread: its own (``FileUsageScanner.own_events``),
    with those its copied history holds of a gone parent that no earlier fork copied, nor a
    thread it came through that is found (``counted_elsewhere``, ``FileUsageScanner.beyond``).
    ``calls_of``: every call in a thread's files, by its id (the parent's, for a fork without
    turn markers; an earlier fork's, or the thread found up the chain)."""
    parent = link.forked_from or link.spawn_parent
    if parent is None:
        return scanner.own_events()
    if copies_count_here(link, ctx):
        return scanner.beyond(_left_out(scanner.thread_id or "", parent, scanner.started, ctx, calls_of))
    return scanner.own_events(lambda: calls_of(parent))


def past_earlier_fork(facts: ThreadFacts, ctx: ScanContext) -> ThreadFacts:
    """A row's ``facts`` of a fork of a gone parent, which count its whole file (``row``), with
    its tokens and calls per model those of the calls no earlier fork copied, nor a thread
    it came through that is found (``counted_calls``), when there is one: its file read whole
    (once with its own part's read: ``forkpart``), as ``tokens`` reads it."""
    from agentscan.providers.codex.usage import scan_file

    thread, header = facts.thread, facts.header
    parent = header.link.forked_from
    if parent is None or not counted_elsewhere(thread.thread_id, parent, header.started_at, ctx):
        return facts
    path = thread.rollout.path
    fork_part(path, ctx, header.link, header.started_at, thread.thread_id)
    scanner = scan_file(path, ctx, replay=True, started=header.started_at, thread_id=thread.thread_id)
    own = scanner.beyond(_left_out(thread.thread_id, parent, header.started_at, ctx,
                                   lambda other: _calls_of(other, ctx)))
    tokens = sum_usage(event.tokens for event in own)
    return facts._replace(tail=facts.tail._replace(models=scanner.model_use(own)),
                          tokens=tokens if tokens is not None and tokens.total > 0 else None)


def _calls_of(thread_id: str, ctx: ScanContext) -> list[UsageEvent]:
    """Every call in an earlier fork's files, read once a scan: each later fork's row of the
    same parent matches its copy against them all."""
    from agentscan.providers.codex.usage import parent_events

    kept: dict[str, list[UsageEvent]] = ctx.memo.setdefault(_CALLS, {})
    if thread_id not in kept:
        kept[thread_id] = parent_events(thread_id, ctx)
    return kept[thread_id]


__all__ = ["copies_count_here", "counted_calls", "counted_elsewhere", "earlier_forks", "forks_of", "parent_found",
           "passed_forks", "past_earlier_fork"]
