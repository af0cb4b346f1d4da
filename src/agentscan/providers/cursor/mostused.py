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

from typing import Iterable, Mapping, Sequence

from agentscan.providers.cursor.records import AUTO_MODEL


def most_used(counts: Mapping[str, int]) -> str | None:
    """The name ``counts`` counts most (``None``: none counted), a tie to the smallest name."""
    return min(counts, key=lambda name: (-counts[name], name)) if counts else None


def model_of_calls(calls: Iterable[tuple[str | None, int]]) -> str | None:
    """``most_used`` of the models ``calls`` name, each ``(model, how many calls)``: a call of
    ``default`` (Cursor's auto) or of none names no model.  The one count of calls behind a
    row's model as read (``cursor.row.top_model``: its bubbles with tokens) and as kept
    (``calls_model``: its sums' groups)."""
    counted: dict[str, int] = {}
    for model, count in calls:
        if model and model != AUTO_MODEL:
            counted[model] = counted.get(model, 0) + count
    return most_used(counted)


def calls_model(groups: Sequence[Sequence], agent: str | None) -> str | None:
    """The model most calls of ``agent`` (a run's id; ``None``: the session's own) ran, of usage
    sums' ``groups`` (``usagegroups``: the agent first, the model second): ``model_of_calls``."""
    from agentscan.readsums import CALLS

    return model_of_calls((group[1], group[CALLS]) for group in groups if group[0] == agent)
