"""The one module that imports genai-prices (and so pydantic): imported only on a price-row miss.

``period_at`` turns the library's price of a model at one moment into a
``Period``: the span of time over which that price holds (from the
model's dated price changes) and exact per-token coefficients for each
long-context tier, read off the library's own ``calc_price`` answers.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

import orjson
from genai_prices import data_snapshot, types

from agentscan.pricing.aliases import (BEDROCK_PROVIDER, bedrock_ref, fast_mode_model, service_tier_of, unpriced_tier,
                                      variant_words)
from agentscan.pricing.inferencegeo import US_ONLY_MULTIPLIER, us_only_base
from agentscan.pricing.periods import EXACT, NOT_YET, Coefficients, NotPriceable, Period
from agentscan.pricing.source import PriceData
from agentscan.pricing.typednames import RECORDED_SUFFIXES, bracketed_model, unknown_suffix, unknown_suffix_reason
from agentscan.toolkit.words import quoted

_snapshots: dict[str, data_snapshot.DataSnapshot] = {}

__all__ = ["Match", "NotPriceable", "describe_lasting", "find", "parse", "period_at", "snapshot"]


#: the request context of a fast-mode call (``aliases.FAST_MODE_SUFFIX``): the ``when`` of the
#: library's fast-mode price variants, and the ``price_context`` that selects them
FAST_MODE = {"speed": "fast"}


@dataclass(frozen=True, slots=True)
class Match:
    provider: types.Provider
    model: types.ModelInfo
    #: the price variant's request context (``FAST_MODE``), ``None`` for the standard price
    context: dict[str, str] | None = None
    #: what every token rate is multiplied by (US-only inference: ``inferencegeo``), ``None``: 1
    multiplier: Decimal | None = None


def snapshot(data: PriceData) -> data_snapshot.DataSnapshot:
    """The library's data: its bundled snapshot, or the file ``prices --update`` saved."""
    found = _snapshots.get(data.key)
    if found is None:
        if data.source == "fetched" and data.path is not None:
            found = data_snapshot.DataSnapshot(providers=parse(data.path.read_bytes()), from_auto_update=False)
        else:
            from genai_prices.data import providers

            found = data_snapshot.DataSnapshot(providers=providers, from_auto_update=False)
        _snapshots[data.key] = found
    return found


def parse(raw: bytes) -> list[types.Provider]:
    """Validate a price data file exactly as the library's own updater does."""
    document = orjson.loads(raw)
    if not isinstance(document, list):
        raise ValueError("expected a JSON array of providers")
    return types._providers_from_raw(document)  # noqa: SLF001 - the parser UpdatePrices.fetch uses


def find(data: PriceData, provider_hint: str | None, ref: str) -> Match:
    """The library's model for ``ref``, preferring the agent's own provider.

    A name with a variant word (``aliases.VARIANT_WORDS``: ``claude-4.6-opus-max``) is
    priced only by a rule that names the variant: a rule for the base model's name start
    would price it at the base rate, a guess (and a low one).  A fast-mode name of Claude
    Code's (``aliases.fast_mode_model``) is its model at the library's fast-mode price, and a
    Codex call's service tier name (``aliases.service_tier_name``: ``gpt-5.5 (priority)``,
    which no model id is) its model at that tier's price; a US-only call's
    (``inferencegeo.us_only_name``: ``claude-opus-4-6 (us-only)``) its model's price, every token
    rate times ``US_ONLY_MULTIPLIER``; a name with other text in brackets (``typednames``) has no
    price; any other name as written."""
    geo_base = us_only_base(ref)  # (a name agentscan built, whoever recorded it: no model id has a space)
    if geo_base is not None:
        return replace(find(data, provider_hint, geo_base), multiplier=US_ONLY_MULTIPLIER)
    fast = fast_mode_model(provider_hint, ref)
    if fast is not None:
        return _fast_mode(find(data, provider_hint, fast))
    model_ref, tier = service_tier_of(ref)
    if tier is not None:
        # (tried as written, the library would match ``gpt-5.5`` by its start: the standard price)
        return _service_tier(find(data, provider_hint, model_ref), tier)
    suffix = unknown_suffix(ref)
    if suffix is not None:
        # (tried as written, the library would match the model before it by its start: its list price)
        reason = unknown_suffix_reason(suffix, bracketed_model(ref), RECORDED_SUFFIXES)
        raise NotPriceable(f"{reason}: it is not priced at the model's list price")
    snap = snapshot(data)
    attempts: list[str | None] = [provider_hint, None] if provider_hint else [None]
    bedrock = bedrock_ref(ref)
    words = variant_words(ref)
    base = None
    for provider_id in attempts:
        try:
            provider, model = snap.find_provider_model(ref, None, provider_id, None)
        except LookupError:
            continue
        if words and not all(_names(model.match, ref, word) for word in words):
            base = base or model.id
            continue
        return Match(provider, model)
    if bedrock is not None and base is None:
        # Tried last: Anthropic's own name of a model comes first.  An ARN's or a gateway's
        # path before the profile is not part of the name the library knows.
        try:
            provider, model = snap.find_provider_model(bedrock, None, BEDROCK_PROVIDER, None)
        except LookupError:
            pass
        else:
            if not words or all(_names(model.match, bedrock, word) for word in words):
                return Match(provider, model)
            base = model.id
    if base is not None:
        variant = "/".join(words)
        raise NotPriceable(f"genai-prices has no price for {quoted(ref)}, a {variant} variant (billed at other rates "
                           f"than {quoted(base)}, whose name it starts with)")
    raise NotPriceable(f"genai-prices has no model matching {quoted(ref)}")


def _fast_mode(match: Match) -> Match:
    """``match`` at its fast-mode price, when the library has one.  Without one, the library
    answers a fast-mode ``price_context`` with the standard price, silently (Opus 4.6 and 4.7
    in genai-prices 0.2.5; a model found through another provider ignores the context too):
    fast mode bills more, so that would be a guess, and a low one."""
    own = any(model is match.model for model in match.provider.models)
    if not own or not any(variant.when == FAST_MODE for variant in match.model.price_variants or ()):
        raise NotPriceable(f"genai-prices has no fast-mode price for {quoted(match.model.id)} (fast mode is billed "
                           "at other rates than the standard price)")
    return Match(match.provider, match.model, FAST_MODE)


def _service_tier(match: Match, tier: str) -> Match:
    """``match`` at its ``tier`` price (a Codex call on a service tier), when the library has
    one.  Without one, the library answers the context with the standard price, silently: the
    priority tier bills more (a guess, and a low one), flex less, so that is "no price"."""
    unpriced = unpriced_tier(tier)
    if unpriced is not None:
        # (scale: committed units; a tier of a newer Codex may bill more than the standard rate)
        raise NotPriceable(unpriced)
    context = {"service_tier": tier}
    own = any(model is match.model for model in match.provider.models)
    if not own or not any(variant.when == context for variant in match.model.price_variants or ()):
        raise NotPriceable(f"genai-prices has no {tier}-tier price for {quoted(match.model.id)} (the {tier} tier is "
                           "billed at other rates than the standard price)")
    return Match(match.provider, match.model, context)


def _context_words(context: dict[str, str] | None) -> str:
    """How a price variant's request context is said: ``fast-mode``, ``priority-tier``."""
    tier = (context or {}).get("service_tier")
    return f"{tier}-tier" if tier is not None else "fast-mode"


def _variants(match: Match) -> list[types.PriceVariant]:
    """The library's price variants ``match``'s request context selects."""
    if match.context is None:
        return []
    return [variant for variant in match.model.price_variants or () if variant.when == match.context]


def _names(clause: Any, ref: str, word: str) -> bool:
    """Whether a test of ``clause`` that ``ref`` passes names ``word`` (or is the whole name)."""
    # as find_model tries a name (a private helper: a release without it compares the name alone)
    compact = getattr(types, "_normalize_compact_dated_ref", str.lower)
    texts = {ref.lower(), compact(ref.lower())}
    if isinstance(clause, types.ClauseOr):
        return any(_names(part, ref, word) for part in clause.or_)
    if isinstance(clause, types.ClauseAnd):
        return any(clause.is_match(text) for text in texts) and any(_names(part, ref, word) for part in clause.and_)
    if not any(clause.is_match(text) for text in texts):
        return False
    if isinstance(clause, types.ClauseEquals):
        return True
    # starts_with, ends_with, contains, regex: their own text must say the variant
    pattern = next((value for value in vars(clause).values() if isinstance(value, str)), "")
    return word in pattern.lower()


def period_at(match: Match, ts: float | None) -> Period:
    """The price period of ``match`` that holds at ``ts`` (``None``: a call with no time)."""
    now = datetime.now(UTC)
    when = datetime.fromtimestamp(ts, UTC) if ts is not None else now
    start, end = _bounds(match, when)
    if ts is None and (start is not None or end is not None):
        raise NotPriceable("its price changed over time and the call has no timestamp")
    _in_force(match, when)
    prices = match.model.get_prices(when, match.context)
    thresholds = sorted({
        tier.start for value in vars(prices).values() if isinstance(value, types.TieredPrices) for tier in value.tiers
    })
    coefficients = tuple(_coefficients(match, when, low, high) for low, high in _regions(thresholds))
    return Period(start, end, tuple(thresholds), coefficients)


def _in_force(match: Match, when: datetime) -> None:
    """Raise ``NotPriceable`` when ``match``'s price variant holds at no time around ``when``
    (``gpt-5.5``'s priority tier before 2026-10-12): the library would answer with the
    standard price, silently."""
    variants = _variants(match)
    if variants and not any(v.constraint is None or v.constraint.active(when) for v in variants):
        start = variant_start(match)
        raise NotPriceable(f"genai-prices has no {_context_words(match.context)} price for {quoted(match.model.id)}"
                           + (f" before {start.isoformat()}{NOT_YET}" if start is not None and start > when.date()
                              else " at the call's time"))


def variant_start(match: Match) -> date | None:
    """The first day ``match``'s price variant holds (``None``: none said, or no variant)."""
    starts = [start for v in _variants(match) if isinstance(start := getattr(v.constraint, "start_date", None), date)]
    return min(starts, default=None)


def _regions(thresholds: list[int]) -> list[tuple[int, float]]:
    """Total-input ranges (inclusive) within which one tier applies."""
    lows = [0] + [t + 1 for t in thresholds]
    highs: list[float] = [float(t) for t in thresholds] + [float("inf")]
    return list(zip(lows, highs))


def _coefficients(match: Match, when: datetime, low: int, high: float) -> Coefficients:
    """Read the linear cost formula off the library at points inside one tier, then check it."""
    base = max(2, low)
    if base + 1 > high:
        raise NotPriceable("its long-context tiers are too narrow to price")

    def price(
        uncached: int, cache_read: int = 0, cache_write: int = 0, output: int = 0, reasoning: int = 0, hour: int = 0,
        searches: int = 0,
    ) -> Decimal:
        usage = types.Usage(
            input_tokens=uncached + cache_read + cache_write,  # the library's input includes cached tokens
            cache_read_tokens=cache_read,
            cache_write_tokens=cache_write,
            cache_write_1h_tokens=hour,  # a part of cache_write, as reasoning is of output
            output_tokens=output,
            output_reasoning_tokens=reasoning,
            web_searches=searches,  # no tokens: the library prices them per thousand (``web_searches_kcount``)
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the library warns about price keys it cannot use; we check the result
            return match.model.calc_price(usage, match.provider, genai_request_timestamp=when,
                                          price_context=match.context).total_price

    f0 = price(base)
    c_in = price(base + 1) - f0
    c_cache_read = price(base - 1, cache_read=1) - f0 + c_in
    c_cache_write = price(base - 1, cache_write=1) - f0 + c_in
    c_out = price(base, output=1) - f0
    c_reasoning = price(base, output=1, reasoning=1) - price(base, output=1)
    c_hour = price(base - 1, cache_write=1, hour=1) - price(base - 1, cache_write=1)
    c_search = price(base, searches=1) - f0
    c_call = f0 - c_in * base
    coefficients = (c_in, c_cache_read, c_cache_write, c_out, c_reasoning, c_call, c_hour, c_search)
    # The formula must reproduce the library at a point with every part non-zero.
    uncached, cache_read, cache_write, output, reasoning, hour, searches = base - 2, 1, 2, 3, 2, 1, 3
    expected = price(uncached, cache_read, cache_write, output, reasoning, hour, searches)
    parts = (uncached, cache_read, cache_write, output, reasoning, 1, hour, searches)
    got = sum((EXACT.multiply(c, n) for c, n in zip(coefficients, parts)), Decimal(0))
    if got != expected:
        raise NotPriceable(f"its price is not linear in tokens ({got} != {expected})")
    if match.multiplier is not None:
        # Every token rate (US-only inference: ``inferencegeo``); a call's fixed price and a
        # web search's are no token's.
        times = match.multiplier
        coefficients = (EXACT.multiply(c_in, times), EXACT.multiply(c_cache_read, times),
                        EXACT.multiply(c_cache_write, times), EXACT.multiply(c_out, times),
                        EXACT.multiply(c_reasoning, times), c_call, EXACT.multiply(c_hour, times), c_search)
    return coefficients


def _bounds(match: Match, when: datetime) -> tuple[float | None, float | None]:
    """The span around ``when`` in which no dated or daily price change happens (of the
    model's price, or of the price variant its request context selects)."""
    prices = match.model.prices
    constraints = [] if isinstance(prices, types.ModelPrice) else [conditional.constraint for conditional in prices]
    constraints += [variant.constraint for variant in _variants(match)]
    moments: list[float] = []
    day = when.date()
    for constraint in constraints:
        if constraint is None:
            continue
        if isinstance(constraint, types.StartDateConstraint):
            moments.append(_utc(constraint.start_date, time(0)))
        elif isinstance(constraint, types.TimeOfDateConstraint):
            # A time of day in its own zone falls on the UTC day before (east of UTC) or after
            # (west: ``23:00-12:00`` is 11:00 UTC the next day) the day it is put on: the days
            # two either side hold the changes just before and just after ``when``.
            for offset in (-2, -1, 0, 1, 2):
                for moment in (constraint.start_time, constraint.end_time):
                    moments.append(_utc(day + timedelta(days=offset), moment))
        else:
            raise NotPriceable(f"it has a price condition agentscan does not know ({type(constraint).__name__})")
    at = when.timestamp()
    start = max((m for m in moments if m <= at), default=None)
    end = min((m for m in moments if m > at), default=None)
    return start, end


def dated_then(match: Match, when: datetime) -> bool:
    """Whether ``when`` is at or after the model's first dated price change (a start date in
    its prices or its variants'), or it has none: if it is before it, the prices shown for
    ``when`` are the model's earliest, which the data gives any earlier time, before the model
    was released too (it holds no release date).  A model priced alike at every date (no start
    date) has nothing to say: its prices are no earlier ones than any other."""
    prices = match.model.prices
    constraints = [] if isinstance(prices, types.ModelPrice) else [conditional.constraint for conditional in prices]
    constraints += [variant.constraint for variant in _variants(match)]
    starts = [_utc(constraint.start_date, time(0)) for constraint in constraints
              if isinstance(constraint, types.StartDateConstraint)]
    return not starts or when.timestamp() >= min(starts)


def _utc(day: date, moment: time) -> float:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return datetime.combine(day, moment).timestamp()


def describe_lasting(data: PriceData, provider_hint: str | None, ref: str,
                     when: datetime | None = None) -> tuple[dict[str, Any], float | None]:
    """What ``agentscan prices MODEL`` prints (the matched model and its prices at ``when``,
    default now), and the moment it may change (epoch seconds; ``None``: never,
    for this data): the end of the price period ``when`` is in, so the answer can be kept
    until then (``pricing.ownmodels``).  A condition it cannot read ends it at ``when``."""
    match = find(data, provider_hint, ref)
    when = when or datetime.now(UTC)
    _in_force(match, when)  # (``prices "gpt-5.5 (priority)" --at`` August: not the standard price)
    try:
        end = _bounds(match, when)[1]
    except NotPriceable:
        end = when.timestamp()
    return _described(match, when), end


def _described(match: Match, when: datetime) -> dict[str, Any]:
    prices = match.model.get_prices(when, match.context)
    times = match.multiplier or Decimal(1)
    fields: dict[str, Any] = {}
    for key, value in vars(prices).items():
        scale = Decimal(1) if key.startswith("requests") or "search" in key else times  # (token rates alone)
        if isinstance(value, Decimal):
            fields[key] = float(value * scale)
        elif isinstance(value, types.TieredPrices):
            fields[key] = {"base": float(value.base * scale),
                           "tiers": [{"above": t.start, "price": float(t.price * scale)} for t in value.tiers]}
    # The price variant said in words (``prices``' PRICED AS, ``fast mode, US-only``): read off
    # the match, never parsed back out of the display name (a model may have none).
    words = [_context_words(match.context).replace("-", " ")] if match.context is not None else []
    if match.multiplier is not None:
        words.append("US-only")  # (the one multiplier there is: ``inferencegeo``)
    name = match.model.name
    if name and match.context is not None:
        name = f"{name}, {words[0]}"
    if name and match.multiplier is not None:
        name = f"{name}, US-only inference ({match.multiplier}x every token rate)"
    return {
        "provider": match.provider.id,
        "model_id": match.model.id,
        "name": name,
        "prices": str(prices) if match.multiplier is None else f"{prices} (token rates x{match.multiplier}: US-only inference)",
        "price_fields": fields,
        "variant": ", ".join(words) or None,
        "multiplier": None if match.multiplier is None else float(match.multiplier),
    }
