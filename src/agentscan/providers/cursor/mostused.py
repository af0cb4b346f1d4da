"""The model a Cursor row or run is said to have run, when its calls or messages name several:
the one named most, a tie to the first by name, whatever order they were counted in.

One rule (docs/providers/cursor.md, "Row fields"): a session's and a run's model from its calls
(bubbles with tokens: ``cursor.row.top_model``, a workspace composer's too) as read, and from the
usage sums the index keeps of those calls while the state DB cannot be read (``calls_model``,
``keptrow``, ``scan.showing``).  Before pass 56 the bubbles' broke a tie by the order they were
read (``Counter.most_common``) and the kept sums' by name; and the bubbles counted every live
reply naming a model, tokens or not, the sums only calls: a run of one gpt-5 and one sonnet call
(and a gpt-5 reply with no tokens) was named either way by ``show`` as the DB came and went."""

from __future__ import annotations

from typing import Mapping, Sequence

from agentscan.providers.cursor.records import AUTO_MODEL


def most_used(counts: Mapping[str, int]) -> str | None:
    """The name ``counts`` counts most (``None``: none counted), a tie to the smallest name."""
    return min(counts, key=lambda name: (-counts[name], name)) if counts else None


def calls_model(groups: Sequence[Sequence], agent: str | None) -> str | None:
    """The model most calls of ``agent`` (a run's id; ``None``: the session's own) ran, of usage
    sums' ``groups`` (``usagegroups``: the agent first, the model second), by ``most_used``: a
    call of ``default`` (Cursor's auto) names no model."""
    from agentscan.readsums import CALLS

    calls: dict[str, int] = {}
    for group in groups:
        if group[0] == agent and group[1] and group[1] != AUTO_MODEL:
            calls[group[1]] = calls.get(group[1], 0) + group[CALLS]
    return most_used(calls)
