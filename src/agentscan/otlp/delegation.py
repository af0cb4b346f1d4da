"""Which parent tool call started which subagent, for transcripts.

Transcripts rarely link a delegated run to the call that started it (the
bounded ``show`` detail never does), so the match is made by time and order,
in three passes, each taking only calls still unmatched:

1. a delegation call (Claude ``Task``/``Agent``, Codex ``spawn_agent``, or a
   call named like the subagent's type) recorded at or before the subagent's
   first event: the *earliest* such call, so parallel ``Task`` calls pair
   with their subagents in launch order;
2. such a call recorded while the subagent ran or within a minute after it
   (agents that log a call when it returns);
3. the parent was idle while the subagent ran, and its next call, within a
   minute of the subagent's last event, is taken to be the one that waited
   for it (Gemini names that call after the agent, e.g. ``codebase_investigator``).

A subagent no pass matches is nested directly under its turn's root span.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

DELEGATION_TOOLS = frozenset({"Task", "Agent", "spawn_agent"})
WINDOW_NS = 60 * 1_000_000_000


@dataclass(frozen=True, slots=True)
class Call:
    """A parent-agent tool call: its position in the detail's list, name and start."""

    index: int
    name: str
    at_ns: int


@dataclass(frozen=True, slots=True)
class Run:
    """A subagent's activity: id, type and the span of its recorded events."""

    id: str
    agent_type: str | None
    start_ns: int
    end_ns: int


def match(runs: Sequence[Run], calls: Sequence[Call], parent_activity: Sequence[int]) -> dict[str, int]:
    """``{subagent id: index of its delegating call}`` for the runs that could be matched."""
    taken: set[int] = set()
    found: dict[str, int] = {}
    ordered = sorted(runs, key=lambda r: (r.start_ns, r.id))

    def delegates(call: Call, run: Run) -> bool:
        return call.name in DELEGATION_TOOLS or (run.agent_type is not None and call.name == run.agent_type)

    passes = (
        lambda call, run: delegates(call, run) and call.at_ns <= run.start_ns,
        lambda call, run: delegates(call, run) and run.start_ns < call.at_ns <= run.end_ns + WINDOW_NS,
        lambda call, run: _idle(parent_activity, run) and run.end_ns <= call.at_ns <= run.end_ns + WINDOW_NS,
    )
    for accept in passes:
        for run in ordered:
            if run.id in found:
                continue
            candidates = [c for c in calls if c.index not in taken and accept(c, run)]
            if candidates:
                best = min(candidates, key=lambda c: (c.at_ns, c.index))
                taken.add(best.index)
                found[run.id] = best.index
    return found


def _idle(parent_activity: Sequence[int], run: Run) -> bool:
    return not any(run.start_ns < at < run.end_ns for at in parent_activity)
