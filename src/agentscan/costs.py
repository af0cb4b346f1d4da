"""The cost of whole sessions, for ``list``, ``show`` and ``export`` rows.

A row's cost is priced from the same calls its ``tokens`` count: the
session's own usage entries (its subagents' included), each at its own
time.  A row whose tokens are ``null`` has a ``null`` cost too, and so does
one with calls that have no price (``agentscan.pricing`` warns, naming the
model).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Iterable, Sequence

from agentscan.model import SessionRef, SessionRow
from agentscan.pricing import PriceBook, Spend

if TYPE_CHECKING:
    from agentscan.api import Scanner


def session_costs(scanner: Scanner, refs: Iterable[SessionRef], book: PriceBook) -> dict[str, Decimal | None]:
    """Session id -> exact USD (``None``: nothing recorded, or some calls have no price)."""
    from agentscan.collect import usage_by_session

    costs: dict[str, Decimal | None] = {}
    by_id = {ref.id: ref for ref in refs}
    for session_id, entries in usage_by_session(scanner, list(by_id.values())).items():
        provider = by_id[session_id].provider
        spend = Spend()
        for entry in entries:
            spend.add(entry, book.entry_key(provider, entry))
        costs[session_id] = spend.cost(book)
    return costs


def with_costs(scanner: Scanner, rows: Sequence[SessionRow], refs: Iterable[SessionRef], book: PriceBook) -> list[SessionRow]:
    """``rows`` with ``cost`` filled in; ``refs`` must include each row's session."""
    wanted = {row.id for row in rows}
    costs = session_costs(scanner, [ref for ref in refs if ref.id in wanted], book)
    return [row.with_changes(cost=costs.get(row.id) if row.tokens is not None else None) for row in rows]
