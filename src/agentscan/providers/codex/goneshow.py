"""What ``show`` says of a fork whose parent is gone: where the copy's part that is only
here begins, and exactly which other threads its copied calls count in.

C forked from gone B: C's copy is the only record of B's conversation, listed with C's
own.  But the copy also holds what B copied of the threads it came through (``ancestry``):
the part of A, the nearest one found, is A's own conversation, listed by ``show`` of A, and
not listed again here (``listed_from``).  The copied calls count in C, but those an earlier
fork of B copied count there, and those an earlier fork of each gone thread the copy came
through copied of it (``goneparent``): ``counted_in`` names each, and what it is a fork of,
so the card and ``show --json`` say where, not "or in an earlier fork of it".
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from agentscan.context import ScanContext
from agentscan.providers.codex.ancestry import Ancestry, copied_links, nearest_found
from agentscan.providers.codex.goneparent import earlier_forks

if TYPE_CHECKING:
    from agentscan.providers.codex.discovery import Thread


class GoneParent(NamedTuple):
    """A fork of a gone parent, as ``show`` tells it (a named tuple: see ``cli.term.Terminal``)."""

    #: where the lines ``show`` lists begin (0: the whole copy): past the found thread's part
    listed_from: int
    #: the nearest thread the copy came through that is found (its calls count there), or ``None``
    through: str | None
    #: (thread id, the gone thread it is a fork of) of each other fork whose copy's calls this
    #: one leaves to it: the parent's earlier forks, then those of each gone thread past it
    counted_in: tuple[tuple[str, str], ...]


def gone_parent(thread: Thread, parent: str, path: Path, ctx: ScanContext) -> GoneParent:
    """``thread`` (a fork of gone ``parent``, its first file ``path``) as ``show`` tells it."""
    from agentscan.providers.codex.header import thread_header

    ancestry = nearest_found(thread, parent, ctx)
    header = thread_header(thread, ctx)
    forks = [(fork.thread_id, parent) for fork in earlier_forks(thread.thread_id, parent, header.started_at, ctx)]
    for gone, child, child_started in ancestry.passed:
        forks += [(fork.thread_id, gone) for fork in earlier_forks(child, gone, child_started, ctx)
                  if fork.thread_id != thread.thread_id]
    through = ancestry.found.thread_id if ancestry.found is not None else None
    return GoneParent(_past_found(ancestry, parent, path, ctx), through, tuple(dict.fromkeys(forks)))


def _past_found(ancestry: Ancestry, parent: str, path: Path, ctx: ScanContext) -> int:
    """Where the part of the copy after the found thread's begins: the first turn marker of
    the thread copied from it (``usage.own_start`` with that thread's start, from the copied
    metas); 0 when no thread up the chain is found, or no marker tells it (all listed)."""
    from agentscan.providers.codex.usage import own_start

    if ancestry.found is None:
        return 0
    walked = [one for one, _ in ancestry.walked]
    child = walked[-2] if len(walked) >= 2 else parent.lower()
    stat = ctx.stat(path)
    started = copied_links(path, ctx, stat).get(child, (None, None))[1] if stat is not None else None
    return own_start(path, ctx, started) if started is not None else 0


__all__ = ["GoneParent", "gone_parent"]
