"""A model name as a person types it to ``agentscan prices``, and the text in brackets after one.

agentscan's own names of a call have a suffix in brackets, which no model id has (genai-prices'
4,000 have no space and no bracket): ``(us-only)`` (``inferencegeo``) and a Codex service tier
(``aliases.service_tier_name``); a Claude fast-mode call is ``<model>-fast``; and a ``tokens
--by model`` table names the agents that recorded a name after it (``sonnet-4.5 (claude,
cursor)``).  genai-prices matches a name by its start, so any other text in brackets
(``claude-opus-4-6 (foo)``) was priced at the list price of the model it starts with, and
said nothing: a guess.  Such a name has no price, and says why (``library.find``,
``unknown_suffix``).  A typed name is read as agentscan spells it first (``typed_name``):
``claude-opus-4-6(US-only)``, ``opus-4.6 (fast)`` (Claude's fast mode, not Codex's priority
tier) and a table's agents.
"""

from __future__ import annotations

import re

from agentscan.pricing.aliases import FAST_MODE_SUFFIX, PROVIDER_HINTS, fast_mode_base, service_tier_of
from agentscan.pricing.inferencegeo import US_ONLY_SUFFIX, us_only_base
from agentscan.toolkit.words import quoted

#: what a person is told agentscan reads in brackets after a model (``unknown_suffix``'s reason)
KNOWN_SUFFIXES = ("(us-only): US-only inference; (fast) or -fast: a Claude model's fast mode; a Codex service"
                  " tier: (priority), (flex), (ultrafast), (scale); an agent's name: (claude), (codex),"
                  " (gemini), (cursor)")

#: what a recorded name may carry in brackets after its model (``library.find``'s reason: an
#: agent's name is a table's, never recorded)
RECORDED_SUFFIXES = ("a recorded name may carry (us-only) after a Claude model: US-only inference; a Codex"
                     " service tier: (priority), (flex), (ultrafast), (scale)")

#: a name typed with words in brackets after it (any spacing; a table's ``(claude, cursor)``)
_BRACKETED = re.compile(r"\s*(?P<model>[^()]*?\S)\s*\(\s*(?P<words>[^()]*?)\s*\)\s*")
#: a name with words in square brackets after it (``claude-sonnet-4-5 [foo]``): agentscan writes
#: none, and genai-prices would match the model before them by its start; but ``[1m]``
#: (``LONG_CONTEXT_WORD``) is Claude Code's own name of a model with its 1M context window
#: (``opus[1m]`` in settings, ``claude-opus-4-7[1m]`` in its hook payloads, recorded by gateways
#: and other tools): priced as the model, whose long-context tier bills what passes 200k
_SQUARE = re.compile(r"\s*(?P<model>[^\[\]]*?\S)\s*\[\s*(?P<words>[^\[\]]*?)\s*\]\s*")
#: a Claude model's name, Anthropic's or as a table shortens it (``opus-4.6``)
LONG_CONTEXT_WORD = "1m"
#: ``(us-only)`` typed with a dash, as a model id's other words are (``claude-opus-4-6-us-only``)
_US_ONLY_DASHED = "-" + US_ONLY_SUFFIX.strip(" ()")
_CLAUDE = re.compile(r"(?:claude|opus|sonnet|haiku)(?![a-z])", re.IGNORECASE)


def typed_name(name: str, provider: str | None) -> tuple[str, str | None]:
    """(the name ``prices`` looks up, the agent it is looked up as) for ``name`` typed with
    ``provider`` (``--provider``): ``(us-only)`` in any case and spacing as agentscan spells it,
    a Claude model's ``(fast)`` as its fast-mode name (``opus-4.6-fast``), and a table's agents
    (``sonnet-4.5 (cursor)``: as Cursor records it; of several, as any does).  Any other name
    as it is (a Codex tier is ``aliases.typed_tier_name``'s)."""
    typed = _BRACKETED.fullmatch(name) if name.rstrip().endswith(")") else None
    if typed is None:
        dashed = _unprefixed(name.rstrip())
        base = dashed[:-len(_US_ONLY_DASHED)]
        # (once: ``…-us-only-us-only`` said ``(us-only)`` twice, in the name and as priced)
        if dashed.lower().endswith(_US_ONLY_DASHED) and _CLAUDE.match(dashed) \
                and not base.lower().endswith(_US_ONLY_DASHED):
            # ``claude-opus-4-6-us-only`` was priced at the list price (the library matched the
            # model by its start): read as the US-only name, which the table then shows
            return base.lower() + US_ONLY_SUFFIX, provider
        return name, provider
    model, words = typed["model"], typed["words"].lower()
    if words == US_ONLY_SUFFIX.strip(" ()"):
        # (a Claude model's id is lower case, and so the name its US-only calls are priced under)
        claude = _unprefixed(model)
        return (claude.lower() if _CLAUDE.match(claude) else model) + US_ONLY_SUFFIX, provider
    if words == "fast" and _CLAUDE.match(model) and not model.lower().endswith(FAST_MODE_SUFFIX):
        return model + FAST_MODE_SUFFIX, provider
    agents = {word.strip() for word in words.split(",")}
    if agents and agents <= PROVIDER_HINTS.keys() and (provider is None or provider in agents):
        return model, provider if provider is not None else next(iter(agents)) if len(agents) == 1 else None
    return name, provider


def _unprefixed(model: str) -> str:
    """``model`` without the provider a person may type before a Claude model's name, as
    genai-prices names it (``anthropic/claude-opus-4-6``): with it, the US-only name was not
    read, and the library priced the model as ``google/claude-opus-4-6`` at its list price."""
    head, slash, rest = model.partition("/")
    return rest if slash and head.lower() in _PROVIDER_PREFIXES and _CLAUDE.match(rest) else model


#: the providers a Claude model's name may be typed after (``anthropic/``), as genai-prices names them
_PROVIDER_PREFIXES = frozenset({"anthropic"})


def unknown_suffix(ref: str) -> str | None:
    """The text in brackets at the end of ``ref`` when it is no suffix agentscan built (a US-only
    call's, a Codex service tier's), else ``None``: such a name has no price
    (``library.find``), never its model's list price."""
    if "[" in ref or "]" in ref:
        square = _SQUARE.fullmatch(ref)
        if square is not None and square["words"].lower() == LONG_CONTEXT_WORD:
            return None  # (the model's own price: its tiers above 200k are the 1M window's)
        return square["words"] if square is not None else ref
    if "(" not in ref and ")" not in ref:
        return None  # (nearly every name, once per price key: no pattern run)
    if us_only_base(ref) is not None or service_tier_of(ref)[1] is not None:
        return None
    typed = _BRACKETED.fullmatch(ref)
    return typed["words"] if typed is not None else ref


def bracketed_model(name: str) -> str | None:
    """The model before the brackets of ``name`` (``claude-opus-4-6`` of ``claude-opus-4-6
    (foo)``, ``claude-sonnet-4-5`` of ``claude-sonnet-4-5 [1m]``), ``None`` without them."""
    ends = name.rstrip()[-1:]
    typed = _BRACKETED.fullmatch(name) if ends == ")" else _SQUARE.fullmatch(name) if ends == "]" else None
    return typed["model"] if typed is not None else None


def us_only_elsewhere(words: str, model: str | None) -> bool:
    """Whether ``words`` in brackets after ``model`` are ``us-only`` after no Claude model
    (``grok-4 (us-only)``): US-only inference is Claude's alone (``inferencegeo``)."""
    return words.strip().lower() == US_ONLY_SUFFIX.strip(" ()") and model is not None and not _CLAUDE.match(model)


def unknown_suffix_reason(words: str, model: str | None, listed: str) -> str:
    """Why ``model`` with ``words`` in brackets has no price: the US-only suffix after another
    model than Claude's, else words that are none of ``listed`` (what such a name may carry)."""
    if us_only_elsewhere(words, model):
        return f"(us-only) applies to Claude models only, not {quoted(model)}"
    return f"{quoted(words)} in brackets is no suffix agentscan knows ({listed})"


def claude_variants(model: str) -> list[str]:
    """The names of ``model``'s priced variants a person may have meant, for a Claude model:
    its fast mode's and US-only inference's (``prices`` offers those it prices)."""
    if not _CLAUDE.match(model) or fast_mode_base(model) is not None:
        return []
    return [model + FAST_MODE_SUFFIX, model + US_ONLY_SUFFIX]
