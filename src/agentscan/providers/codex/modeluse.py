"""Which model a Codex thread ran on most (a row's ``model``).

As for the other providers (Claude counts assistant messages, Gemini billed
messages), "most used" counts model calls: a thread's calls are the ones
``tokens`` counts (``usage.FileUsageScanner``), each on the model ``tokens
--by model`` gives it (``info.model``, else the latest ``turn_context``).
The model with most calls wins, the first one seen on a tie.  A thread with
no call (an aborted first turn, or a window that holds none) falls back to
its ``turn_context`` lines: the model most of them name, the latest one on
a tie.  Every reader of a row (``list``'s bounded window, the tally a whole
pass keeps, ``show``) builds a ``ModelUse`` and asks ``most_used``, so they
cannot disagree on the rule.
"""

from __future__ import annotations

from typing import Iterable, Mapping, NamedTuple

from agentscan.pricing.aliases import service_tier_of

#: (model, count) pairs
Pairs = tuple[tuple[str, int], ...]


class ModelUse(NamedTuple):
    """A thread's (or a part of it's) calls and turns per model (a named tuple: see
    ``cli.term.Terminal``)."""

    calls: Pairs = ()  # calls per model, in the order each model was first called
    turns: Pairs = ()  # turn_context lines per model, in the order each was last named


def model_use(call_models: Iterable[str | None], turns: Mapping[str, int]) -> ModelUse:
    """``call_models``: each call's model, in order (``None``: unknown, not counted);
    ``turns``: turn_context lines per model, in last-named order."""
    calls: dict[str, int] = {}
    for model in call_models:
        if model is not None:
            # A call on a service tier (``gpt-5.5 (priority)``) ran the model: the row's MODEL
            # is the model's, whichever tier a call was billed at (``tokens --by model`` tells them).
            model = service_tier_of(model)[0]
            calls[model] = calls.get(model, 0) + 1
    return ModelUse(tuple(calls.items()), tuple(turns.items()))


def merge(uses: Iterable[ModelUse]) -> ModelUse:
    """Several parts of one history (a paginated thread's files), in history order."""
    calls: dict[str, int] = {}
    turns: dict[str, int] = {}
    for use in uses:
        for model, count in use.calls:
            calls[model] = calls.get(model, 0) + count
        for model, count in use.turns:
            turns[model] = turns.pop(model, 0) + count  # moved to the end: named later
    return ModelUse(tuple(calls.items()), tuple(turns.items()))


def without_calls(use: ModelUse, copied: ModelUse) -> ModelUse:
    """``use`` less the calls of a copied history (a fork's), which were its parent's."""
    if not copied.calls:
        return use
    gone = dict(copied.calls)
    calls = tuple((model, count - gone.get(model, 0)) for model, count in use.calls)
    return use._replace(calls=tuple((model, count) for model, count in calls if count > 0))


def most_used(use: ModelUse) -> str | None:
    """The model of most calls (ties: the first called), else of most turns (ties: the latest)."""
    if use.calls:
        best = max(count for _, count in use.calls)
        return next(model for model, count in use.calls if count == best)
    if use.turns:
        best = max(count for _, count in use.turns)
        return [model for model, count in use.turns if count == best][-1]
    return None
