"""From a recorded model name to the model ref genai-prices is asked about.

Claude Code, Codex and Gemini CLI record API model ids, which the library
matches itself.  Cursor records display names; the library already
understands most of them (``claude-4.5-opus-high-thinking``), and
``CURSOR_ALIASES`` names the few it does not.  Every entry is pinned by a
test (``test_each_cursor_alias_reaches_the_model_it_names`` in
tests/test_pricing_book.py) and documented in docs/pricing.md.
Anything else is looked up as written; a name the library does not know
gets no price, never a guessed one.
"""

from __future__ import annotations

import re

#: the genai-prices provider each agent's models are billed by; ``None``
#: lets the library infer it from the model name (Cursor runs many vendors' models)
PROVIDER_HINTS: dict[str, str | None] = {
    "claude": "anthropic",
    "codex": "openai",
    "gemini": "google",
    "cursor": None,
}

#: names that identify no model, so they are never priced
NOT_A_MODEL = frozenset({
    "default",  # Cursor's "auto" mode: the model it picked is not recorded
    "auto",
    "<synthetic>",  # Claude Code's locally made messages (errors, interruptions)
    "unknown",
})

#: names of messages no model made, so nothing was billed: they cost $0 whatever their
#: tokens say.  Claude Code writes its own error and interruption notices as turns of a
#: ``<synthetic>`` model (with zero usage); priced as "no price" they made a
#: ``--by model`` row, or a session of only such turns, an unknown cost and a warning.
UNBILLED = frozenset({"<synthetic>", "synthetic"})


def unbilled(model: str | None) -> bool:
    """Whether ``model`` names messages no model made (``UNBILLED``), however it is written."""
    return model is not None and model.strip().lower() in UNBILLED

#: Cursor display name -> the API model it runs.  Thinking and effort
#: variants bill at the base model's rates; "fast"/"max" variants do not,
#: so they are deliberately absent (and ``VARIANT_WORDS`` keeps the library
#: from matching them to the base model by its name's start).
CURSOR_ALIASES: dict[str, str] = {
    "claude-4.5-sonnet": "claude-sonnet-4-5",
    "claude-4.5-sonnet-thinking": "claude-sonnet-4-5",
    "claude-4.1-opus": "claude-opus-4-1",
    "claude-4.1-opus-thinking": "claude-opus-4-1",
    "gpt-5-high": "gpt-5",
}


#: Claude models as Amazon Bedrock names them: ``anthropic.claude-sonnet-4-20250514-v1:0``,
#: and as cross-region inference profiles, ``us.``/``eu.``/``apac.``/``jp.``/``au.``/``global.``
#: before it.  Claude Code on Bedrock (``CLAUDE_CODE_USE_BEDROCK``) records the profile it was
#: given (``ANTHROPIC_MODEL=eu.anthropic.claude-opus-4-7``); Anthropic's own price list has
#: no such name, and Bedrock bills a regional profile at its own rate (10 % more), which
#: genai-prices lists under ``aws`` (``library.find``).
#: A profile's ARN (``arn:aws:bedrock:…:inference-profile/us.anthropic.claude-…``) and a
#: gateway's name (LiteLLM's ``bedrock/us.anthropic.claude-…``) end with one; GovCloud's
#: profiles are ``us-gov.anthropic.claude-…``.
_BEDROCK_NAME = re.compile(r"^(?:[a-z]{2,6}(?:-[a-z]{2,6})?\.)?anthropic\.claude", re.IGNORECASE)
BEDROCK_PROVIDER = "aws"


def bedrock_ref(ref: str) -> str | None:
    """The Bedrock id or inference profile ``ref`` names (``_BEDROCK_NAME``), without an ARN's or
    a gateway's path before it; ``None`` when it names none."""
    name = ref.rpartition("/")[2]
    return name if _BEDROCK_NAME.match(name) else None


def model_ref(provider: str, model: str | None) -> str | None:
    """The name to look up, or ``None`` when the call names no model."""
    if not model or model.strip().lower() in NOT_A_MODEL:
        return None
    name = model.strip()
    if provider == "cursor":
        return CURSOR_ALIASES.get(name.lower(), name)
    return name


#: words that make a model name a dearer product than the model whose name it starts
#: with: Cursor's ``claude-4.6-opus-high-thinking-fast`` (Anthropic's fast mode, 6x the
#: rate) and ``claude-4.5-opus-max`` (Max mode) are matched by genai-prices to
#: ``claude-opus-4-6`` and ``claude-opus-4-5``, whose ``claude-4.6-opus`` rule is a
#: prefix.  Such a name is priced only when the library's rule that matched it names the
#: word too (``gpt-5.1-codex-max`` and ``grok-code-fast-1`` are listed whole):
#: ``library.find``.  Words like ``thinking``, ``high`` or ``1m`` are not here: the library
#: has no other price for them (thinking is billed as output, effort changes no rate,
#: and a long context is a tier of the base model's price).
VARIANT_WORDS = frozenset({"fast", "max"})

#: the version of the rules that turn a name into a price, kept with each answer the index
#: remembers (``book.PriceBook._load``): an answer for a name with a variant word, and any
#: "no price", kept under an older version is asked for again.  1: variant words.  2: Claude's fast-mode calls (``FAST_MODE_SUFFIX``) are priced at the library's
#: fast-mode rates, where an answer of 1 had them unpriced (or, for a gateway id ending in
#: ``-fast``, at the base rate).  3: only a Claude model's name is a fast-mode name (2 left
#: ``grok-4-fast`` in a Claude Code session unpriced).
#: 4: Bedrock's names of Claude models are priced at Bedrock's rates; and since 4 any "no
#: price" remembered under an older rule is asked again (a rule that prices more names
#: would otherwise never reach a name the index already holds as unpriced).
#: 5: Codex's calls on a service tier (``SERVICE_TIER_WORDS``) are priced at the tier's rates.
#: 6: only a tier name agentscan built (``gpt-5.5 (priority)``) is priced at a tier's rates: a
#: name ending in a tier's word (``gemini-2.5-pro-flex``) is priced as written, as before 5.
#: 7: ``scale`` and a tier agentscan does not know (``gpt-5.5 (turbo tier)``) are unpriced, and
#: said why (a "no price" remembered under 6 said the price data lacked them).
#: 8: that why is ``unpriced_tier``'s, as ``prices`` says it (a "no price" of 7 said it otherwise).
#: 9: a name with text in brackets agentscan did not build (``claude-opus-4-6 (foo)``) has no
#: price (``typednames.unknown_suffix``), where 8 gave it its model's list price.
#: 10: so has one with text in square brackets (``claude-sonnet-4-5 [1m]``), and a "no price"
#: for a suffix says what a recorded name may carry (9 listed what a typed one may).
#: 11: ``[1m]``, Claude Code's name of a model with its 1M context window, is priced as the model
#: again (10 left it unpriced).
PRICE_RULES = 11

#: what Claude Code's calls made in fast mode (``message.usage.speed == "fast"``) have after
#: their model (``claude-opus-4-8-fast``, as ccusage names them): fast mode is billed at other
#: rates, so its calls are another price key and another ``--by model`` row
#: (``providers.claude.usage.call_of``).  The API's model id has no such suffix.
FAST_MODE_SUFFIX = "-fast"
#: the genai-prices providers (``PROVIDER_HINTS``) whose fast mode is a price variant of the
#: model (``when == {"speed": "fast"}``): Anthropic's, for Claude Code's calls alone
_FAST_MODE_PROVIDERS = frozenset({"anthropic"})
#: how the models with a fast mode are named: a Claude Code session routed to another
#: vendor's model whose own name ends in ``-fast`` (xAI's ``grok-4-fast``) keeps that price
FAST_MODE_FAMILY = "claude-"


def _claude_model(model: str) -> bool:
    """Whether ``model`` names a Claude model, by Anthropic's name or Bedrock's."""
    return model.startswith(FAST_MODE_FAMILY) or bedrock_ref(model) is not None


def fast_mode_name(model: str) -> str:
    """The name a Claude Code call of ``model`` made in fast mode is counted and priced under
    (``claude-opus-4-8-fast``; a Bedrock id's too, which has no fast-mode price: never the
    standard one); only Claude models have a fast mode, so another keeps its name
    (``grok-4`` is not xAI's ``grok-4-fast``, another model at another price)."""
    if not _claude_model(model) or model.endswith(FAST_MODE_SUFFIX):
        return model
    return model + FAST_MODE_SUFFIX


def fast_mode_base(model: str) -> str | None:
    """The model a fast-mode name (``fast_mode_name``) was made of: ``claude-opus-4-8`` for
    ``claude-opus-4-8-fast``; ``None`` for any other name (``grok-4-fast`` is its own)."""
    if not model.endswith(FAST_MODE_SUFFIX):
        return None
    base = model[: -len(FAST_MODE_SUFFIX)]
    return base if len(base) > len(FAST_MODE_FAMILY) and _claude_model(base) else None


def fast_mode_model(provider_hint: str | None, ref: str) -> str | None:
    """The model a fast-mode call ran (``fast_mode_base``) when ``ref`` names one for the
    genai-prices provider ``provider_hint``, else ``None``.  Cursor's display names
    (``claude-4.6-opus-high-thinking-fast``) have no hint: their ``-fast`` stays a variant
    word (``library.find``)."""
    return fast_mode_base(ref) if provider_hint in _FAST_MODE_PROVIDERS else None


#: Codex's service tiers billed at other rates than the standard one, as Codex records them
#: (``thread_settings.service_tier``).  A call on one is counted and priced under
#: ``<model> (<tier>)`` (``gpt-5.5 (priority)``: another ``--by model`` row, as a Claude
#: fast-mode call's), at the library's price variant ``when == {"service_tier": tier}``;
#: the standard tier (``STANDARD_TIERS``, or none) is the standard price.  A row's MODEL is the
#: model alone.  ``scale`` is the API's Scale Tier, paid for by committed units, not by token:
#: the library has no price for it, so such a call has none (and a warning), never the standard one.
SERVICE_TIER_WORDS = ("priority", "flex", "ultrafast", "scale")
#: the tiers billed by the token, which the price data may price (``priced_tier``)
_PER_TOKEN_TIERS = frozenset(SERVICE_TIER_WORDS) - {"scale"}
#: the names of the standard tier: ``auto`` is the API's "the project's default", the standard
#: tier for any project without Scale Tier units; ``standard`` is openai/codex's ``ServiceTier::Standard``
STANDARD_TIERS = frozenset({"default", "standard", "auto"})
#: Codex's older name of a tier: its ``/fast`` mode, sent to the API as ``priority``
#: (Codex translates a ``fast`` in its settings to that request value)
_TIER_SPELLINGS = {"fast": "priority"}
#: what a tier agentscan does not know has after its name (``gpt-5.5 (turbo tier)``): its price
#: is unknown, so its calls have none and a warning, never the standard price a cost-watcher
#: would take as what they were billed.  The word sets it apart from ``tokens``' agent
#: suffix (``sonnet-4.5 (cursor)``), which has none.
UNKNOWN_TIER_SUFFIX = " tier"
#: a tier's name as it may stand in a name: a word, so no text of a file reaches a price key raw
_TIER_WORD = re.compile(r"[a-z0-9][a-z0-9_.-]{0,39}")
#: the tier a call is counted on when the tier its record names is no word (``_TIER_WORD``):
#: ``gpt-5.5 (? tier)``, ``show``'s ``service_tiers`` ``{"?": 1}``.  No tier's name can be it
#: (``unknown``, which this was, could be a real tier's), and no text of a file is carried.
UNNAMED_TIER = "?"
#: a name ``service_tier_name`` built.  A space and parentheses, which no model id has (an
#: API's ids, genai-prices' 4,000): a name that itself ends in a tier's word
#: (``…-flash-1017-ultrafast``, ``gemini-2.5-pro-flex``) is never read as a tier.
_TIERED = re.compile(r"(?P<model>\S.*?) \((?:(?P<tier>" + "|".join(SERVICE_TIER_WORDS) + r")|(?P<other>"
                     + _TIER_WORD.pattern + "|" + re.escape(UNNAMED_TIER) + r")" + UNKNOWN_TIER_SUFFIX + r")\)")


def service_tier_name(model: str, tier: str | None) -> str:
    """The name a Codex call of ``model`` on service tier ``tier`` is counted and priced under
    (``gpt-5.5 (priority)``); ``model`` itself on the standard tier (``STANDARD_TIERS``, or
    none).  A tier agentscan does not know is named so (``gpt-5.5 (turbo tier)``: no price,
    said, as it may bill more).  ``service_tier_of`` reads it back."""
    if tier is None:
        return model
    tier = tier.strip().lower()
    tier = _TIER_SPELLINGS.get(tier, tier)
    if not tier or tier in STANDARD_TIERS:
        return model
    if tier in SERVICE_TIER_WORDS:
        return f"{model} ({tier})"
    if _TIER_WORD.fullmatch(tier) is None:  # (``?`` too: typed back, it is that name)
        tier = UNNAMED_TIER  # (a text no tier's name is: not carried into a name)
    return f"{model} ({tier}{UNKNOWN_TIER_SUFFIX})"


def recorded_tier(value: object) -> str | None:
    """The tier a record's ``service_tier`` value names, for ``service_tier_name``: ``None`` (the
    standard tier) for a ``null`` or no value, the text of a string, and ``UNNAMED_TIER`` for any
    other value (a number, an object): a tier whose name is no word, so its calls have no price
    and a warning, as a string that is no word gets, not the standard price said of nothing."""
    if value is None or isinstance(value, str):
        return value
    return UNNAMED_TIER


def service_tier_of(name: str) -> tuple[str, str | None]:
    """(the model, the tier) a ``service_tier_name`` was made of (``("gpt-5.5", "priority")``,
    ``("gpt-5.5", "turbo")`` of ``gpt-5.5 (turbo tier)``); any other name as it is, with
    ``None``.  The one place a tier is read from a name."""
    if not name.endswith(")"):
        return name, None  # (nearly every name, once per call: no pattern run)
    tiered = _TIERED.fullmatch(name)
    if tiered is None:
        return name, None
    return tiered["model"], tiered["tier"] or tiered["other"]


def priced_tier(tier: str) -> bool:
    """Whether ``tier`` (of ``service_tier_of``) is billed by the token at rates the price data
    may have: not ``scale`` (committed units) nor a tier agentscan does not know."""
    return tier in _PER_TOKEN_TIERS


def unpriced_tier(tier: str) -> str | None:
    """Why a call on ``tier`` (of ``service_tier_of``) has no price whatever the price data holds
    (no ``prices --update`` gives it one); ``None`` for a tier billed by the token
    (``priced_tier``).  The one wording ``tokens``, ``list``, ``show``, ``export`` and ``prices``
    give (``library._service_tier``): ``prices`` said the data lacked a scale-tier price."""
    if tier == "scale":
        return ("a call on the scale tier, paid for by committed units, not by the token, has no price per token:"
                " it is not priced at the standard one")
    if tier == UNNAMED_TIER:
        return ("a call on a service tier whose recorded name is not a plain word has unknown rates:"
                " it is not priced at the standard ones")
    if not priced_tier(tier):
        return (f"a call on {tier!r}, a service tier agentscan does not know, has unknown rates:"
                " it is not priced at the standard ones")
    return None


#: a tier typed by a person: any case and spacing, Codex's ``fast`` and the standard tier's names
#: (``turbo tier`` too: a name ``tokens`` keyed a tier it does not know by, in any case; and
#: ``? tier``, its name of a tier whose recorded name is no word)
_TYPED_TIER = re.compile(r"\s*(?P<model>\S.*?)\s*\(\s*(?P<tier>[A-Za-z][A-Za-z0-9_.-]*|\?)(?P<worded>\s+tier)?\s*\)\s*",
                         re.IGNORECASE)


def typed_tier(name: str) -> tuple[str, str, bool] | None:
    """(the model, the tier in lower case, whether ``tier`` followed it) of a name typed with a
    ``(word)`` after it (``gpt-5.5 (Turbo)``: ``("gpt-5.5", "turbo", False)``), else ``None``."""
    typed = _TYPED_TIER.fullmatch(name) if name.rstrip().endswith(")") else None
    if typed is None:
        return None
    return typed["model"], typed["tier"].lower(), bool(typed["worded"])


def typed_tier_name(name: str, recorded: frozenset[str] | set[str] = frozenset()) -> str:
    """A ``prices`` query's tier spelt as ``service_tier_name`` spells it: ``gpt-5.5  (Priority)``
    and ``gpt-5.5 (fast)`` are ``gpt-5.5 (priority)``, ``gpt-5.5 (default)`` is ``gpt-5.5``
    (said "no price" with no hint, or read the model as ``gpt-5.5 `` with its space).  A
    ``(word)`` is read as a tier when it is one agentscan knows, ``tier`` follows it
    (``gpt-5.5 (turbo tier)``, as ``tokens`` keys it), or it is in ``recorded``, the tiers the
    person's own Codex sessions recorded (``gpt-5.5 (Turbo)``, as ``show`` says "on the turbo
    tier"); any other name as it is (``gpt-5.5 (preview)`` is no tier's)."""
    typed = typed_tier(name)
    if typed is None:
        return name
    model, tier, worded = typed
    if tier in STANDARD_TIERS:
        return model
    tier = _TIER_SPELLINGS.get(tier, tier)
    if tier in SERVICE_TIER_WORDS or worded or tier in recorded:
        return service_tier_name(model, tier)
    return name


def tier_worded(ref: str) -> bool:
    """Whether ``ref`` ends in a tier's word (``gpt-5-nano-flex``): ``PRICE_RULES`` 5 priced
    such a name at that tier, so ``book`` asks its remembered answer again."""
    return ref.rpartition("-")[2].lower() in SERVICE_TIER_WORDS


#: an OpenAI model's name: ``gpt-…``, or a reasoning model's (``o3``, ``o4-mini``)
_OPENAI_NAME = re.compile(r"(?:gpt-|o[0-9])", re.IGNORECASE)


def codex_tier_spelling(name: str) -> str:
    """``name`` as Codex counts a call on a service tier when it is an OpenAI model's name ending
    ``-fast`` (Codex's fast mode) or in a tier's word (``gpt-5.5-fast``, ``gpt-5.5-priority``:
    ``gpt-5.5 (priority)``), else as it is.  Only for what ``prices`` says of a name with no
    price as written (its guesses, the gap it names): never a price, a name ending so being
    another model as often (xAI's ``grok-4-fast``, Fireworks' ``…-1017-ultrafast``)."""
    model, dash, word = name.rpartition("-")
    if dash and model and _OPENAI_NAME.match(name) and (word == "fast" or word in SERVICE_TIER_WORDS):
        return service_tier_name(model, word)
    return name


def variant_words(ref: str) -> list[str]:
    """The ``VARIANT_WORDS`` in ``ref``, as words (``claude-4.6-opus-max``: ``["max"]``;
    not ``minimax-m2``), sorted."""
    lowered = ref.lower()
    if "fast" not in lowered and "max" not in lowered:
        return []  # nearly every name: no split
    for separator in "_.:/@[]= ":
        lowered = lowered.replace(separator, "-")
    return sorted(VARIANT_WORDS.intersection(lowered.split("-")))


#: the model families of the vendors whose models coding agents run, as their names start:
#: a name of one that the price data lacks may be a model newer than the data, which
#: ``agentscan prices --update`` can bring.  A name of one's own (``aide-gpt-5``, a gateway's
#: or a local model's) is in no public price list, however new (``book.PriceBook._report``).
#: Each family is one the bundled data lists models of (tests/test_messages_pass43.py); ``o``
#: is OpenAI's reasoning models, ``o`` and a digit (``o3-mini``, ``o3pro``).
PUBLIC_FAMILIES = ("claude", "gpt", "chatgpt", "codex", "o[0-9]", "gemini", "gemma", "grok", "deepseek", "kimi",
                   "qwen", "glm", "mistral", "codestral", "devstral", "magistral", "llama", "command", "nova",
                   "composer", "minimax", "sonar")
_PUBLIC_FAMILY = re.compile(rf"(?:{'|'.join(PUBLIC_FAMILIES)})(?![A-Za-z])|o[0-9]", re.IGNORECASE)
#: a model run on one's own machine, which no price list has: Ollama's (``ollama/llama3``,
#: ``llama3.1:8b``, ``qwen2.5-coder:7b-instruct``: a size or ``latest`` tag after a colon, not
#: Bedrock's ``…-v1:0`` version) and LM Studio's
_LOCAL = re.compile(r"(?:ollama|ollama_chat|lm_studio|lmstudio)/|:(?:latest|[0-9.]+[bm](?![a-z]))", re.IGNORECASE)

#: names an agent gives runs of its own that are no vendor's model id: no price list has
#: them, however new (``codex`` would have them offered ``prices --update``), and no price
#: is guessed for them (ccusage prices Codex's ``codex-auto-review`` as ``gpt-5.4``; which
#: model it runs is not recorded): what each is, as its "no price" warning says it
AGENT_ALIASES = {
    ("codex", "codex-auto-review"): "an alias Codex uses for its own review runs, with no public price",
}


def agent_alias(provider: str, ref: str) -> str | None:
    """What ``ref`` is when it is an agent's alias of its own (``AGENT_ALIASES``), on any
    service tier (``codex-auto-review (priority)``), else ``None``."""
    return AGENT_ALIASES.get((provider, service_tier_of(ref)[0].lower()))


def public_family(ref: str) -> bool:
    """Whether ``ref`` is named as a model of a public vendor's family (``gpt-7``,
    ``claude-opus-9``, ``openai/o5``, ``eu.anthropic.claude-…``): newer price data may list it."""
    if _LOCAL.search(ref):
        return False
    name = ref.rpartition("/")[2]
    bedrock = _BEDROCK_NAME.match(name)
    if bedrock is not None:
        name = name[bedrock.end() - len("claude"):]
    return _PUBLIC_FAMILY.match(name) is not None
