"""US-only inference (Anthropic's data residency): the name its calls are priced under, and its premium.

A request to the Claude API may ask for ``inference_geo: "us"`` (or a workspace
may default to it), and its response's ``usage.inference_geo`` says where the
inference ran.  Anthropic bills a call that ran in the US only at 1.1 times
every token rate of its model: input, output, cache writes and cache reads
(Claude Opus 4.6 and later, the models that take the parameter; Anthropic's
data residency and pricing pages; the AWS Claude Platform's: "A 1.1x pricing
multiplier applies").  genai-prices (0.2.5, the newest release) has no such
price, so agentscan applies the multiplier itself: a Claude Code call whose
``usage.inference_geo`` is ``"us"`` is counted under ``<model> (us-only)``
(another price key and ``--by model`` row, as a fast-mode call's
``<model>-fast`` is), priced at its model's price times ``US_ONLY_MULTIPLIER``
(``library.find``).  ``"global"``, ``""``, ``"not_available"`` and no field are
the list price.  Web searches are no tokens: their price is unchanged.
"""

from __future__ import annotations

from decimal import Decimal
from sys import intern

#: the ``usage.inference_geo`` of a call whose inference ran in the US only
US_ONLY_GEO = "us"
#: what Anthropic multiplies every token rate of a US-only call by
US_ONLY_MULTIPLIER = Decimal("1.1")
#: what a US-only call's model has after it (``claude-opus-4-6 (us-only)``): a space and
#: parentheses, which no model id has, and no service tier's word (``aliases.service_tier_of``)
US_ONLY_SUFFIX = " (us-only)"
#: the names a US-only premium applies to: Anthropic's own (the parameter is the Claude API's;
#: Bedrock and Vertex set the region by their endpoint, at their own prices)
_FAMILY = "claude-"


def us_only_name(model: str) -> str:
    """The name a call of ``model`` that ran on US-only inference is counted and priced under
    (interned: one string per model); a model of another family keeps its name."""
    if not model.startswith(_FAMILY) or model.endswith(US_ONLY_SUFFIX):
        return intern(model)
    return intern(model + US_ONLY_SUFFIX)


def us_only_base(name: str) -> str | None:
    """The model a ``us_only_name`` was made of (``claude-opus-4-6`` of ``claude-opus-4-6
    (us-only)``, ``claude-opus-4-8-fast`` of a fast-mode call's); ``None`` for any other name.
    The suffix in any case: ``prices "claude-opus-4-6 (US-only)"``, as the docs write the words,
    was priced at the list price (the library matched ``claude-opus-4-6`` by its start)."""
    if not name.endswith(")") or name[-len(US_ONLY_SUFFIX):].lower() != US_ONLY_SUFFIX:
        return None
    base = name[: -len(US_ONLY_SUFFIX)]
    return base if len(base) > len(_FAMILY) and base.startswith(_FAMILY) else None


def without_geo(name: str) -> str:
    """``name`` without the US-only suffix: the model its request named."""
    base = us_only_base(name)
    return name if base is None else base
