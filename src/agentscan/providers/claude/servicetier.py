"""A Claude call's service tier (``usage.service_tier``): a call on another tier than the
standard one is priced at the standard rates, as ccusage prices it, and told once a file
(``valuewarnings.note_tier``); the Priority Tier a warning kind of its own.  Split from
``usage``, whose ``call_of`` hands every other tier here."""

from __future__ import annotations

import re

from agentscan.toolkit.valuewarnings import PRIORITY, PRIORITY_REASON, TIER, note_tier, tier_warning

#: what Claude Code writes of a call on the standard service tier (``usage.service_tier``)
STANDARD_TIER = "standard"
#: what a service tier's name looks like (``priority``, ``standard_only``): other text is none
_TIER_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
#: why a call on each other tier is priced at the standard rates (``note_tier``)
_TIER_REASONS = {
    "priority": PRIORITY_REASON,
    "batch": ("Claude Code sends no Message Batches request, so the batch rates (half the standard ones)"
              " are not taken for a call it wrote"),
}


#: the warning a call on each tier string met gets, with its kind (``None``: none), made once: a
#: file of priority calls has one on every call (at most ``_TIERS_KEPT`` strings are remembered)
_TIER_TOLD: dict[str, tuple[str, str] | None] = {}
_TIERS_KEPT = 256


def other_tier(tier: object) -> None:
    """A call on service tier ``tier`` (not ``"standard"``): told, priced at the standard rates."""
    if not isinstance(tier, str):
        return  # a number, an object, ``true``: no tier's name, not told (as free text is not)
    try:
        told = _TIER_TOLD[tier]
    except KeyError:
        told = _tier_warning(tier)
        if len(_TIER_TOLD) < _TIERS_KEPT:
            _TIER_TOLD[tier] = told
    if told is not None:
        note_tier(told[1], told[0])


def _tier_warning(tier: str) -> tuple[str, str] | None:
    """What a call on ``tier`` is told (``valuewarnings.tier_warning``) and as which kind, or
    ``None``: nothing.  The Priority Tier is a kind of its own (``valuewarnings.PRIORITY``): a
    file's batch or unknown tier met after it is a warning of its own, not hidden in its count."""
    name = tier.strip()
    if name.lower() in ("", STANDARD_TIER, "standard_only"):
        return None
    if not _TIER_WORD.fullmatch(name):
        # Not a tier's name (a value trimmed from a shared sample, free text): it says nothing
        # of the rates, and a warning on every file of it would be noise.
        return None
    kind = PRIORITY if name.lower() == "priority" else TIER
    return kind, tier_warning(tier, _TIER_REASONS.get(name.lower(), "its rates are unknown"))
