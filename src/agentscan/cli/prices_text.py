"""``prices MODEL``'s table: what each model is priced as, and its prices per million tokens.

genai-prices' own text (``$3/input MTok (+tiers), $15/output MTok (+tiers), …, $10/web
searches K``) is one line of 200 characters that hides the tiers it mentions; the table
shows the four prices a session's tokens are billed at, each tier on a line of its own
under them (as ``tokens`` puts a session's parts under it), and ``--json`` keeps every field.
"""

from __future__ import annotations

from typing import Any

from agentscan.cli import render
from agentscan.cli.table import left_out_note, print_table
from agentscan.cli.tablefit import Layout, told_apart
from agentscan.cli.tableparts import GAP, Column, Row
from agentscan.cli.tablewidths import natural
from agentscan.cli.term import clean, cut_left, width_of

#: (header, genai-prices field): the prices agentscan's token vocabulary is billed at
PRICE_COLUMNS = (
    ("INPUT", "input_mtok"),
    ("OUTPUT", "output_mtok"),
    ("CACHE READ", "cache_read_mtok"),
    ("CACHE WRITE", "cache_write_mtok"),
)
#: the answer: what a name is priced as.  A label, narrowed (never below "  above 200k", which
#: it holds once MODEL is cut) only after the cache prices are left out, and before MODEL is
#: (``_stages``): first its vendor goes whole (``claude-haiku-4-5``: what every row of one
#: vendor shares; ``anthropic/claude-h…`` named no model, ``…laude-haiku-4-5`` cut a word
#: from its start), then it is cut from its start (``…e-haiku-4-5``, ``…4-6 (us-only)``: the
#: model's name and its variant, at the end, tell rows apart).  Left out only when nothing
#: else is left to go and MODEL names the rows
PRICED_AS = Column("PRICED AS", label=True, min_width=12, keep_end=True, drop=1)
#: on a terminal too narrow for the table, the order columns are left out in (the higher
#: first, as ``left_out_text`` names them): which providers recorded a model, the cache
#: prices, MODEL (only when every row's PRICED AS names it), then the output price; the input
#: price and the answer stay
_DROPS = {"PROVIDER": 6, "CACHE WRITE": 5, "CACHE READ": 4, "MODEL": 3, "OUTPUT": 2}
_PRICES = tuple(Column(header, right=True, drop=_DROPS.get(header, 0)) for header, _ in PRICE_COLUMNS)
#: the name as asked, the person's own input: kept whole while a cache price or PRICED AS's
#: width can give way, then cut (``claude-so…``), never below what tells the rows apart
#: (``told_apart``)
MODEL = Column("MODEL", label=True, min_width=8, drop=_DROPS["MODEL"])
COLUMNS = (MODEL, PRICED_AS, *_PRICES)
#: a pipe's column of the context size (prompt tokens) above which a row's prices apply:
#: ``0`` for a model's own prices, ``200000`` for its ``above 200k`` tier.  On a terminal a
#: tier is a line under its model instead (a column of zeros cost every table its width)
ABOVE = Column("ABOVE", right=True)


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
    query, answer, lines = _priced(found)
    return [Row([query, answer, *prices]) if above == 0 else
            Row([f"  above {_tokens(above)}", "", *prices], style="dim") for above, prices in lines]


def _priced(found: dict[str, Any]) -> tuple[str, str, list[tuple[int, list[str]]]]:
    """(the name asked for, what it is priced as, [(the prompt tokens above which the prices
    apply: 0 for the model's own, the prices)])."""
    # The name asked for, and the price data's (fetched by ``prices --update``): an escape
    # sequence in either is shown as U+FFFD.
    query = clean(found["query"])
    if found["model_id"] is None:
        return query, "no price", [(0, ["-" for _ in PRICE_COLUMNS])]
    fields = found["price_fields"] or {}
    bases = [_base(fields.get(name)) for _, name in PRICE_COLUMNS]
    # A fast-mode, tier or US-only price is said, as the rates are the model's list price no
    # longer: with MODEL left out on a narrow terminal, it is all that says so.
    variant = _variant(found)
    answer = clean(f"{found['provider']}/{found['model_id']}") + (f" ({variant})" if variant else "")
    lines = [(0, ["-" if base is None else money(base) for base in bases])]
    tiers = [_tiers(fields.get(name)) for _, name in PRICE_COLUMNS]
    current = list(bases)  # each price as it stands at the size reached so far
    for above in sorted({above for tier in tiers for above in tier}):
        # A price with no tier at this size stays what it was below it (its base, or an
        # earlier tier of its own).
        current = [tier.get(above, price) for tier, price in zip(tiers, current)]
        lines.append((above, ["-" if price is None else money(price) for price in current]))
    return query, answer, lines


def answers_name_them(looked_up: list[dict[str, Any]]) -> bool:
    """Whether each row's PRICED AS names it: every name has a price, and no two the same
    (``sonnet-4.5`` and ``claude-sonnet-4-5`` both priced as ``anthropic/claude-sonnet-4-5``
    are told apart by MODEL alone)."""
    answers = [(found["provider"], found["model_id"], _variant(found)) for found in looked_up]
    return all(model_id is not None for _, model_id, _ in answers) and len(set(answers)) == len(answers)


def _variant(found: dict[str, Any]) -> str | None:
    """The price variant a name was priced at, as the library's answer says it (``variant``:
    ``fast mode``, ``opus-4.8-fast``, Claude Code's fast mode, ``anthropic/claude-opus-4-8``'s;
    ``priority tier``, ``gpt-5.5 (priority)``, a Codex call's service tier; ``US-only``,
    ``claude-opus-4-6 (us-only)``; ``fast mode, US-only``), not a model of its own whose name
    ends so (``grok-4-fast``).  ``None``: the model's standard price.  Never read off the
    display name: a fast US-only name's last part is its US-only one."""
    if found["model_id"] is None:
        return None
    variant = found.get("variant")
    return clean(variant) if isinstance(variant, str) and variant else None


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
PROVIDER = Column("PROVIDER", drop=_DROPS["PROVIDER"])


def print_prices(looked_up: list[dict[str, Any]]) -> None:
    term = render.terminal()
    priced = [_priced(found) for found in looked_up]
    recorded = bool(looked_up) and all(found.get("recorded_by") is not None for found in looked_up)
    columns: tuple[Column, ...] = ((PROVIDER,) if recorded else ()) + COLUMNS
    if not term.tty:
        # A line a row, every cell filled, for ``awk`` and ``sort``: a tier repeats its
        # model, the context size it starts above in a column of its own (``0``: the
        # model's own prices; ``-`` for a name with no price, as its prices are: ``0`` read
        # as a price from the first token), and the providers are one word (``claude,codex``).  PRICED
        # AS is a name, but for the answers said in words (``no price``, ``… (fast mode,
        # US-only)``): split on two spaces or more (``awk -F '  +'``), as every table's cells.
        columns = columns[:-len(_PRICES)] + (ABOVE, *_PRICES)
        print_table(columns, [
            Row([*([",".join(found["recorded_by"])] if recorded else []), query, answer,
                 str(above) if found["model_id"] is not None else "-", *prices])
            for found, (query, answer, lines) in zip(looked_up, priced) for above, prices in lines], term=term)
        return
    each = [model_rows(found) for found in looked_up]
    under_model = [Row([*(_recorders(found, index) if recorded else []), *row.cells], style=row.style)
                   for found, lines in zip(looked_up, each) for index, row in enumerate(lines)]
    under_answer = [Row([*row.cells[:-len(COLUMNS)], *tiers_under_answer([Row(row.cells[-len(COLUMNS):])])[0].cells],
                        style=row.style) for row in under_model]
    # A tier's label is a number too (``  above 1,234,567``): never cut.
    tier_width = max([width_of(row.cells[-len(COLUMNS)]) for row in under_model if row.style == "dim"], default=0)
    model_floor = told_apart(MODEL, (query for query, _, _ in priced)).min_width
    answers = [answer for _, answer, _ in priced]
    bare = _without_vendor(answers)
    # Cut, the answers still read apart (``…-4-5`` twice named neither).
    answer_floor = told_apart(PRICED_AS, bare, cut_left).min_width
    said_whole = answers_name_them(looked_up) and all(
        answer.rpartition("/")[2] == query for query, answer, _ in priced)
    answer_at = len(columns) - len(COLUMNS) + 1
    narrowed = (_bare_rows(under_model, answer_at, answers, bare), _bare_rows(under_answer, answer_at, answers, bare))
    rows, planned = _fitted(columns, (under_model, under_answer), narrowed, term.width,
                            floors=(model_floor, answer_floor, max(answer_floor, tier_width),
                                    max(model_floor, tier_width)),
                            name_them=answers_name_them(looked_up), said_whole=said_whole)
    hidden = print_table(columns, rows, term=term, planned=planned)
    if said_whole:  # MODEL went before the cache prices: said first of them
        columns = tuple(column._replace(drop=_DROPS["PROVIDER"] - 1) if column is MODEL else column
                        for column in columns)
    _print_note(sorted({above for _, _, lines in priced for above, _ in lines if above}))
    # A note of its own, worded as every table's (``table.left_out_note``): at the end of the
    # price note it read as one more thing --json has.
    left_out_note(hidden, columns, term)


def _without_vendor(answers: list[str]) -> list[str]:
    """The answers without their vendor (``claude-haiku-4-5`` for ``anthropic/claude-haiku-4-5``),
    as PRICED AS shows them once it must narrow; whole where two would then read alike
    (``openai/gpt-5`` beside ``azure/gpt-5``)."""
    bare = [answer.partition("/")[2] or answer for answer in answers]
    return bare if len(set(bare)) == len(set(answers)) else list(answers)


def _bare_rows(rows: list[Row], at: int, answers: list[str], bare: list[str]) -> list[Row]:
    """``rows`` with each answer in cell ``at`` as ``_without_vendor`` has it (a tier's label
    there stays)."""
    short = dict(zip(answers, bare))
    return [Row([*row.cells[:at], short.get(row.cells[at], row.cells[at]), *row.cells[at + 1:]], style=row.style)
            for row in rows]


def _recorders(found: dict[str, Any], index: int) -> list[str]:
    """A model's PROVIDER cell on a terminal: on its first line, its tiers' blank."""
    return [", ".join(found["recorded_by"]) if index == 0 else ""]


def _stages(columns: tuple[Column, ...], name_them: bool,
            said_whole: bool) -> list[tuple[bool, frozenset[str], str | None]]:
    """The ways the table gives way on a narrowing terminal, in order: (a tier's label under
    PRICED AS, the columns left out, which label is cut to fit: ``answer``, PRICED AS down
    to its floor with MODEL whole, or ``model``, MODEL down to its floor with PRICED AS at
    its own).  MODEL, the names the person gave or their sessions recorded, names the rows:
    it outlasts the providers, the cache prices, PRICED AS's width and then OUTPUT, as a
    row's name is cut only with no column left to go (docs/cli.md); then it is left out
    when each PRICED AS names its row, else cut as far as the rows still read apart, and
    last PRICED AS is left out (a tier's label back under MODEL): a 40-column terminal
    printed lines of 41, each folded in two.
    ``said_whole``: each row's PRICED AS says its MODEL whole (``claude-sonnet-4-5``,
    ``anthropic/claude-sonnet-4-5``): MODEL goes first, after PROVIDER, as it tells nothing
    PRICED AS does not."""
    headers = {column.header for column in columns}
    order = ("PROVIDER", "MODEL", "CACHE WRITE", "CACHE READ") if said_whole else ("PROVIDER", "CACHE WRITE", "CACHE READ")
    gone: frozenset[str] = frozenset()
    stages: list[tuple[bool, frozenset[str], str | None]] = [(False, gone, None)]
    for header in order:
        if header in headers:
            gone |= {header}
            stages.append(("MODEL" in gone, gone, None))
    stages += [("MODEL" in gone, gone, "answer"), ("MODEL" in gone, gone | {"OUTPUT"}, "answer")]
    if "MODEL" in gone:
        return stages
    gone |= {"OUTPUT"}
    if name_them:
        return [*stages, (True, gone | {"MODEL"}, "answer")]
    return [*stages, (True, gone, "model"), (False, gone | {"PRICED AS"}, "model")]


def _fitted(columns: tuple[Column, ...], whole: tuple[list[Row], list[Row]], narrowed: tuple[list[Row], list[Row]],
            width: int, *, floors: tuple[int, int, int, int], name_them: bool,
            said_whole: bool) -> tuple[list[Row], Layout]:
    """The rows and their layout on a terminal ``width`` wide: the first of ``_stages`` that
    fits, else the last, its labels at their floors (the line overflows, a figure whole).
    ``whole``: the rows with a tier's label under MODEL, and under PRICED AS; ``narrowed``:
    the same, PRICED AS without its vendor, for the stages that narrow a label.
    ``floors``: MODEL's, PRICED AS's, PRICED AS's with a tier's label under it, and MODEL's
    with one under it."""
    model, answer = len(columns) - len(COLUMNS), len(columns) - len(COLUMNS) + 1
    natural_widths = {(cut, tiers_under): natural(columns, (narrowed if cut else whole)[tiers_under])
                      for cut in (False, True) for tiers_under in (False, True)}
    gap_width = len(GAP)

    def widths_and_excess(tiers_under: bool, kept: list[int], cut: str | None) -> tuple[dict[int, int], int]:
        """The kept columns' widths, and by how much their line is too long (``cut``: with that
        label narrowed, down to its floor)."""
        widths = {index: natural_widths[cut is not None, tiers_under][index] for index in kept}
        answer_floor = min(widths.get(answer, 0), floors[2] if tiers_under else floors[1])
        if cut == "model" and model in widths and answer in widths:
            widths[answer] = answer_floor
        excess = sum(widths.values()) + gap_width * (len(kept) - 1) - width
        squeezed = {"answer": answer, "model": model}.get(cut or "")
        if squeezed is not None and squeezed in widths and excess > 0:
            least = answer_floor if squeezed == answer else min(widths[model], floors[0 if tiers_under else 3])
            widths[squeezed] = max(least, widths[squeezed] - excess)
            excess = sum(widths.values()) + gap_width * (len(kept) - 1) - width
        return widths, excess

    planned: Layout = ([], [])
    rows = whole[0]
    for tiers_under, gone, cut in _stages(columns, name_them, said_whole):
        kept = [index for index, column in enumerate(columns) if column.header not in gone]
        widths, excess = widths_and_excess(tiers_under, kept, None)
        # A stage that narrows a label does so only where the line is too long with every
        # label whole: its vendor goes only then.
        narrow = cut is not None and excess > 0
        if narrow:
            widths, excess = widths_and_excess(tiers_under, kept, cut)
        rows = (narrowed if narrow else whole)[tiers_under]
        planned = (kept, [widths[index] for index in kept])
        if excess <= 0:
            break
    return rows, planned


def _print_note(tiers: list[int]) -> None:
    """The note under the table; ``tiers``: the context sizes its ``above`` lines name, each
    said (``'above 200k'`` alone was said above ``gpt-5.5``'s ``above 272k``)."""
    said = "dollars per million tokens"
    if tiers:
        labels = ", ".join(f"'above {_tokens(above)}'" for above in tiers)
        said += f"; {labels}: when the prompt holds more than that many tokens"
    # (no "…" in it: on an ASCII stream it stands in as "~", read as a typo: "cache writes, ~")
    render.note(f"{said}; --json has every price (web search, 1-hour cache writes and more)", tty_only=True)
