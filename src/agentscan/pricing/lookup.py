"""What a model costs, looked up by the name an agent records or a table shows (``agentscan prices``).

A name is looked up as each agent records it (Cursor's ``claude-4.5-sonnet``
is Anthropic's ``claude-sonnet-4-5``), and a short name a table shows
(``sonnet-4.5``) as the names it stands for (``modelnames``).  A name with no
price gets the price data's names most like it, or most like the names a short one
stands for (``sonet-4.5``: ``sonnet-4.5``), each one ``prices`` finds a price for.
"""

from __future__ import annotations

import re
from datetime import date, datetime
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
        # the price variant (``fast mode``, ``priority tier``, ``US-only``, ``fast mode, US-only``)
        # and what every token rate is multiplied by (US-only: 1.1): ``library._described``
        "variant": None, "multiplier": None,
        "suggestions": [],
        # the agents whose sessions recorded the name: ``prices`` without a MODEL (``ownmodels``)
        "recorded_by": None,
    }
    priced = _priced(data, name, provider, when)
    if priced is not None:
        found.update(priced[0])
        return found, priced[1]
    if fast_mode_gap(data, name, provider, when) is not None or tier_gap(data, name, provider, when) is not None:
        # Its model is priced, and the data lacks that variant's price alone (``prices`` says so):
        # another model's fast-mode or tier price (``opus-4.8-fast`` for ``sonnet-4.5-fast``) is no answer.
        return found, None
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


def tier_gap(data: PriceData, name: str, provider: str | None, when: datetime | None) -> tuple[str, str] | None:
    """(the model, the tier) a Codex service tier's name with no price was made of
    (``gpt-5.1-codex-mini``, ``priority``), when that model has a standard price: the data
    lacks that tier's price alone, and "no price" says so.  So for an OpenAI model's name ending
    in a tier's word (``gpt-5.1-codex-mini-priority``) whose tier has no price; one whose tier
    has (``gpt-5.5-priority``) has no gap: ``close_names`` offers ``gpt-5.5 (priority)``."""
    from agentscan.pricing import aliases

    spelt = aliases.codex_tier_spelling(name)
    base, tier = aliases.service_tier_of(spelt)
    if tier is None or _priced(data, base, provider, when) is None:
        return None
    if spelt != name and _priced(data, spelt, provider, when) is not None:
        return None
    return base, tier


def variant_start(data: PriceData, name: str, provider: str | None) -> date | None:
    """The first day the price variant a fast-mode or tier name asks for holds
    (``gpt-5.5 (priority)``: 2026-10-12), as ``name`` is first found; ``None``: none said."""
    from agentscan.pricing import library

    match = _first_match(data, name, provider)
    return None if match is None else library.variant_start(match)


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


def undated_then(data: PriceData, name: str, provider: str | None, when: datetime) -> bool:
    """Whether ``name``'s prices at ``when`` (``prices --at``) are its earliest, dated by nothing
    in the price data (``library.dated_then``): a date before the model existed gets them too,
    which ``prices`` says; ``False`` for a name with no price."""
    from agentscan.pricing import library

    match = _first_match(data, name, provider)
    return match is not None and not library.dated_then(match, when)


def _first_match(data: PriceData, name: str, provider: str | None) -> Any:
    """``library.find``'s match for the first way ``name`` is priced (as ``_priced`` looks it
    up), or ``None``."""
    from agentscan.pricing import aliases, library

    agents = [provider] if provider is not None else ["", *aliases.PROVIDER_HINTS]
    for agent, ref in _refs(agents, name):
        try:
            return library.find(data, aliases.PROVIDER_HINTS.get(agent), ref)
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

    if name.lower().startswith("claude-") or not _claude_family(name):
        return []
    if _FAMILY.fullmatch(name):
        return [f"claude-{name}"]
    return [recorded for _, recorded in recorded_names(name, ["claude"])]


#: the Claude families a short name starts with (``sonnet-4.5``), and how like one a mistyped
#: family must be (``sonet``, ``opsu``): another vendor's name (``gpt-5.5-fast``) is no Claude
#: short name, and its Claude spellings (``claude-gpt-5-5-fast``) only drew Claude guesses
_CLAUDE_FAMILIES, _FAMILY_LIKE = ("haiku", "sonnet", "opus", "instant"), 0.6


def _claude_family(name: str) -> bool:
    """Whether ``name`` starts with a Claude family's word, or one mistyped."""
    import difflib

    word = _FAMILY.match(name)
    return word is not None and any(difflib.SequenceMatcher(a=word[0].lower(), b=family).ratio() >= _FAMILY_LIKE
                                    for family in _CLAUDE_FAMILIES)


def _leading_forms(model_id: str) -> list[str]:
    """The shorter names a model id starts with, cut at a dash, of two words or more
    (``grok-4-fast`` and ``grok-4`` of ``grok-4-fast-reasoning``): offered only where the
    library prices them (``close_names``)."""
    words = model_id.split("-")
    return ["-".join(words[:end]) for end in range(2, len(words))]


def _spelling(name: str) -> str:
    """``name`` with its version's dots as dashes: ``claude-opus-4.8-fast`` and
    ``claude-opus-4-8-fast`` are one model's names."""
    return name.lower().replace(".", "-")


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
    ids: dict[str, str] = {}
    # A Codex service tier's name (``gpt-5.9 (priority)``) is offered that tier's names alone,
    # as a fast-mode name is fast-mode names (below).
    codex = aliases.codex_tier_spelling(name)  # (``gpt-5.5-fast``: Codex's fast mode, ``gpt-5.5 (priority)``)
    tier = aliases.service_tier_of(codex)[1]
    if codex != name:
        spelt = (*spelt, codex)
    for each in library.snapshot(data).providers:
        if vendor is not None and each.id != vendor:
            continue
        for model in each.models:
            ids.setdefault(model.id.lower(), model.id)
            # A name the library matches by its start (``grok-4-fast`` for xAI's
            # ``grok-4-fast-reasoning``) is what a person types, and mistypes (``grok-4-fat``).
            for form in _leading_forms(model.id):
                ids.setdefault(form.lower(), form)
            if each.id == "anthropic" and any(variant.when == library.FAST_MODE
                                              for variant in model.price_variants or ()):
                # Claude Code's fast-mode name of it, as Anthropic spells it (``claude-opus-4-8-fast``),
                # not a reseller's (Copilot's ``claude-opus-4.8-fast``)
                fast = aliases.fast_mode_name(model.id)
                ids.setdefault(fast.lower(), fast)
            if tier is not None and any(variant.when == {"service_tier": tier}
                                        for variant in model.price_variants or ()):
                tiered = aliases.service_tier_name(model.id, tier)  # (``gpt-5.5 (priority)``)
                ids.setdefault(tiered.lower(), tiered)
    ratios: dict[str, float] = {}
    # The name asked, however spelt, has no price: never a guess of itself (a shorter name
    # the data's ids start with, ``claude-sonnet`` for ``sonnet``, would crowd out the rest).
    asked_as = {asked.lower() for asked in (name, *spelt)} - {codex.lower()}  # (Codex's spelling is priced)
    for asked in (name, *spelt):
        matcher = difflib.SequenceMatcher(b=asked.lower())
        for lowered, model_id in ids.items():
            if lowered in asked_as:
                continue
            matcher.set_seq1(lowered)
            if matcher.real_quick_ratio() >= _CLOSE_ENOUGH and matcher.quick_ratio() >= _CLOSE_ENOUGH:
                ratio = matcher.ratio()
                if ratio >= max(_CLOSE_ENOUGH, ratios.get(model_id, 0.0)):
                    ratios[model_id] = ratio
    # A Claude fast-mode name (``claude-opus-4-9-fast``, short ``opsu-4.6-fast``) is offered
    # fast-mode names alone: its model's standard price (``claude-opus-4-6``) is not what a
    # fast-mode call is billed at.
    if any(aliases.fast_mode_base(asked) is not None for asked in (name, *spelt)):
        ratios = {model_id: ratio for model_id, ratio in ratios.items()
                  if model_id.lower().endswith(aliases.FAST_MODE_SUFFIX)}
    if tier is not None:
        ratios = {model_id: ratio for model_id, ratio in ratios.items()
                  if aliases.service_tier_of(model_id)[1] == tier}
    scored = sorted(ratios.items(), key=lambda pair: (-pair[1], pair[0]))
    best = scored[0][1] if scored else 0.0
    offered: list[str] = []
    spelt_as: set[str] = set()  # the names offered, each as ``_spelling`` has it
    for model_id, ratio in scored:
        if ratio < best - _NEARLY_AS_CLOSE or len(offered) == _OFFERED:
            break
        if _spelling(model_id) in spelt_as:
            continue  # one model spelt two ways (``claude-opus-4-8-fast``, ``claude-opus-4.8-fast``): the closer
        spelt_as.add(_spelling(model_id))
        # The short name if it is priced as asked, else the id (``v1`` alone is no ``claude-v1``);
        # a name the library lists but prices only with a context it is not asked with, neither.
        for shown in dict.fromkeys((short_name(undated(model_id)), model_id) if short else (model_id,)):
            if shown != name and (shown in offered or _priced(data, shown, provider, when) is not None):
                if shown not in offered:
                    offered.append(shown)
                break
    return offered
