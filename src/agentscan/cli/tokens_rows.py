"""The lines of a ``tokens`` table's rows: a row's numbers (whole, or rounded to fit), its
parts' lines by session on a terminal (own and each subagent's), a grouped row's SUBAGENTS
cell, and the TOTAL line.  ``tokens_text`` lays them out and prints them; a patched table
(``cli.tablepatch``) makes its changed rows' lines here too, as a whole table makes them.
"""

from __future__ import annotations

from decimal import Decimal
from operator import attrgetter
from typing import TYPE_CHECKING, Callable

from agentscan.cli import render
from agentscan.cli.tableparts import Bound, Row
from agentscan.cli.term import Terminal, clean_path
from agentscan.cli.tokens_columns import (NOT_RECORDED, NUMBER_COLUMNS, REASONING_AT, SESSION_LEAD, TOTAL_AT,
                                          reasoning_unreported, session_cells)
from agentscan.cli.tokens_notes import shows_parts
from agentscan.cli.tokens_runs import counted_row, runs_cell, subagent_names, subagents_cell, with_subagents
from agentscan.model import TokenUsage, sum_usage

if TYPE_CHECKING:
    from agentscan.cli.tokens_sessions import TableSession
    from agentscan.scan.short_ids import Known
    from agentscan.scan.tokenreport import TokenRow

#: a usage's numbers in ``NUMBER_COLUMNS``' order, in one call (a heavy user's table has 15,000 rows)
_VALUES = attrgetter(*(name for _, name, _ in NUMBER_COLUMNS))


def number_cells(usage: TokenUsage | None, cost: Decimal | None, term: Terminal, *, compact: bool,
             part: bool = False, at_least: Decimal | None = None, unreported: bool = False,
             partial: bool = False, short: bool = False) -> list[str]:
    """The number cells and the cost; a session with no recorded usage says so, a part with none is ``-``.

    ``compact``: ``75.4k`` instead of ``75,433``, when that keeps columns a narrow terminal would lose.
    ``at_least``: for an unknown cost, what its priced calls cost (shown ``≥$…``).
    ``unreported``: its agents never record reasoning apart (``reasoning_unreported``): REASONING is ``-``.
    ``partial``: some of its agents do not (``reasoning_partial``): REASONING is a lower bound,
    ``≥1,234`` (``-`` for 0, as an agent's that records none), as a cost is one (``≥$0.43``).
    ``short``: its calls are a lower bound (a subagent's recovered from progress records, its
    final call not in them): on a terminal TOTAL and COST are ``≥…``, as a partial REASONING is.
    """
    if usage is None and part:
        return [""] * (len(NUMBER_COLUMNS) - 1) + ["-", ""]
    if usage is None:  # laid over the row's number and cost columns (``Row.span``)
        return [NOT_RECORDED] + [""] * len(NUMBER_COLUMNS)
    cost_cell = render.human_usd(cost, at_least, grouped=term.tty)
    cells = [*map(number_form(term, compact), _VALUES(usage)),
             Bound(cost_cell) if render.cost_bounded(cost, at_least) else cost_cell]
    # ``-`` is "not recorded", ``0`` "recorded 0" (the contract's rule), on a terminal and in a
    # pipe alike: a partial row's 0 is its recording agents' alone, the others' unknown, so
    # ``-`` in both (a pipe said ``0`` where a terminal said ``-``).  A pipe keeps a partial
    # figure above 0 a number, for ``awk``; the ``≥`` and the note saying so are a terminal's.
    if (unreported or partial) and not usage.reasoning:
        cells[REASONING_AT] = "-"
    elif partial and term.tty:
        # A day of Claude and Codex calls showed Codex's reasoning alone, 0 beside Claude's
        # thinking inside OUTPUT: read as all of it, or as none.
        cells[REASONING_AT] = Bound("≥" + cells[REASONING_AT])
    if short and term.tty:
        cells[TOTAL_AT] = Bound("≥" + cells[TOTAL_AT])
        if cells[-1] != "-" and not isinstance(cells[-1], Bound):
            cells[-1] = Bound("≥" + cells[-1])
    return cells


def number_form(term: Terminal, compact: bool) -> Callable[[int], str]:
    """How a table's numbers are shown: ``75.4k`` when ``compact``, else ``75,433`` on a
    terminal and ``75433`` in a pipe."""
    return render.compact_number if compact else render.full_numbers(term)


Total = tuple[TokenUsage | None, Decimal | None, Decimal | None]
"""A table's total: its tokens, cost and cost priced."""


def total_row(by: str, total: Total, term: Terminal, *, compact: bool, runs: TokenUsage | None = None,
              unreported: bool = False, partial: bool = False, short: bool = False) -> Row:
    """The TOTAL line; grouped, ``runs``: the subagent runs' tokens of every row (its SUBAGENTS);
    ``unreported``: no session of the table's agents records reasoning apart (REASONING ``-``);
    ``partial``: some do not; ``short``: a row's tokens are a lower bound (both ``number_cells``)."""
    usage, cost, priced = total
    values = number_cells(usage, cost, term, compact=compact, at_least=priced, unreported=unreported, partial=partial,
                          short=short)
    lead = SESSION_LEAD if by == "session" else 1
    # "not recorded" laid over the number columns, as a row's is (in INPUT alone it widened it).
    span = (lead, lead + len(NUMBER_COLUMNS) + (by != "session")) if usage is None else None
    if by != "session":
        values = with_subagents(values, runs_cell(runs, usage is not None, number_form(term, compact), term,
                                                  short=short))
    cells = session_cells("TOTAL", ["", "", ""], values) if by == "session" else ["TOTAL", *values]
    return Row(cells, style="bold", span=span)


def row_lines(token_row: TokenRow, key: str, facts: list[str], term: Terminal, *, compact: bool,
              session: TableSession | None = None, unreported: bool | None = None,
              known: Known | None = None, partial: bool = False) -> list[Row]:
    """A row's lines: its own, then, by session on a terminal, its parts (own and each
    subagent's; a pipe gets a line a row, as ``awk`` sums them: ``--json`` has the parts);
    grouped, one line, its runs' tokens in its SUBAGENTS cell (``tokens_runs.subagents_cell``;
    a row of delegated calls alone, its key saying how many runs: ``tokens_runs.counted_row``); none for a row of 0 tokens,
    nor, by session, for a session that recorded no usage (named in a line under the table,
    as a grouping names them; one that recorded nothing at all in one of its own:
    ``recorded_nothing``).  ``key``: its first cell; ``facts``: a session's date, project
    and title (``[]`` but by session), of ``session``; ``unreported``: its agents never record
    reasoning apart (REASONING ``-``; ``None``: by session, told by its id's agent); ``partial``:
    grouped, some of them do not (``number_cells``); ``known``: as ``tokens_text.print_report``'s."""
    if token_row.tokens is not None and token_row.tokens.total == 0:
        return []  # nothing spent: folded into one line after the table
    by_session = bool(facts)
    if by_session and token_row.tokens is None:
        return []  # named in one line after the table
    if unreported is None:
        unreported = by_session and reasoning_unreported((token_row.key.partition(":")[0],))

    def numbers(usage: TokenUsage | None, cost: Decimal | None, *, part: bool = False,
                at_least: Decimal | None = None, short: bool = False) -> list[str]:
        return number_cells(usage, cost, term, compact=compact, part=part, at_least=at_least, unreported=unreported,
                            partial=partial, short=short)

    def cells(first: str, numbers: list[str], title: str = "") -> list[str]:
        return session_cells(first, ["", "", title], numbers) if by_session else [first, *numbers]

    unrecorded = token_row.tokens is None
    # A subagent recovered from progress records (its final call not in them): the session's
    # tokens are a lower bound, said by its figures, not only by a note a narrow TITLE cuts.
    values = numbers(token_row.tokens, token_row.cost, at_least=token_row.cost_priced, short=bool(token_row.recovered))
    # "not recorded" (a grouping's row of calls with no usage) is laid over the empty number
    # columns, not in TOTAL alone.
    span = (1, len(NUMBER_COLUMNS) + 2) if unrecorded else None
    if not by_session:
        # One line a row (ccusage's tables are): its runs' part a column of its own.
        # A row made only of delegated calls (each kind's ``--by agent``), on a terminal: its
        # key says how many runs it adds up (a pipe's key stays one field for ``awk``).
        counted = token_row.own is None and bool(token_row.subagents) and shows_parts(term) and numbers(
            sum_usage(usage for _, usage in token_row.subagents), token_row.subagents_cost,
            at_least=token_row.subagents_cost_priced, short=bool(token_row.recovered)) == values
        values = with_subagents(values, subagents_cell(token_row, number_form(term, compact), term))
        if counted:
            return [counted_row(key, len(token_row.subagents), values, span)]
        return [Row([key, *values], span=span)]
    lines = [Row(session_cells(key, facts, values), span=span)]
    if not token_row.subagents or not shows_parts(term):
        return lines
    if token_row.own is not None:  # a group made only of delegated calls has no own part to show
        lines.append(Row(cells("  own", numbers(token_row.own, token_row.own_cost, part=True,
                                                at_least=token_row.own_cost_priced)), style="dim"))
    costs = token_row.subagent_costs or (None,) * len(token_row.subagents)
    # A part's unknown cost shows its lower bound as its group's does (``≥$0.43``), not ``-``.
    bounds = token_row.subagent_costs_priced or (None,) * len(token_row.subagents)
    names = subagent_names(token_row, term, known)
    recovered = dict(token_row.recovered)
    for (sub_id, usage), cost, bound in zip(token_row.subagents, costs, bounds):
        # No transcript: its calls were recovered from its parent's progress records,
        # which hold no copy of its final reply: a count short of it (docs/providers/claude.md).
        # Said where the title goes, so the id column stays narrow.
        note = recovered_note(recovered[sub_id]) if sub_id in recovered else ""
        lines.append(Row(cells(f"  ↳ {clean_path(names.get(sub_id, sub_id))}",
                               numbers(usage, cost, part=True, at_least=bound, short=bool(note)), note), style="dim"))
    return lines


def recovered_note(origin: str) -> str:
    """A subagent line's TITLE cell when its transcript is gone and its calls were found in
    its parent's ``origin`` records (``progress``), worded as ``show`` words it.  What it is
    comes first: a narrow TITLE keeps ``(no transcript:…``, where ``(from progress …`` said
    nothing; a wide one shows it all."""
    return f"(no transcript: from {origin} records, final response not in them)"
