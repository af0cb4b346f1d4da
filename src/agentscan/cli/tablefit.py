"""A table fitted to a terminal's width: which columns are kept and how wide each is.

Free-text columns (title, cwd, model) are cut, widest first, a title no narrower than it
``wants`` while a column that goes before it is left to drop; when even the narrowest
free text does not fit, the columns marked droppable go, least useful first; when none
is left to go, a label is cut too; ids, times and numbers never are (the line
overflows).  Off a terminal every column is whole (``layout``).
"""

from __future__ import annotations

from typing import Callable, Collection, Iterable, Sequence

from agentscan.cli.tableparts import GAP, Column, Row
from agentscan.cli.tablewidths import natural
from agentscan.cli.term import Terminal, cut, width_of


def _floor(column: Column, natural: int, *, labels: bool = False, wanted: bool = False) -> int:
    """The narrowest a column may get: its header stays whole; a label's (``labels``) only
    once nothing is left to drop; a title's what it ``wants`` while that is ``wanted``."""
    if not (column.flex or (labels and column.label)):
        return natural
    least = max(column.min_width, column.wants) if wanted else column.min_width
    return min(natural, max(least, width_of(column.header)))


def _outlasts(columns: Sequence[Column], index: int, kept: Collection[int]) -> bool:
    """Whether a column that goes before column ``index`` is kept: a title keeps what it
    ``wants`` over it (an 80-column ``list`` gave its TITLE 11 characters, its CWD 15)."""
    return any(columns[other].drop > columns[index].drop for other in kept)


def told_apart(column: Column, names: Iterable[str], cut_to: Callable[[str, int], str] = cut) -> Column:
    """A label ``column`` whose ``min_width`` is raised to where ``names`` (its rows' keys) cut
    to it still read apart: ``gpt-5.1-co…`` twice, for ``gpt-5.1-codex`` and
    ``gpt-5.1-codex-mini``, named neither (the line overflows instead).  ``cut_to``: how a name
    is shown that wide (a model's agents kept whole: ``tokens_models.fitted``)."""
    distinct = set(names)
    least = max(column.min_width, width_of(column.header))
    widest = max(map(width_of, distinct), default=0)
    for width in range(least, widest):
        if len({cut_to(name, width) for name in distinct}) == len(distinct):
            return column._replace(min_width=width)
    return column._replace(min_width=max(least, widest))


def fit(columns: Sequence[Column], rows: Sequence[Row], width: int) -> tuple[list[int], list[int]]:
    """(indexes of the columns kept, their widths) so a row fits in ``width``."""
    return fit_natural(columns, natural(columns, rows), width)


def fit_natural(columns: Sequence[Column], natural_widths: list[int], width: int) -> tuple[list[int], list[int]]:
    """``fit`` of rows whose natural widths are ``natural_widths``."""
    natural = natural_widths
    kept = list(range(len(columns)))

    def floor_total(indexes: list[int]) -> int:
        return sum(_floor(columns[i], natural[i], wanted=_outlasts(columns, i, indexes))
                   for i in indexes) + len(GAP) * (len(indexes) - 1)

    while floor_total(kept) > width:
        droppable = [i for i in kept if columns[i].drop]
        if not droppable:
            break
        kept.remove(max(droppable, key=lambda i: (columns[i].drop, i)))
    widths = {i: natural[i] for i in kept}
    excess = sum(widths.values()) + len(GAP) * (len(kept) - 1) - width
    # Cut the widest free text first (relative to its weight), a title no narrower than it
    # ``wants`` while a column that goes before it is kept; then, with nothing left to
    # drop or cut, the labels (a figure, an id or a time is never cut: the line overflows).
    wanted = {i: _outlasts(columns, i, kept) for i in kept}
    for labels, keep_wanted in ((False, True), (False, False), (True, False)):
        while excess > 0:
            shrinkable = [i for i in kept if (columns[i].label if labels else columns[i].flex)
                          and widths[i] > _floor(columns[i], natural[i], labels=labels,
                                                 wanted=keep_wanted and wanted[i])]
            if not shrinkable:
                break
            widest = max(shrinkable, key=lambda i: (widths[i] / columns[i].weight, -i))
            widths[widest] -= 1
            excess -= 1
    return kept, [widths[i] for i in kept]


Layout = tuple[list[int], list[int]]
"""The indexes of the columns kept and their widths."""


def layout(columns: Sequence[Column], rows: Sequence[Row], term: Terminal) -> Layout:
    """What ``render`` lays the rows out in: on a terminal fitted to it, else every column whole."""
    return layout_natural(columns, natural(columns, rows), term)


def layout_natural(columns: Sequence[Column], natural_widths: list[int], term: Terminal) -> Layout:
    """``layout`` of rows whose natural widths are ``natural_widths``."""
    if not term.tty:
        return list(range(len(columns))), natural_widths
    return fit_natural(columns, natural_widths, term.width)


def hidden(columns: Sequence[Column], planned: Layout) -> list[str]:
    """The headers of the columns a layout leaves out to fit."""
    kept = planned[0]
    return [c.header for i, c in enumerate(columns) if i not in kept]


def overflows(planned: Layout, term: Terminal) -> bool:
    """Whether a layout is wider than the terminal: its ids, times and numbers alone do not
    fit, and its lines are printed wider than it (never cut: ``_line``)."""
    kept, widths = planned
    return term.tty and sum(widths) + len(GAP) * (len(kept) - 1) > term.width


#: a way to tell a table's rows (``least_lost``): their natural widths, and whether it is
#: taken over the ways before it only to keep more of the columns worth keeping
Way = tuple[Callable[[], list[int] | None], bool]


def least_lost(columns: Sequence[Column], tellings: Sequence[Sequence[Way]], term: Terminal,
               worth: Collection[str], *, names_whole: bool = False) -> tuple[int, int, Layout] | None:
    """How to lay out rows that can be told in several ways: ``tellings`` in groups (say,
    exact numbers, then rounded), each a list of ways (say, long labels, then short), the
    one liked best first.  A later group is taken only when it leaves out fewer of the
    columns ``worth`` keeping; within the group taken, a way is taken over those before it
    when it leaves out fewer of those, or as many and fewer columns at all (a way marked
    strict: only fewer of those).  Before all that, a way that fits the terminal is taken
    over one that ``overflows`` it (a number no narrower way leaves whole would be printed
    past its edge).  Returns (group, way, layout); ``None``: a way's widths cannot be told.
    A way is measured only when it may be taken (15,000 rows are not measured twice for
    nothing).  ``names_whole``: a later group is taken too when it leaves out no more of
    those and cuts fewer labels (a model's name: ``sonne… (claude)`` beside a TOTAL of
    ``1,549,015,039`` at 30 columns, where ``1.5B`` kept ``sonnet-4.5 (claude)`` whole)."""
    # ((overflows, worth lost, labels cut, all lost), group, way, layout); labels cut only
    # counted with ``names_whole``
    best: tuple[tuple[bool, int, int, int], int, int, Layout] | None = None
    among = 3 if names_whole else 2
    for group, ways in enumerate(tellings):
        if best is not None and not any(best[0][:among]):
            break  # no group after it can fit better or leave out fewer of those worth keeping
        chosen: tuple[tuple[bool, int, int, int], int, int, Layout] | None = None
        for index, (natural_widths, strict) in enumerate(ways):
            if chosen is not None and not chosen[0][0] and not chosen[0][3]:
                break  # it fits and nothing is left out
            if chosen is not None and strict and not any(chosen[0][:2]):
                continue  # it could keep nothing it may be taken for
            widths = natural_widths()
            if widths is None:
                return None
            planned = layout_natural(columns, widths, term)
            left_out = hidden(columns, planned)
            cut_labels = sum(1 for i, shown in zip(*planned) if columns[i].label and shown < widths[i]) if names_whole else 0
            lost = (overflows(planned, term), sum(1 for header in left_out if header in worth), cut_labels, len(left_out))
            if chosen is None or (lost[:2] < chosen[0][:2] if strict else lost < chosen[0]):
                chosen = (lost, group, index, planned)
        if chosen is not None and (best is None or chosen[0][:among] < best[0][:among]):
            best = chosen
    return None if best is None else best[1:]
