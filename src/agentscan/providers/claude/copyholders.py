"""Which transcript lists a gone Claude session's conversation: the one whose copy of it counts.

A session resumed twice (``claude --resume`` of it from two terminals, or again later) leaves
two transcripts that each begin with a copy of its records: siblings.  With its own
transcript gone, ``tokens`` counts its calls once, in the copy of the nearest session of
its chain (``dedupe._nearness``: the fewest resumes from it), and between copies as near, in
the session whose first call came first, then by id (``sharedcalls.session_order``): the
copies begin with the same calls at the same times, so the id decides.  ``show`` lists that
conversation on that session's card alone (both cards listed it, and only one counted it),
and the other's names where it is (``resumedshow``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agentscan.providers.claude.gonesession import is_gone

if TYPE_CHECKING:
    from agentscan.context import ScanContext


def nearer_holders(native_id: str, main: Path, ctx: ScanContext) -> dict[str, str]:
    """Each gone session the copies at the head of ``native_id``'s transcript ``main`` name
    -> the other transcript of the folder that holds its copy nearer (fewer resumes from it),
    or as near with a smaller id: where ``tokens`` counts its calls.  Only transcripts whose
    head names the same first session are read (a chain's copies all begin with its first's),
    each up to its own first record (``resumes.copied_head``)."""
    from agentscan.providers.claude.discovery import resumed_as, resumed_from

    first = resumed_from(native_id, main, ctx)
    if first is None:
        return {}
    # (Heads remembered per file: no other transcript of the chain, the usual case, and the
    # session's own copies are not read, 1.1 s a GB of them on each ``show`` of a live one.)
    others = [(other, path) for other in resumed_as(native_id, main, ctx, every=True)
              if resumed_from(other, path := main.with_name(f"{other}.jsonl"), ctx) == first]
    head = remembered_head(main, native_id, ctx) if others else None
    if head is None or not head[0]:
        return {}
    chain = head[0]
    mine = {named: len(chain) - at for at, named in enumerate(chain) if is_gone(named, main)}
    best: dict[str, tuple[int, str]] = {}
    for other, path in others if mine else ():
        theirs = remembered_head(path, other, ctx)
        if theirs is None:
            continue
        steps = len(theirs[0])
        for at, named in enumerate(theirs[0]):
            if named in mine and (steps - at, other) < min(best.get(named, (mine[named], native_id)),
                                                           (mine[named], native_id)):
                best[named] = (steps - at, other)
    return {named: other for named, (_, other) in best.items()}


def remembered_head(path: Path, own: str, ctx: ScanContext) -> tuple[list[str], int | None] | None:
    """``resumes.copied_head`` of ``path``, remembered per file until its stat changes: every
    transcript of a chain is read for its copies when one of its sessions is gone (``show``
    of each, ``tokens --by agent``), a 1 GB head of copies 1.1 s each time."""
    from agentscan.providers.claude.resumes import copied_head

    facts = ctx.remembered("claude.copied_head/1")
    text = str(path)
    stat = ctx.stat(text)
    known = facts.get(text, stat) if stat is not None else None
    if (isinstance(known, dict) and isinstance(known.get("chain"), list)
            and all(isinstance(name, str) for name in known["chain"])
            and (known.get("end") is None or type(known.get("end")) is int)):
        return known["chain"], known["end"]
    head = copied_head(path, own)
    if head is not None and stat is not None:
        facts.put(text, stat, {"chain": head[0], "end": head[1]})
    return head


def resumed_into(native_id: str, main: Path, ctx: ScanContext, *, gone: bool) -> list[str]:
    """The other transcripts of ``main``'s folder that copied ``native_id``'s records, by
    name: those whose head names it (``discovery.resumed_as``), and, ``gone`` (``main`` is
    where its transcript was), every other one whose copies name it: in a chain A → B → C
    whose C's head names A, C holds gone B's conversation (B's card named none, and its runs'
    kinds were not looked for there).  (A found B's card leaves C out: which of a chain's
    transcripts were resumed from B would take reading all their copies, seconds on the first
    ``show`` of a long chain of ``--continue``s.)"""
    from agentscan.providers.claude.discovery import resumed_as

    found = resumed_as(native_id, main, ctx)
    if not gone:
        return found
    for other in resumed_as(native_id, main, ctx, every=True):
        if other not in found:
            head = remembered_head(main.with_name(f"{other}.jsonl"), other, ctx)
            if head is not None and native_id in head[0]:
                found.append(other)
    return sorted(found)
