"""What a ``tokens`` report can be grouped by (``--by``), and what each grouping's rows are.

Apart from ``scan.tokens`` so the CLI can check ``--by`` before it knows
whether the report must be made at all: a remembered answer
(``scan.answers``) needs none of the report's machinery.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, cast, get_args


# Period keys: day 2026-11-30, week 2026-W49 (ISO, Monday first), month 2026-11; ``cwd``:
# the sessions' working directory (``scan.tokencwd``); ``agent``: the kind of agent that made
# the call, ``main`` for the sessions' own (``scan.tokenagents``).
GroupBy = Literal["session", "day", "week", "month", "model", "provider", "cwd", "agent"]
GROUPINGS: tuple[GroupBy, ...] = get_args(GroupBy)


class Grouping(NamedTuple):
    """What a grouping's rows are, beyond the key each call gets (``scan.tokens``)."""

    #: a row is a day, week or month: a call lands in one by its time in a zone
    period: bool
    #: rows dearest first; else periods in their order and sessions in the report's
    dearest_first: bool
    #: what one row is, in a sentence ("2 kinds of agent with 0 tokens")
    noun: str


#: each grouping's facts, one table for all
GROUPING: dict[GroupBy, Grouping] = {
    "session": Grouping(period=False, dearest_first=False, noun="session"),
    "day": Grouping(period=True, dearest_first=False, noun="period"),
    "week": Grouping(period=True, dearest_first=False, noun="period"),
    "month": Grouping(period=True, dearest_first=False, noun="period"),
    "model": Grouping(period=False, dearest_first=True, noun="model"),
    "provider": Grouping(period=False, dearest_first=True, noun="provider"),
    "cwd": Grouping(period=False, dearest_first=True, noun="directory"),
    "agent": Grouping(period=False, dearest_first=True, noun="kind of agent"),
}


def parse_group(value: str, what: str = "by") -> GroupBy:
    """``value`` as a grouping, in any case (``--by Agent``, as ``--provider`` takes
    ``Claude``), another tool's word for one (``--by project`` is ``--by cwd``), or a usage
    error naming the valid ones.  ``what``: the name the caller gave it by, in the error
    (``token_report``'s ``by``; the CLI's ``--by``)."""
    from agentscan.toolkit.choices import one_of

    return cast(GroupBy, one_of(value, GROUPINGS, what, parameter="by", also=ALSO_CALLED))


#: groupings by other tools' names, taken as the grouping they are: ccusage's projects
#: (``--instances``) are working directories
ALSO_CALLED: dict[str, GroupBy] = {"project": "cwd", "projects": "cwd"}
