"""What a model costs, looked up by the name an agent records or a table shows (``agentscan prices``).

A name is looked up as each agent records it (Cursor's ``claude-4.5-sonnet``
is Anthropic's ``claude-sonnet-4-5``), and a short name a table shows
(``sonnet-4.5``) as the names it stands for (``modelnames``).  A name with no
price gets the price data's names most like it, or most like the names a short one
stands for (``sonet-4.5``: ``sonnet-4.5``), each one ``prices`` finds a price for.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentscan.pricing.source import PriceData


def look_up(data: PriceData, name: str, provider: str | None, when: datetime | None) -> dict[str, Any]:
    """``prices --json``'s entry for ``name``: its model and prices in force at ``when``
    (default: now), as ``provider`` records it (default: as any agent does); ``model_id``
    ``None`` and ``suggestions`` (``close_names``) for a name with no price."""
    return look_up_lasting(data, name, provider, when)[0]


def look_up_lasting(data: PriceData, name: str, provider: str | None,
                    when: datetime | None) -> tuple[dict[str, Any], float | None]:
    """``look_up``'s entry, and the moment its prices may change (epoch seconds; ``None``:
    not while the price data is the same): ``pricing.ownmodels`` keeps it until then."""
    found: dict[str, Any] = {
        "query": name, "provider": None, "model_id": None, "name": None, "prices": None, "price_fields": None,
        "suggestions": [],
        # the agents whose sessions recorded the name: ``prices`` without a MODEL (``ownmodels``)
        "recorded_by": None,
    }
    priced = _priced(data, name, provider, when)
    if priced is not None:
        found.update(priced[0])
        return found, priced[1]
    # Only a name with no price costs a look at the library's names.  A short name
    # (``sonet-4.5``) is misspelt as Anthropic's names are (``claude-sonet-4-5``), and its
    # guesses are offered as it was asked, in short (``sonnet-4.5``).
    forms = _recorded_forms(name)
    found["suggestions"] = close_names(data, provider, name, *forms, short=bool(forms), when=when)
    return found, None


def fast_mode_gap(data: PriceData, name: str, provider: str | None, when: datetime | None) -> str | None:
    """The model a Claude fast-mode name with no price was made of, as asked, when that model
    has a standard price (``claude-opus-4-6`` for ``claude-opus-4-6-fast``, ``opus-4.6`` for
    ``opus-4.6-fast``): the data lacks its fast-mode price alone, and "no price" says so."""
    from agentscan.pricing import aliases

    for asked in (name, *_recorded_forms(name)):
        base = aliases.fast_mode_base(asked)
        if base is not None and _priced(data, base, provider, when) is not None:
            return name[: -len(aliases.FAST_MODE_SUFFIX)]
    return None


def _priced(data: PriceData, name: str, provider: str | None,
            when: datetime | None) -> tuple[dict[str, Any], float | None] | None:
    """``library.describe_lasting``'s answer for the first way ``name`` is priced, or ``None``.
    Without a provider, a name one agent records differently (Cursor's ``claude-4.5-sonnet``)
    is looked up as each agent records it, as ``list`` prices it: "no price" was wrong."""
    from agentscan.pricing import aliases, library

    agents = [provider] if provider is not None else ["", *aliases.PROVIDER_HINTS]
    for agent, ref in _refs(agents, name):
        try:
            return library.describe_lasting(data, aliases.PROVIDER_HINTS.get(agent), ref, when)
        except library.NotPriceable:
            pass
    return None


def _refs(agents: list[str], name: str) -> list[tuple[str, str]]:
    """(agent, model ref) for each agent that knows ``name``, then for each recorded name a
    Claude model's short name stands for: a person copies the model from the table they see."""
    from agentscan.pricing import aliases
    from agentscan.pricing.modelnames import recorded_names

    named = [(agent, name) for agent in agents] + recorded_names(name, agents)
    return [(agent, ref) for agent, recorded in named if (ref := aliases.model_ref(agent, recorded)) is not None]


#: a Claude family's name alone, as a person might ask for ``sonnet``
_FAMILY = re.compile(r"[A-Za-z]+")


def _recorded_forms(name: str) -> list[str]:
    """Anthropic's spellings of the model a short name stands for, the ones the price data
    lists (``sonet-4.5``: ``claude-sonet-4-5``, ``claude-4-5-sonet``), and for a family
    alone, that family's (``sonnet``: ``claude-sonnet``); none for a name that is no short one."""
    from agentscan.pricing.modelnames import recorded_names

    if name.lower().startswith("claude-"):
        return []
    if _FAMILY.fullmatch(name):
        return [f"claude-{name}"]
    return [recorded for _, recorded in recorded_names(name, ["claude"])]


#: how like the name asked a model's name must be to be offered (``difflib``'s ratio), and how
#: many are: the best, and those nearly as like it (``claude-sonnet-4-6`` beside ``-4-5``
#: would be a guess between two)
_CLOSE_ENOUGH, _NEARLY_AS_CLOSE, _OFFERED = 0.75, 0.05, 3


def close_names(data: PriceData, provider: str | None, name: str, *spelt: str, short: bool = False,
                when: datetime | None = None) -> list[str]:
    """The price data's model ids most like ``name`` (a misspelt ``claude-sonet-4-5``:
    ``claude-sonnet-4-5``) or like another spelling of it (``spelt``, each id scored by the
    one it is most like): of the agent's vendor with ``provider``, else of every provider.
    With ``short``, each as the short name a table shows (``sonnet-4.5``).  Only names
    ``look_up`` finds a price for at ``when``: each is worth passing back to ``prices``."""
    import difflib

    from agentscan.pricing import aliases, library
    from agentscan.pricing.modelnames import short_name, undated

    vendor = aliases.PROVIDER_HINTS.get(provider) if provider else None
    ids = {model.id.lower(): model.id for each in library.snapshot(data).providers
           if vendor is None or each.id == vendor for model in each.models}
    ratios: dict[str, float] = {}
    for asked in (name, *spelt):
        matcher = difflib.SequenceMatcher(b=asked.lower())
        for lowered, model_id in ids.items():
            matcher.set_seq1(lowered)
            if matcher.real_quick_ratio() >= _CLOSE_ENOUGH and matcher.quick_ratio() >= _CLOSE_ENOUGH:
                ratio = matcher.ratio()
                if ratio >= max(_CLOSE_ENOUGH, ratios.get(model_id, 0.0)):
                    ratios[model_id] = ratio
    # A Claude fast-mode name (``claude-opus-4-6-fast``, short ``opus-4.6-fast``) is offered
    # fast-mode names alone: its model's standard price (``claude-opus-4-6``) is not what a
    # fast-mode call is billed at.
    if any(aliases.fast_mode_base(asked) is not None for asked in (name, *spelt)):
        ratios = {model_id: ratio for model_id, ratio in ratios.items()
                  if model_id.lower().endswith(aliases.FAST_MODE_SUFFIX)}
    scored = sorted(ratios.items(), key=lambda pair: (-pair[1], pair[0]))
    best = scored[0][1] if scored else 0.0
    offered: list[str] = []
    for model_id, ratio in scored:
        if ratio < best - _NEARLY_AS_CLOSE or len(offered) == _OFFERED:
            break
        # The short name if it is priced as asked, else the id (``v1`` alone is no ``claude-v1``);
        # a name the library lists but prices only with a context it is not asked with, neither.
        for shown in dict.fromkeys((short_name(undated(model_id)), model_id) if short else (model_id,)):
            if shown != name and (shown in offered or _priced(data, shown, provider, when) is not None):
                if shown not in offered:
                    offered.append(shown)
                break
    return offered
