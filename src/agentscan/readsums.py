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

from typing import TYPE_CHECKING, Mapping, Protocol, Sequence

from agentscan.bounds import token_sum
from agentscan.context import SUMS_READ
from agentscan.model import ScanWarning, TokenUsage
from agentscan.usagegroups import GROUP_KEYS

if TYPE_CHECKING:
    from agentscan.context import ScanContext

#: a group's number of calls (``usagegroups``: the parts' sixth)
CALLS = GROUP_KEYS + 5


class Read(Protocol):
    """What a read of one session's sums gives (``scan.sessionsums.SessionSums``)."""

    @property
    def groups(self) -> list[list]: ...

    @property
    def said(self) -> bool: ...

    @property
    def warnings(self) -> Sequence[ScanWarning]: ...

    @property
    def passing(self) -> bool: ...


def note_read(ctx: ScanContext, fingerprints: Mapping[str, str | None], sums: Mapping[str, Read]) -> None:
    """Keep, for the rest of the scan, the sums just read (session id -> its read) and the
    fingerprints they were read at.  Kept as they are, looked into only when a row asks
    (``groups_read``): many commands read every session's sums, and only ``tokens``' table
    reads rows after them.  ``sums`` must not change after (the fingerprints may: copy them)."""
    ctx.memo.setdefault(SUMS_READ, []).append((fingerprints, sums))


def groups_read(ctx: ScanContext, ref_id: str, fingerprint: str | None) -> list[list] | None:
    """The session's groups as this scan last read them, if that was at ``fingerprint`` and
    the reading said nothing (a bad line, a parse that could not read everything this time,
    a provider's bug: the row's pass reads such a session itself, as it always did)."""
    if fingerprint is None:
        return None
    for fingerprints, sums in reversed(ctx.memo.get(SUMS_READ, ())):
        found = sums.get(ref_id)
        if found is not None:
            if fingerprints.get(ref_id) == fingerprint and not found.passing and not found.said:
                return found.groups
            return None
    return None


def read_with_warnings(ctx: ScanContext, ref_id: str, fingerprint: str | None) -> Read | None:
    """The session's read as this scan last had it at ``fingerprint``, also one whose reading
    said something (a bad bubble value "counted as 100"), not one that could not read
    everything: for a row that cannot read the session's usage itself (Cursor's locked state
    DB), which takes such sums as ``tokens`` does and says their warnings again."""
    if fingerprint is None:
        return None
    for fingerprints, sums in reversed(ctx.memo.get(SUMS_READ, ())):
        found = sums.get(ref_id)
        if found is not None:
            if fingerprints.get(ref_id) == fingerprint and not found.passing:
                return found
            return None
    return None


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
