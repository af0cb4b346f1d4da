"""``prices MODEL``'s table: what each model is priced as, and its prices per million tokens.

genai-prices' own text (``$3/input MTok (+tiers), $15/output MTok (+tiers), …, $10/web
searches K``) is one line of 200 characters that hides the tiers it mentions; the table
shows the four prices a session's tokens are billed at, each tier on a line of its own
under them (as ``tokens`` puts a session's parts under it), and ``--json`` keeps every field.
"""

from __future__ import annotations

from typing import Any

from agentscan.cli import render
from agentscan.cli.table import Column, Row, print_table, told_apart
from agentscan.cli.term import clean, width_of

#: (header, genai-prices field): the prices agentscan's token vocabulary is billed at
PRICE_COLUMNS = (
    ("INPUT", "input_mtok"),
    ("OUTPUT", "output_mtok"),
    ("CACHE READ", "cache_read_mtok"),
    ("CACHE WRITE", "cache_write_mtok"),
)
COLUMNS = (
    # A model's name is a label: cut (``claude-sonnet-4…``) once PRICED AS has gone, rather
    # than a price (``$3.…``); never below "  above 200k".
    Column("MODEL", label=True, min_width=12),
    Column("PRICED AS", flex=True, min_width=12, drop=1),
    *(Column(header, right=True) for header, _ in PRICE_COLUMNS),
)


def money(value: float) -> str:
    """``$3.00``, ``$0.30``, ``$22.50``, ``$0.125``: cents, as every cost column writes money
    (``$0.3`` beside ``$3.75`` read as a misprint), and more decimals only where the price
    has them: never rounded, no exponent (``repr`` is the shortest text that reads back as
    the same float)."""
    from decimal import Decimal, InvalidOperation

    exact = Decimal(repr(value)).normalize()
    try:
        cents = exact.quantize(Decimal("0.01"))
    except InvalidOperation:  # beyond the context's 28 digits: no price is, the data may say so
        return f"${exact:f}"
    return f"${cents:f}" if cents == exact else f"${exact:f}"


def _base(field: Any) -> float | None:
    if isinstance(field, (int, float)):
        return field
    if isinstance(field, dict) and isinstance(field.get("base"), (int, float)):
        return field["base"]
    return None


def _tiers(field: Any) -> dict[int, float]:
    """A tiered price's tiers: tokens of context above which -> the price there."""
    tiers = field.get("tiers") if isinstance(field, dict) else None
    return {t["above"]: t["price"] for t in tiers or () if isinstance(t, dict)
            and isinstance(t.get("above"), int) and isinstance(t.get("price"), (int, float))}


def _tokens(count: int) -> str:
    if count % 1_000_000 == 0:
        return f"{count // 1_000_000}M"
    return f"{count // 1000}k" if count % 1000 == 0 else f"{count:,}"


def model_rows(found: dict[str, Any]) -> list[Row]:
    """A model's line, then one for each context size above which its prices change."""
    # The name asked for, and the price data's (fetched by ``prices --update``): an escape
    # sequence in either is shown as U+FFFD.
    query = clean(found["query"])
    if found["model_id"] is None:
        return [Row([query, "no price", *("-" for _ in PRICE_COLUMNS)])]
    fields = found["price_fields"] or {}
    bases = [_base(fields.get(name)) for _, name in PRICE_COLUMNS]
    rows = [Row([query, clean(f"{found['provider']}/{found['model_id']}"),
                 *("-" if base is None else money(base) for base in bases)])]
    tiers = [_tiers(fields.get(name)) for _, name in PRICE_COLUMNS]
    current = list(bases)  # each price as it stands at the size reached so far
    for above in sorted({above for tier in tiers for above in tier}):
        # A price with no tier at this size stays what it was below it (its base, or an
        # earlier tier of its own).
        current = [tier.get(above, price) for tier, price in zip(tiers, current)]
        rows.append(Row([f"  above {_tokens(above)}", "", *("-" if price is None else money(price) for price in current)],
                        style="dim"))
    return rows


def print_prices(looked_up: list[dict[str, Any]]) -> None:
    rows = [row for found in looked_up for row in model_rows(found)]
    term = render.terminal()
    model = told_apart(COLUMNS[0], (clean(found["query"]) for found in looked_up))
    # A tier's label is a number too (``  above 1,234,567``): never cut.
    tiers = [width_of(row.cells[0]) for row in rows if row.cells[0].startswith("  above ")]
    columns = (model._replace(min_width=max([model.min_width, *tiers])), *COLUMNS[1:])
    hidden = print_table(columns, rows, term=term)
    said = "dollars per million tokens"
    if any(row.cells[0].startswith("  above ") for row in rows):
        said += "; 'above 200k': when the prompt holds more than that many tokens"
    render.note(f"{said}; --json has every price (web search, 1-hour cache writes, …)"
                + (f"; left out to fit {term.width} columns: {', '.join(hidden)}" if hidden else ""), tty_only=True)
