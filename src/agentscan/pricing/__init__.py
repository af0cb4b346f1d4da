"""Cost in USD from genai-prices, pydantic's maintained price database.

Nothing here hand-writes a price.  The library is the only source of
prices; this package asks it once per model and price period, keeps the
answer in agentscan's index keyed by the price data version, and applies
it to usage entries without importing the library again (it pulls in
pydantic, ~0.3 s).  See docs/pricing.md.

    aliases.py   agentscan provider + recorded model name -> the model ref to look up
    source.py    which price data is in use (bundled with the package, or fetched by
                 ``agentscan prices --update``) and its version; no heavy imports
    library.py   the only module that imports genai_prices: lookups and price periods
    periods.py   a price period as exact per-token coefficients, and cost arithmetic
    book.py      PriceBook: per-run price keys for calls, costs of token sums
    spend.py     Spend: token sums per price key, for any grouping; Priced and the rule
                 for when a cost is unknown (``combined``)
    update.py    ``agentscan prices --update`` / ``--reset``: the only network access
    lookup.py    ``agentscan prices MODEL``: a model's prices by any name an agent records or
                 a table shows, and the names like one that has none
    ownmodels.py ``agentscan prices`` without a MODEL: the recorded models' entries, kept
                 in the index until a price changes
    modelnames.py  a Claude model's short name (``sonnet-4.5``) and the names it stands for
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["PriceBook", "Spend"]

if TYPE_CHECKING:
    from agentscan.pricing.book import PriceBook
    from agentscan.pricing.spend import Spend
else:
    # Loaded on first use: ``tokens`` printing a remembered answer needs only
    # ``source`` (which data is in use), not the book and its Decimal arithmetic.

    def __getattr__(name: str) -> Any:
        if name == "PriceBook":
            from agentscan.pricing.book import PriceBook as value
        elif name == "Spend":
            from agentscan.pricing.spend import Spend as value
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        globals()[name] = value  # later lookups skip this function
        return value
