"""``prices MODEL``'s table: what each model is priced as, and its prices per million tokens.

genai-prices' own text (``$3/input MTok (+tiers), $15/output MTok (+tiers), …, $10/web
searches K``) is one line of 200 characters that hides the tiers it mentions; the table
shows the four prices a session's tokens are billed at, each tier on a line of its own
under them (as ``tokens`` puts a session's parts under it), and ``--json`` keeps every field.
"""

from __future__ import annotations

from typing import Any, Sequence

from agentscan.cli import render
from agentscan.cli.table import left_out_text, print_table
from agentscan.cli.tablefit import told_apart
from agentscan.cli.tableparts import GAP, Column, Row
from agentscan.cli.tablewidths import natural
from agentscan.cli.term import clean, width_of

#: (header, genai-prices field): the prices agentscan's token vocabulary is billed at
PRICE_COLUMNS = (
    ("INPUT", "input_mtok"),
    ("OUTPUT", "output_mtok"),
    ("CACHE READ", "cache_read_mtok"),
    ("CACHE WRITE", "cache_write_mtok"),
)
#: the answer: what a name is priced as.  A label, cut only once MODEL is as narrow as it goes
#: (never below "  above 200k", which it holds when MODEL is left out), and never left out:
#: it is what was asked (``aws/regional.…`` said a Bedrock profile is billed at Bedrock's rate)
PRICED_AS = Column("PRICED AS", label=True, min_width=12)
#: what goes on a terminal too narrow for the table once MODEL is as narrow as it goes (higher
#: first): the cache prices, then output; the input price and the answer stay
_DROPS = {"CACHE WRITE": 3, "CACHE READ": 2, "OUTPUT": 1}
_PRICES = tuple(Column(header, right=True, drop=_DROPS.get(header, 0)) for header, _ in PRICE_COLUMNS)
COLUMNS = (
    # The name as asked, the person's own input: cut (``claude-so…``) before the answer is,
    # never below what tells the rows apart (``told_apart``) nor, while a tier's label is
    # under it, "  above 200k".
    Column("MODEL", flex=True, min_width=8),
    PRICED_AS,
    *_PRICES,
)
#: the table without MODEL, when it would not fit and every answer names its row
ANSWER_COLUMNS = (PRICED_AS, *_PRICES)


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
    # A fast-mode price is said, as the rates are the model's own no longer.
    answer = clean(f"{found['provider']}/{found['model_id']}") + (" (fast mode)" if _fast_mode(found) else "")
    rows = [Row([query, answer,
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


def answers_name_them(looked_up: list[dict[str, Any]]) -> bool:
    """Whether each row's PRICED AS names it: every name has a price, and no two the same
    (``sonnet-4.5`` and ``claude-sonnet-4-5`` both priced as ``anthropic/claude-sonnet-4-5``
    are told apart by MODEL alone)."""
    answers = [(found["provider"], found["model_id"], _fast_mode(found)) for found in looked_up]
    return all(model_id is not None for _, model_id, _ in answers) and len(set(answers)) == len(answers)


def _fast_mode(found: dict[str, Any]) -> bool:
    """Whether a name was priced at its model's fast-mode rates (``opus-4.8-fast``: Claude
    Code's fast mode, ``anthropic/claude-opus-4-8``'s price variant), not as a model of its
    own whose name ends so (``grok-4-fast``): ``library.describe_lasting`` names it so."""
    from agentscan.pricing.aliases import fast_mode_base

    return found["model_id"] is not None and (str(found.get("name") or "").endswith(", fast mode")
                                              or fast_mode_base(str(found["query"])) is not None)


def tiers_under_answer(rows: list[Row]) -> list[Row]:
    """``model_rows`` with each tier's label (``  above 200k``) under PRICED AS, so MODEL, cut
    or left out to fit, may be narrower than it."""
    return [Row([row.cells[1] and row.cells[0], row.cells[1] or row.cells[0], *row.cells[2:]], style=row.style)
            for row in rows]


#: which provider's sessions recorded each model (``prices`` without a MODEL: the models of
#: one's sessions), first so that a Cursor row's ``gpt-5`` is not read as Codex's; the first
#: to go when the table does not fit (a ``recorded_by`` the JSON keeps).  PROVIDER, as
#: ``--provider`` and ``tokens --by provider`` say it: ``tokens --by agent``'s agents are
#: subagent kinds (main, Explore), another thing
PROVIDER = Column("PROVIDER", drop=len(PRICE_COLUMNS))


def print_prices(looked_up: list[dict[str, Any]]) -> None:
    each = [model_rows(found) for found in looked_up]
    rows = [row for lines in each for row in lines]
    term = render.terminal()
    recorded = _provider_rows(looked_up, each)
    if recorded is not None and not (term.tty and _too_wide((PROVIDER, *COLUMNS), recorded, term.width)):
        print_table((PROVIDER, *COLUMNS), recorded, term=term)
        _print_note(rows, (), COLUMNS, term.width)
        return
    # A tier's label is a number too (``  above 1,234,567``): never cut.
    tiers = max([width_of(row.cells[0]) for row in rows if row.cells[0].startswith("  above ")], default=0)
    model = told_apart(COLUMNS[0], (clean(found["query"]) for found in looked_up))
    # Cut, the answers still read apart (``anthropic/cl…`` twice named neither).
    answer = told_apart(PRICED_AS, (row.cells[1] for row in rows if row.cells[1]))
    answer = answer._replace(min_width=max(answer.min_width, tiers))
    columns: tuple[Column, ...] = (model._replace(min_width=max(model.min_width, tiers)), *COLUMNS[1:])
    if term.tty and _too_wide(columns, rows, term.width):
        # PRICED AS is what was asked: MODEL, the person's own input, gives way first (cut
        # only as far as the rows still read apart), and goes when each answer names its row.
        rows = tiers_under_answer(rows)
        if answers_name_them(looked_up):
            columns, rows = (answer, *ANSWER_COLUMNS[1:]), [Row(row.cells[1:], style=row.style) for row in rows]
        else:
            columns = (model, answer, *COLUMNS[2:])
    hidden = print_table(columns, rows, term=term)
    if recorded is not None:  # it went first, for the models' and their prices' room
        hidden, columns = [PROVIDER.header, *hidden], (PROVIDER, *columns)
    _print_note(rows, hidden, columns, term.width)


def _provider_rows(looked_up: list[dict[str, Any]], each: list[list[Row]]) -> list[Row] | None:
    """Each model's rows (``each``: its ``model_rows``) after the providers whose sessions
    recorded it (its tiers' lines blank there); ``None``: the models were named, no session
    recorded them."""
    if not looked_up or any(found.get("recorded_by") is None for found in looked_up):
        return None
    return [Row([", ".join(found["recorded_by"]) if index == 0 else "", *row.cells], style=row.style)
            for found, lines in zip(looked_up, each) for index, row in enumerate(lines)]


def _print_note(rows: list[Row], hidden: Sequence[str], columns: tuple[Column, ...], width: int) -> None:
    tiers = any(row.cells[0].startswith("  above ") for row in rows)
    said = "dollars per million tokens"
    if tiers:
        said += "; 'above 200k': when the prompt holds more than that many tokens"
    render.note(f"{said}; --json has every price (web search, 1-hour cache writes, …)"
                + (f"; {left_out_text(hidden, columns, width)}" if hidden else ""), tty_only=True)


def _too_wide(columns: tuple[Column, ...], rows: list[Row], width: int) -> bool:
    return sum(natural(columns, rows)) + len(GAP) * (len(columns) - 1) > width
