"""``tokens --breakdown``'s lines: under each row, one indented line a model (ccusage's
``--breakdown``), its figures in the row's columns, the dearest first (``scan.tokenmodels``).

A model line is a line as the row's (no box drawing): its name two spaces in, where the row's
key is, then the row's number columns and COST; a grouped row's SUBAGENTS cell is the model's
runs' part.  A terminal names the models as ``--by model`` does (``tokens_models``: ``sonnet-4.5``,
told apart where two read alike), a pipe as recorded; a model of 0 tokens gets no line, as a
row of 0 gets none.  The lines sum to their row: ``scan.tokenmodels`` adds them up so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentscan.cli.tableparts import Row
from agentscan.cli.tokens_columns import reasoning_partial, reasoning_unreported, session_cells

if TYPE_CHECKING:
    from agentscan.cli.term import Terminal
    from agentscan.cli.tokens_models import AgentsOf
    from agentscan.scan.tokenreport import TokenReport, TokenRow

#: how far in a model's line is, under its row's key (a session's parts are ``  own``, ``  ↳ …``)
INDENT = "  "


def model_names(report: TokenReport, term: Terminal, agents_of: AgentsOf | None) -> dict[str, str]:
    """Each model of the rows' breakdowns (as recorded) -> its name as the lines show it:
    on a terminal as ``--by model``'s rows name it, told apart from the table's other
    models; in a pipe as recorded (control characters shown, not obeyed)."""
    from agentscan.cli.term import clean_path

    models = list(dict.fromkeys(part.key for row in report.rows for part in row.models or ()
                                if part.tokens is not None and part.tokens.total))
    # (A provider's text: its control characters shown, not obeyed, as ``tokens_text.shown_keys`` shows a key.)
    shown = [model if model.isprintable() else clean_path(model) for model in models]
    if term.tty and shown:
        from agentscan.cli import tokens_models

        shown = tokens_models.model_names(shown, term, agents_of).names
    return dict(zip(models, shown))


def model_lines(token_row: TokenRow, names: dict[str, str], term: Terminal, *, compact: bool, by_session: bool,
                unreported: bool) -> list[Row]:
    """``token_row``'s models' lines (``TokenRow.models``; none when not asked for), each
    with its figures as ``tokens_rows.number_cells`` shows a row's: REASONING ``-`` where the
    model's agents record none apart, as a row's (``unreported``: the row's, for a model whose
    agents are not known)."""
    from agentscan.cli.tokens_rows import number_cells, number_form
    from agentscan.cli.tokens_runs import subagents_cell, with_subagents

    lines: list[Row] = []
    for part in token_row.models or ():
        if part.tokens is None or not part.tokens.total:
            continue  # nothing spent (a ``<synthetic>`` notice's model): no line, as a row of 0
        providers = part.providers
        silent = reasoning_unreported(providers) if providers else unreported
        partial = not by_session and reasoning_partial(providers)
        # (a model's calls recovered from progress records: a lower bound, as its ``--by model`` row)
        values = number_cells(part.tokens, part.cost, term, compact=compact, at_least=part.cost_priced,
                              unreported=silent, partial=partial, short=bool(part.recovered))
        name = INDENT + names.get(part.key, part.key)
        if by_session:
            lines.append(Row(session_cells(name, ["", "", ""], values), style="dim"))
        else:
            values = with_subagents(values, subagents_cell(part, number_form(term, compact), term))
            lines.append(Row([name, *values], style="dim"))
    return lines

