"""What a model costs, looked up by the name an agent records or a table shows (``agentscan prices``).

A name is looked up as each agent records it (Cursor's ``claude-4.5-sonnet``
is Anthropic's ``claude-sonnet-4-5``), and a short name a table shows
(``sonnet-4.5``) as the names it stands for (``modelnames``).  A name with no
price gets the price data's names most like it.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentscan.pricing.source import PriceData


def look_up(data: PriceData, name: str, provider: str | None, when: datetime | None) -> dict[str, Any]:
    """``prices --json``'s entry for ``name``: its model and prices in force at ``when``
    (default: now), as ``provider`` records it (default: as any agent does); ``model_id``
    ``None`` and ``suggestions`` (``close_names``) for a name with no price."""
    from agentscan.pricing import aliases, library

    found: dict[str, Any] = {
        "query": name, "provider": None, "model_id": None, "name": None, "prices": None, "price_fields": None,
    }
    # Without a provider, a name one agent records differently (Cursor's "claude-4.5-sonnet")
    # is looked up as each agent records it, as ``list`` prices it: "no price" was wrong.
    agents = [provider] if provider is not None else ["", *aliases.PROVIDER_HINTS]
    for agent, ref in _refs(agents, name):
        try:
            found.update(library.describe(data, aliases.PROVIDER_HINTS.get(agent), ref, when))
            break
        except library.NotPriceable:
            pass
    # Only a name with no price costs a look at the library's names.
    found["suggestions"] = close_names(data, provider, name) if found["model_id"] is None else []
    return found


def _refs(agents: list[str], name: str) -> list[tuple[str, str]]:
    """(agent, model ref) for each agent that knows ``name``, then for each recorded name a
    Claude model's short name stands for: a person copies the model from the table they see."""
    from agentscan.pricing import aliases
    from agentscan.pricing.modelnames import recorded_names

    named = [(agent, name) for agent in agents] + recorded_names(name, agents)
    return [(agent, ref) for agent, recorded in named if (ref := aliases.model_ref(agent, recorded)) is not None]


#: how like the name asked a model's name must be to be offered (``difflib``'s ratio), and how
#: many are: the best, and those nearly as like it (``claude-sonnet-4-6`` beside ``-4-5``
#: would be a guess between two)
_CLOSE_ENOUGH, _NEARLY_AS_CLOSE, _OFFERED = 0.75, 0.05, 3


def close_names(data: PriceData, provider: str | None, name: str) -> list[str]:
    """The price data's model ids most like ``name`` (a misspelt ``claude-sonet-4-5``:
    ``claude-sonnet-4-5``): of the agent's vendor with ``provider``, else of every
    provider; only those ``look_up`` finds a price for."""
    import difflib

    from agentscan.pricing import aliases, library

    vendor = aliases.PROVIDER_HINTS.get(provider) if provider else None
    ids = {model.id.lower(): model.id for each in library.snapshot(data).providers
           if vendor is None or each.id == vendor for model in each.models}
    matcher = difflib.SequenceMatcher(b=name.lower())
    scored = []
    for lowered, model_id in ids.items():
        matcher.set_seq1(lowered)
        if matcher.real_quick_ratio() >= _CLOSE_ENOUGH and matcher.quick_ratio() >= _CLOSE_ENOUGH:
            ratio = matcher.ratio()
            if ratio >= _CLOSE_ENOUGH:
                scored.append((ratio, model_id))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    best = scored[0][0] if scored else 0.0
    offered: list[str] = []
    for ratio, model_id in scored:
        if ratio < best - _NEARLY_AS_CLOSE or len(offered) == _OFFERED:
            break
        try:
            library.find(data, vendor, model_id)
        except library.NotPriceable:
            continue  # a name the library lists but prices only with a context it is not asked with
        offered.append(model_id)
    return offered
