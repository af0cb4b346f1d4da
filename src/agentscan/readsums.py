"""The token sums a scan has read, kept for the rows it reads next.

``tokens``' text table reads every session's row after the report has read
every session's own sums (``scan.collect``).  A row's pass need not add the
same calls up again: Claude's takes its tokens from those sums
(``providers/claude/provider.py``), a quarter of its pass.  They are the
same calls counted by the same rules: a session's own sums, deduplicated
within its files (not against other sessions), grouped as ``usagegroups``
says.  Kept in ``ctx.memo`` under ``context.SUMS_READ``, which a worker's
context starts with too (``ScanContext.for_worker``); the groups are only
read, never changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from agentscan.bounds import token_sum
from agentscan.context import SUMS_READ
from agentscan.model import TokenUsage
from agentscan.usagegroups import GROUP_KEYS

if TYPE_CHECKING:
    from agentscan.context import ScanContext

#: a group's number of calls (``usagegroups``: the parts' sixth)
CALLS = GROUP_KEYS + 5


def note_read(ctx: ScanContext, read: Mapping[str, tuple[str, list[list]]]) -> None:
    """Keep, for the rest of the scan, each session's groups as just read: session id ->
    the fingerprint they were read at, and the groups."""
    ctx.memo.setdefault(SUMS_READ, {}).update(read)


def groups_read(ctx: ScanContext, ref_id: str, fingerprint: str | None) -> list[list] | None:
    """The session's groups as this scan read them at ``fingerprint`` (``note_read``), if it did."""
    known = ctx.memo.get(SUMS_READ)
    found = known.get(ref_id) if known is not None else None
    return found[1] if found is not None and fingerprint is not None and found[0] == fingerprint else None


def total_of(groups: list[list]) -> tuple[TokenUsage | None, set[str]]:
    """The tokens of ``groups`` (input, cache read, cache write and output; ``None``: no
    call), and the subagents their calls name."""
    if not groups:
        return None, set()
    columns = list(zip(*groups))
    parts = [token_sum(sum(columns[GROUP_KEYS + index])) for index in range(4)]
    return TokenUsage(*parts), {agent for agent in columns[0] if agent is not None}


def calls_in(groups: list[list]) -> int:
    return sum(group[CALLS] for group in groups)
