"""The card's ``subagents`` list (``show_text.card_lines``): its heading, then one line a
subagent, its id, its type and the model it ran in columns only some subagent fills, its
tokens, and what it cost (as the card's own ``cost``: ``$0.26``, ``-`` unknown, ``≥$…`` a
lower bound; a column only when some subagent was priced).

A row's model is named as the card's ``model`` line and ``show --full`` name one, whole
(``claude-haiku-4-5-20251001``), so one screen does not name one model two ways.  A row
too wide for the terminal loses, in this order, the end of its free-text note, the
snapshot's date of every row's model (named as ``list`` names a model, ``haiku-4.5``:
every row alike), the word ``tokens`` (said once, in the heading, over the figures),
characters of its type and model, then the model column and then the type column (a
40-column terminal folded each row in two); its id and its figures are never cut: when
even that does not fit, the row is printed whole, wider than the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from agentscan.cli import render
from agentscan.cli.render import human_usd
from agentscan.cli.term import Terminal, clean, clean_path, cut, width_of
from agentscan.detailmodel import SessionDetail

if TYPE_CHECKING:
    from agentscan.scan.short_ids import Known

#: the least a type or a model keeps when the row is cut to fit
_MIN_TEXT = 8
_UNIT = "tokens"
#: the cost column's heading when ``tokens`` is said once in the heading
_COST = "cost"
#: how a row's note opens (a subagent recovered from progress records), cut first when narrow
_NO_TRANSCRIPT = "  (no transcript:"
#: a run whose exchange could not be read (``SubagentInfo.exchange_unknown``): ``--full`` has no block of it
_EXCHANGE_UNKNOWN = "  (its exchange not known: could not be read)"


class _Cells(NamedTuple):
    ids: list[str]
    types: list[str]
    models: list[str]
    short_models: list[str]  # as ``list`` names them, for a terminal too narrow for ``models``
    counts: list[str]
    costs: list[str]  # empty: no column
    notes: list[str]
    type_width: int  # 0: no column
    model_width: int  # 0: no column
    #: what a run without a figure says: ``tokens not recorded``, or ``tokens not known`` when
    #: the session's own could not be read (Cursor's state DB corrupt or locked: its runs'
    #: tokens are in it too, ``showing``'s ``tokens_unknown``)
    missing: str = "tokens not recorded"


def subagent_lines(detail: SessionDetail, term: Terminal, names: dict[str, str]) -> list[str]:
    """The heading (``subagents (2)``) and a line each subagent: id (as ``names`` shortens
    it: ``subagent_names``), type, the model it ran (a column only when some
    subagent's is known: often another than the session's, as Claude's ``Explore`` on
    Haiku), tokens, cost."""
    heading = f"subagents ({len(detail.subagents)})"
    cells = _cells(detail, term, names)
    if term.tty and not _fits(cells, term.width, unit=True):
        # Too narrow: every model named short (``haiku-4.5``), as ``list`` names it ...
        cells = cells._replace(models=cells.short_models,
                               model_width=max(map(width_of, cells.short_models)) if cells.model_width else 0)
    if not term.tty or _fits(cells, term.width, unit=True):
        return [heading, *_fit_notes(_rows(cells, unit=True), term)]
    # ... then ``tokens`` said once, over the figures, then narrower type and model columns.
    cells = _narrowed(cells, term.width)
    left_out = []
    if cells.costs and not _fits(cells, term.width, unit=False):
        # Still too wide (a 17-character id, a figure in the millions, at 30 columns): the
        # costs go, as ``list`` leaves out COST and says so; the card's ``cost`` line has
        # their sum.  The ids and the figures are never cut.
        cells = _narrowed(cells._replace(costs=[]), term.width)
        left_out = ["  (costs left out to fit)"]
    core = max(width_of(row) for row in _rows(cells, unit=False, notes=False))
    cost_width = _cost_width(cells, unit=False)
    if cost_width:
        core -= 2 + cost_width  # ``tokens`` over the figures, ``cost`` over the costs
    # Rows narrower than the heading (their type and model left out) are padded for their
    # figures to end under ``tokens``, as a table's do under its header.
    pad = max(width_of(heading) + 2 + len(_UNIT) - core, 0)
    rows = _rows(cells, unit=False, pad=pad)
    heading = heading + " " * max(core + pad - width_of(heading) - len(_UNIT), 2) + _UNIT
    if cost_width:
        heading += f"  {_COST:>{cost_width}}"
    return [heading, *_fit_notes(rows, term), *left_out]


def _cells(detail: SessionDetail, term: Terminal, names: dict[str, str]) -> _Cells:
    subs = detail.subagents
    ids = [clean_path(names.get(sub.id, sub.id)) for sub in subs]
    types = [clean(sub.agent_type) or "-" for sub in subs]
    # Whole, as the card's ``model`` line names the session's; on a terminal too narrow for
    # that, as ``list`` names a model (``haiku-4.5``).
    models = [clean(sub.model) or "-" for sub in subs]
    short_models = [(clean(render.model_text(sub.model, term)) if sub.model else "") or "-" for sub in subs]
    # Whole, as the card's own total a few lines above is (``6.3k`` beside ``75,433``
    # read as two units of one thing); grouped for a person, plain in a pipe.
    counts = [("" if not sub.tokens else f"{sub.tokens.total:,}" if term.tty else str(sub.tokens.total))
              for sub in subs]
    # As the card's own ``cost``, rounded alike (``tokens`` gives the same figure for the run);
    # a column only when some run was priced (``scan.costs.with_cost``): not one of dashes alone.
    costs = ([human_usd(sub.cost, sub.cost_priced, grouped=term.tty) if sub.tokens else "-" for sub in subs]
             if any(sub.cost_priced is not None for sub in subs) else [])
    # Progress records hold no copy of a subagent's final reply: a count short of it.
    notes = [f"{_NO_TRANSCRIPT} from {sub.recovered_from} records, final response not in them)"
             if sub.recovered_from else _EXCHANGE_UNKNOWN if getattr(sub, "exchange_unknown", False) else ""
             for sub in subs]  # (``getattr``: a subagent of a library caller's own making may lack it)
    # A column of dashes is a column nobody can name: the type only when some run has one.
    type_width = max(map(width_of, types)) if any(sub.agent_type for sub in subs) else 0
    model_width = max(map(width_of, models)) if any(sub.model for sub in subs) else 0
    missing = "tokens not known" if detail.extra.get("tokens_unknown") else "tokens not recorded"
    return _Cells(ids, types, models, short_models, counts, costs, notes, type_width, model_width, missing)


def _rows(cells: _Cells, *, unit: bool, notes: bool = True, pad: int = 0) -> list[str]:
    """``pad``: columns more before each figure (``unit`` False)."""
    id_width = max(map(width_of, cells.ids))
    count_width = max(8, *map(width_of, cells.counts)) if unit else max(len(_UNIT), *map(width_of, cells.counts)) + pad
    if unit:
        totals = [f"{count:>{count_width}} {_UNIT}" if count else cells.missing for count in cells.counts]
    else:
        totals = [f"{count or '-':>{count_width}}" for count in cells.counts]
    if cells.costs:
        # A column after the figures, right-aligned, as they are (``tokens not recorded`` ends
        # where a figure's ``tokens`` does, and its cost, ``-``, under the others').
        total_width = max(map(width_of, totals))
        cost_width = _cost_width(cells, unit=unit)
        totals = [f"{_pad_left(total, total_width)}  {_pad_left(cost, cost_width)}" for total, cost in zip(totals, cells.costs)]
    rows = []
    for name, kind, model, total, note in zip(cells.ids, cells.types, cells.models, totals, cells.notes):
        shown_type = f"{_pad(cut(kind, cells.type_width), cells.type_width)}  " if cells.type_width else ""
        shown_model = f"{_pad(cut(model, cells.model_width), cells.model_width)}  " if cells.model_width else ""
        rows.append(f"  {_pad(name, id_width)}  {shown_type}{shown_model}{total}{note if notes else ''}")
    return rows


def _fits(cells: _Cells, width: int, *, unit: bool) -> bool:
    """Whether every row but its note fits ``width``."""
    return all(width_of(row) <= width for row in _rows(cells, unit=unit, notes=False))


def _narrowed(cells: _Cells, width: int) -> _Cells:
    """``cells`` fitted to ``width`` (a row without its note): the type and model columns
    narrowed, and where that is not enough, the model column left out, then the type column
    too (each from its whole width again); the last of those when none fits."""
    for without in ((), ("model",), ("model", "type")):
        tried = _narrowed_columns(cells._replace(model_width=0 if "model" in without else cells.model_width,
                                                 type_width=0 if "type" in without else cells.type_width), width)
        if _fits(tried, width, unit=False):
            break
    return tried


def _narrowed_columns(cells: _Cells, width: int) -> _Cells:
    """``cells`` with the type and model columns narrowed (the wider first, neither below
    ``_MIN_TEXT``) until a row without its note fits ``width``, or they can give no more."""
    over = max(width_of(row) for row in _rows(cells, unit=False, notes=False)) - width
    type_width, model_width = cells.type_width, cells.model_width
    while over > 0:
        if model_width >= type_width and model_width > _MIN_TEXT:
            model_width -= 1
        elif type_width > _MIN_TEXT:
            type_width -= 1
        elif model_width > _MIN_TEXT:
            model_width -= 1
        else:
            break
        over -= 1
    return cells._replace(type_width=type_width, model_width=model_width)


def _fit_notes(rows: list[str], term: Terminal) -> list[str]:
    """On a terminal a row's note is cut to the width; the id and the figure before it never are."""
    if not term.tty:
        return rows
    return [row if width_of(row) <= term.width else _cut_note(row, term.width) for row in rows]


def _cut_note(row: str, width: int) -> str:
    for marker in (_NO_TRANSCRIPT, _EXCHANGE_UNKNOWN):
        if marker in row:
            core, _, note = row.partition(marker)
            room = width - width_of(core)
            if room < len("  (no…"):
                return core
            return core + cut(marker + note, room)
    return row


def _cost_width(cells: _Cells, *, unit: bool) -> int:
    """The cost column's width: its widest cost, and its heading's when ``tokens`` is in the heading."""
    return max(0 if unit else len(_COST), *map(width_of, cells.costs)) if cells.costs else 0


def _pad_left(text: str, width: int) -> str:
    """``text`` right-aligned in ``width`` columns (``≥`` takes one)."""
    return " " * (width - width_of(text)) + text


def _pad(text: str, width: int) -> str:
    """``text`` padded to ``width`` columns (a CJK character takes two)."""
    return text + " " * (width - width_of(text))


__all__ = ["subagent_lines"]


def subagent_tokens(detail: SessionDetail) -> int:
    """How much of the session's total its subagents made (the lines under ``subagents``
    each give theirs; the total holds them, which the card did not say): all of it where
    the parent's transcript is missing, as ``tokens`` shows it (``↳`` lines, no ``own``)."""
    return sum(sub.tokens.total for sub in detail.subagents if sub.tokens)


def subagent_call_count(detail: SessionDetail) -> int:
    """How many tool calls the subagents made: every one read (``subagent_tool_calls``), as the
    row's count of the session's own is, not only those among the newest the bounds kept (the
    card's ``+300 by subagents`` of a session of 5,000 calls was of its newest 2,000 alone);
    as many as are kept for a detail built without it."""
    total = detail.extra.get("subagent_tool_calls")
    kept = sum(1 for tool in detail.tools if tool.subagent)
    return max(total, kept) if type(total) is int else kept


def subagent_names(detail: SessionDetail, term: Terminal, known: Known | None = None) -> dict[str, str]:
    """How a subagent is named on a terminal: by its shortest prefix no other subagent of the
    session shares, nor any id of ``known`` (every session's and run's the scan knows:
    ``sessionids.known_ids_of``), 8 characters or more, as ``list`` shortens session ids and
    ``tokens`` its runs (each still opens the run with ``show``); in a pipe, whole.  A tool
    call marked with a whole thread id (Codex's, Cursor's UUIDs) lost 39 columns of its
    summary, and Claude's 17-character ids (``a0ad4f44468bdf20d``) ran the subagents' rows
    past a 30-column terminal, where ``tokens`` named the same run ``a0ad4f44``."""
    if not term.tty:
        return {}
    ids = {sub.id for sub in detail.subagents} | {tool.subagent for tool in detail.tools if tool.subagent}
    long = [sub_id for sub_id in ids if len(sub_id) > 8]
    if not long:
        return {}
    from agentscan.scan.short_ids import child_prefixes

    # None of them the session's own shortened id (``list``'s), which opens the session itself.
    prefixes = child_prefixes(long, detail.row.native_id, known=known() if known is not None else ())
    return {sub_id: prefix for sub_id, prefix in prefixes.items() if prefix != sub_id}
