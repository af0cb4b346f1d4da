"""Human-readable ``tokens`` output: one aligned table, numbers right-aligned.

``--by session`` rows say what the session was (date, project, title) beside
its id.  Rows with no tokens at all (``<synthetic>`` models, empty sessions)
are folded into one line; a session whose provider recorded no usage says
"not recorded".  The number columns are listed in ``NUMBER_COLUMNS`` so a
cost column can join them.
"""

from __future__ import annotations

from datetime import tzinfo
from decimal import Decimal
from typing import Callable

from agentscan.cli import render
from agentscan.cli.table import Column, Row, print_table
from agentscan.cli.term import Terminal, clean, cut
from agentscan.errors import UsageProblem
from agentscan.model import SessionRow, TokenUsage, sum_usage
from agentscan.scan.tokens import TokenReport, TokenRow

#: (header, value, drop order when the terminal is narrow: higher goes first; 0 never)
NUMBER_COLUMNS: tuple[tuple[str, Callable[[TokenUsage], int], int], ...] = (
    ("INPUT", lambda u: u.input, 0),
    ("CACHE READ", lambda u: u.cache_read, 0),
    ("CACHE WRITE", lambda u: u.cache_write, 5),
    ("OUTPUT", lambda u: u.output, 0),
    ("REASONING", lambda u: u.reasoning, 6),
    ("TOTAL", lambda u: u.total, 0),
)
NOT_RECORDED = "not recorded"


def zone(name: str | None) -> tzinfo | None:
    """An IANA zone for period buckets and bare dates; ``None`` means the local zone."""
    if not name:
        return None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageProblem(f"unknown time zone {name!r} (use an IANA name such as Europe/Paris)") from None


def _numbers(usage: TokenUsage | None, cost: Decimal | None, term: Terminal, *, part: bool = False,
             at_least: Decimal | None = None) -> list[str]:
    """The number cells and the cost; a session with no recorded usage says so, a part with none is ``-``.

    ``at_least``: for an unknown cost, what its priced calls cost (shown ``≥$…``).
    """
    if usage is None:
        return [""] * (len(NUMBER_COLUMNS) - 1) + ["-" if part else NOT_RECORDED, ""]
    numbers = (render.full_number(value(usage), term) for _, value, _ in NUMBER_COLUMNS)
    return [*numbers, render.human_usd(cost, at_least)]


def _columns(by: str) -> list[Column]:
    columns = [Column(by.upper(), style="yellow" if by == "session" else None)]
    if by == "session":
        columns += [
            Column("DATE", drop=3),
            Column("PROJECT", flex=True, min_width=12, keep_end=True, drop=2),
            Column("TITLE", flex=True, min_width=20, weight=2, drop=4),
        ]
    columns += [Column(header, right=True, drop=drop) for header, _, drop in NUMBER_COLUMNS]
    columns.append(Column("COST", right=True))  # rounded to the cent; --json has it exact
    return columns


def print_report(report: TokenReport, term: Terminal, *, rows_of: Callable[[str], SessionRow | None],
                 short_ids: dict[str, str]) -> None:
    by_session = report.by == "session"
    blank = ["", "", ""] if by_session else []
    lines: list[Row] = []
    folded: list[TokenRow] = []
    for token_row in report.rows:
        if token_row.tokens is not None and token_row.tokens.total == 0:
            folded.append(token_row)  # nothing spent: one line for all of them
            continue
        key = token_row.key
        facts = []
        if by_session:
            key = short_ids.get(key, key) if term.tty else key
            session = rows_of(token_row.key)
            facts = [
                render.short_date(session.updated_at) if session else "-",
                render.path_text(clean(session.cwd), term) if session else "-",
                (clean(session.title) or "-") if session else "-",
            ]
        lines.append(Row([key, *facts, *_numbers(token_row.tokens, token_row.cost, term, at_least=token_row.cost_priced)]))
        if not token_row.subagents:
            continue
        if token_row.own is not None:  # a group made only of delegated calls has no own part to show
            lines.append(Row(["  own", *blank, *_numbers(token_row.own, token_row.own_cost, term, part=True)], style="dim"))
        costs = token_row.subagent_costs or (None,) * len(token_row.subagents)
        if by_session:
            from agentscan.scan.short_ids import unique_prefixes

            names = unique_prefixes(sub_id for sub_id, _ in token_row.subagents) if term.tty else {}
            recovered = dict(token_row.recovered)
            for (sub_id, usage), cost in zip(token_row.subagents, costs):
                cells = _numbers(usage, cost, term, part=True)
                # No transcript: its calls were recovered from its parent's progress records.
                note = f" (from {recovered[sub_id]} records)" if sub_id in recovered else ""
                lines.append(Row([f"  ↳ {names.get(sub_id, sub_id)}{note}", *blank, *cells], style="dim"))
        else:
            # Per period/model/provider there can be hundreds of runs: one line for all.
            runs = sum_usage(usage for _, usage in token_row.subagents)
            label = f"  ↳ {render.plural(len(token_row.subagents), 'subagent run')}"
            lines.append(Row([label, *blank, *_numbers(runs, token_row.subagents_cost, term, part=True)], style="dim"))
    lines.append(Row(["TOTAL", *blank, *_numbers(report.total, report.cost, term, at_least=report.cost_priced)],
                     style="bold"))
    hidden = print_table(_columns(report.by), lines, term=term)
    if folded:
        what = "session" if by_session else {"model": "model", "provider": "provider"}.get(report.by, "period")
        keys = ", ".join(short_ids.get(row.key, row.key) if term.tty else row.key for row in folded[:5])
        more = ", …" if len(folded) > 5 else ""
        line = f"(+ {render.plural(len(folded), what)} with 0 tokens: {keys}{more})"
        print(cut(line, term.width) if term.tty else line)
    # Why a cost with tokens behind it is unknown (zero-token rows are folded above).
    groups = [(row.cost, row.tokens, row.unpriced_models) for row in report.rows]
    groups.append((report.cost, report.total, report.unpriced_models))
    models = sorted({model for cost, usage, names in groups if cost is None and usage and usage.total for model in names})
    if models:
        render.note(f"no price for {', '.join(models)}: COST ≥$… is what the other calls cost, a lower bound "
                    "(see warnings; docs/pricing.md)", tty_only=True)
    if hidden:
        render.note(f"{', '.join(hidden)} left out to fit {term.width} columns; widen the terminal or use --json",
                    tty_only=True)
