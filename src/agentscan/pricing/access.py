"""How a price book reaches genai-prices: in this process, or through a helper.

Importing genai-prices (pydantic, httpx, a 1.6 MB data module) costs about
a quarter of a second, a quarter of a first ``list``.  A run that will need
it may start a helper process that imports it while this one discovers and
parses (``scan.priceahead``), and leave it in ``ctx.memo[AHEAD]``; the
price book then asks the helper instead.  Both answer the same three
questions, with the same answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.pricing.periods import Period
    from agentscan.pricing.source import PriceData

#: ``ctx.memo`` key of a library that answers from a helper process
AHEAD = "pricing.ahead"


class Found(NamedTuple):
    """The library's model for a name: its ids, and what ``period_at`` needs of it."""

    provider_id: str
    model_id: str
    handle: Any


class Library(Protocol):
    def problem(self, data: PriceData) -> str | None:
        """Why the library cannot price anything with ``data`` (``None``: it can)."""

    def find(self, data: PriceData, provider_hint: str | None, ref: str) -> Found:
        """The model ``ref`` is; raises ``NotPriceable``."""

    def period_at(self, data: PriceData, found: Found, ts: float | None) -> Period:
        """Its price period holding at ``ts``; raises ``NotPriceable``."""


class InProcess:
    """genai-prices imported here, on first use."""

    def problem(self, data: PriceData) -> str | None:
        try:
            from agentscan.pricing import library
        except ImportError as exc:  # a broken install: costs are unknown, the command still works
            return f"genai-prices cannot be imported ({exc})"
        try:
            library.snapshot(data)
        except Exception as exc:  # noqa: BLE001 - a damaged fetched file must not stop the command
            from agentscan.invocation import command

            return (f"the price data at {data.path} is unreadable ({type(exc).__name__}); "
                    f"run `{command('prices --update')}` or `{command('prices --reset')}`")
        return None

    def find(self, data: PriceData, provider_hint: str | None, ref: str) -> Found:
        from agentscan.pricing import library

        match = library.find(data, provider_hint, ref)
        return Found(match.provider.id, match.model.id, match)

    def period_at(self, data: PriceData, found: Found, ts: float | None) -> Period:
        from agentscan.pricing import library

        match = found.handle
        if isinstance(match, tuple):  # found by a helper since gone: find it here
            match = library.find(data, *match)
        return library.period_at(match, ts)


IN_PROCESS = InProcess()


def library_for(ctx: ScanContext, data: PriceData) -> Library:
    ahead = ctx.memo.get(AHEAD)
    return ahead if ahead is not None and ahead.serves(data) else IN_PROCESS
