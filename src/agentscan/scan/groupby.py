"""What a ``tokens`` report can be grouped by (``--by``).

Apart from ``scan.tokens`` so the CLI can check ``--by`` before it knows
whether the report must be made at all: a remembered answer
(``scan.answers``) needs none of the report's machinery.
"""

from __future__ import annotations

from typing import Literal, get_args

from agentscan.errors import UsageProblem

# Period keys: day 2026-11-30, week 2026-W49 (ISO, Monday first), month 2026-11; ``cwd``:
# the sessions' working directory (``scan.tokencwd``); ``agent``: the kind of agent that made
# the call, ``main`` for the sessions' own (``scan.tokenagents``).
GroupBy = Literal["session", "day", "week", "month", "model", "provider", "cwd", "agent"]
GROUPINGS: tuple[GroupBy, ...] = get_args(GroupBy)


def parse_group(value: str) -> GroupBy:
    """``value`` as a grouping, or a usage error naming the valid ones."""
    for group in GROUPINGS:
        if value == group:
            return group
    from agentscan.toolkit.words import unknown_choice

    raise UsageProblem(unknown_choice("--by", value, list(GROUPINGS)))
