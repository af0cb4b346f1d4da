"""What the no-price warning says of a model whose calls have no price (``book.PriceBook``
warns it once a model): the fact (which price data lacks what), what the gap looks like in a
table, and what may help."""

from __future__ import annotations

from agentscan.pricing import aliases, periods
from agentscan.pricing.typednames import unknown_suffix

#: what a gap in the prices looks like, said in the no-price warning: whole words (a ``≥$…``
#: at its end read as a message cut off)
UNPRICED_LOOK = "a cost that includes its calls shows as - (unknown) or with ≥ (a lower bound)"
#: why a call of a model whose price changed over time has none: it has no time to choose one by
UNTIMED = "its price changed over time and the call has no timestamp"
#: how ``library``'s reasons for no price start (kept in the index: worded anew when said)
_LIBRARY = "genai-prices "


def no_price_said(provider: str, model: str | None, reason: str, label: str) -> str:
    """The warning of ``provider``'s ``model``, which has no price for ``reason``, in the price
    data ``label`` names."""
    # Said once, to a person under a table as much as to a JSON reader: the fact (which
    # price data lacks what), what the gap looks like, and what may help.  The meaning of
    # ``-`` and ``≥$…`` is the table's legend's to say.  Only a model of a public vendor's
    # family may be newer than the data: no update prices a model of one's own
    # (``aide-gpt-5``), nor gives a call its missing time.
    ref = aliases.model_ref(provider, model)
    alias = aliases.agent_alias(provider, ref) if ref is not None else None
    if alias is not None and reason != UNTIMED:
        then = f"; {ref} is {alias}: left unpriced"
    elif reason.endswith(periods.NOT_YET):
        # (a Codex tier call of August: no update gives it a price the tier had not yet)
        then = "; a call made before then is left unpriced, not priced at the standard rate"
    elif ref is not None and (tier := aliases.service_tier_of(ref)[1]) is not None and not aliases.priced_tier(tier):
        # (no update prices the scale tier, nor one agentscan cannot name to the price data: ``library._service_tier``)
        then = ""
    elif ref is not None and unknown_suffix(ref) is not None:
        then = ""  # (``claude-opus-4-6 (foo)``: no update prices text in brackets agentscan did not build)
    elif ref is not None and reason != UNTIMED and aliases.public_family(ref):
        from agentscan.invocation import command

        then = f"; for a model newer than this data, {command('prices --update')} fetches newer prices"
    elif ref is not None and reason.startswith(_LIBRARY):
        # No update of the public data prices it; a price list of one's own does (a copy of
        # genai-prices' data with it added, fetched by ``prices --update``: docs/pricing.md).
        then = ("; a name of one's own (a gateway's, a local model's) is in no public price list: "
                "a price list of your own prices it (AGENTSCAN_PRICES_URL: docs/pricing.md)")
    else:
        then = ""
    return f"no price: {said_of(reason, label)}; {UNPRICED_LOOK}{then}"


def said_of(reason: str, label: str) -> str:
    """A reason for no price, naming the price data that lacks it (``label``):
    ``genai-prices 0.2.5 (bundled data) has no model matching 'aide-gpt-5'``."""
    if reason.startswith(_LIBRARY):
        return label + reason[len(_LIBRARY) - 1:]
    return reason
