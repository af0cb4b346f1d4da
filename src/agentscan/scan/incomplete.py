"""Which providers' discovery could not read everything in this scan (a folder it could not
list): what it did not find may still be there, so nothing of theirs is taken as gone.

Told by discovery as it happens (``scan.discovering``, ``scan.aside``), asked by an export
before it marks sessions gone (``export.run``), as the index's pruning is given the same
knowledge (``scan.prune``'s ``complete``).  Apart from both, so neither imports the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentscan.context import ScanContext


#: ``ScanContext.memo``'s set of the providers whose discovery this scan said it could not read
#: everything (a folder it could not list): what it did not find may still be there
_INCOMPLETE = "_incomplete_discoveries"


def note_discovery(ctx: ScanContext, provider: str, *, complete: bool) -> None:
    """Remember that ``provider``'s discovery was not ``complete`` (``incomplete_discoveries``)."""
    if not complete:
        ctx.memo.setdefault(_INCOMPLETE, set()).add(provider)


def incomplete_discoveries(ctx: ScanContext) -> frozenset[str]:
    """The providers whose discovery this scan could not read everything: an export marks
    none of their sessions gone, as the index forgets none of them (``scan.prune``).  A
    discovery taken from the index was complete (an incomplete one is never stored)."""
    return frozenset(ctx.memo.get(_INCOMPLETE, ()))

