"""A session's deduplicated call sums (``windowed.WindowedTotals``) and what a row reads of them.

The sums are grouped as ``scan.sessionsums.sums_of`` groups a session's calls
(``agentscan.usagegroups``), so a row's cost can be priced from them: a huge
transcript's row and cost then come from one pass that never holds its calls.
Apart from ``windowed``, which decides which calls count (the window and the
settled hashes), so that each module stays readable: this one only adds and reads.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Collection

from agentscan.bounds import token_sum
from agentscan.model import PROGRESS_ORIGIN, TokenUsage
from agentscan.providers.claude.usage import (
    C_CACHE_READ,
    C_CACHE_WRITE,
    C_CACHE_WRITE_1H,
    C_FROM_PROGRESS,
    C_INPUT,
    C_MODEL,
    C_OUTPUT,
    C_SUBAGENT,
    C_TS,
    C_WEB_SEARCHES,
    Call,
)
from agentscan.usagegroups import BUCKET, TIER_BOUNDS

__all__ = ["SumsReadout", "add_to_sums"]


def add_to_sums(sums: dict[tuple, list[int]], call: Call) -> None:
    ts = call[C_TS]
    fresh, read, write = call[C_INPUT], call[C_CACHE_READ], call[C_CACHE_WRITE]
    key = (call[C_SUBAGENT], call[C_MODEL], None if ts is None else int(ts // BUCKET) * BUCKET,
           bisect_left(TIER_BOUNDS, fresh + read + write), call[C_FROM_PROGRESS])
    parts = sums.get(key)
    if parts is None:
        # (A group's first call: its parts, not zeros each added to: a huge transcript settles
        # hundreds of thousands of calls, a tenth of them into a new group.)
        sums[key] = [fresh, read, write, call[C_OUTPUT], 1, call[C_CACHE_WRITE_1H], call[C_WEB_SEARCHES]]
        return
    parts[0] += fresh
    parts[1] += read
    parts[2] += write
    parts[3] += call[C_OUTPUT]
    parts[4] += 1
    parts[5] += call[C_CACHE_WRITE_1H]
    parts[6] += call[C_WEB_SEARCHES]


class SumsReadout:
    """What a row reads of a session's sums, keyed (subagent, model, bucket, tier class, from a
    progress copy) -> [input, cache read, cache write, output, calls, one-hour cache write, web
    searches]; ``_all_sums`` is the subclass's (the settled sums with its window's winners added)."""

    def _all_sums(self) -> dict[tuple, list[int]]:
        raise NotImplementedError

    def by_subagent(self) -> dict[str, TokenUsage]:
        return {agent: _usage(parts) for agent, parts in self._per_agent().items() if agent is not None}

    def own(self) -> TokenUsage | None:
        parts = self._per_agent().get(None)
        return None if parts is None else _usage(parts)

    def total(self) -> TokenUsage | None:
        per_agent = self._per_agent()
        return _usage([sum(column) for column in zip(*per_agent.values())]) if per_agent else None

    def _per_agent(self) -> dict[str | None, list[int]]:
        """Subagent (``None``: the session's own) -> its input, cache read, cache write and output."""
        totals: dict[str | None, list[int]] = {}
        for key, parts in self._all_sums().items():
            found = totals.get(key[0])
            if found is None:
                totals[key[0]] = parts[:4]
            else:
                for index in range(4):
                    found[index] += parts[index]
        return totals

    def groups(self, transcripts: Collection[str]) -> list[list]:
        """The sums as ``scan.collect`` groups them (``usagegroups.GROUP_WIDTH`` wide):
        a subagent call copied from the parent's progress records is marked as such
        only when the subagent has no transcript of its own (``transcripts``)."""
        found: dict[tuple, list] = {}
        for (subagent, model, bucket, tier, from_progress), parts in self._all_sums().items():
            origin = PROGRESS_ORIGIN if from_progress and subagent not in transcripts else None
            group = found.get((subagent, model, bucket, tier, origin))
            if group is None:
                found[(subagent, model, bucket, tier, origin)] = [subagent, model, bucket, tier, origin, parts[0], parts[1],
                                                                   parts[2], parts[3], 0, parts[4], parts[5], parts[6]]
            else:
                for index, value in enumerate((parts[0], parts[1], parts[2], parts[3], 0, parts[4], parts[5], parts[6])):
                    group[5 + index] += value
        return list(found.values())


def _usage(parts: list[int]) -> TokenUsage:
    # Sums saturate at MAX_TOKEN_SUM as ``TokenUsage.__add__`` does (the parts only grow).
    return TokenUsage(token_sum(parts[0]), token_sum(parts[1]), token_sum(parts[2]), token_sum(parts[3]))
