"""Plain aligned tables, one line per row, as ``gh``, ``git log`` and ``docker ps`` print them.

On a terminal the table is fitted to its width: free-text columns (title,
cwd, model) are cut with ``…``, widest first, a title no narrower than it
``wants`` while a column that goes before it is left to drop, a path no
narrower than its last folder's name (``tablepaths``); ids, times and numbers are
never cut.  When even the narrowest free text does not fit, the columns
marked droppable go, least useful first, and the caller is told which; when
none is left to go, a label (a row's name that is no id: ``tokens --by
model``'s models) is cut too, and when even that does not fit, the line is
printed whole, wider than the terminal, rather than a figure cut (``$3.…``
read as a price).  Piped output is never fitted: every cell is printed whole.
"""

from __future__ import annotations

from typing import Any, Callable, Collection, Iterable, NamedTuple, Sequence, TextIO

from agentscan.cli.term import Terminal, cut, cut_left, terminal, width_of, write_out

GAP = "  "


class Column(NamedTuple):
    """A column's header and how it is laid out (a named tuple: see ``cli.term.Terminal``)."""

    header: str
    right: bool = False  # numbers: right-aligned
    flex: bool = False  # free text: may be cut to fit the terminal
    min_width: int = 0  # a flex column is not cut below this; under it the column is dropped
    weight: int = 1  # a flex column with weight 2 keeps twice the width of one with 1
    drop: int = 0  # 0: always kept; when space runs out the highest value goes first
    keep_end: bool = False  # paths: cut the start, the end tells them apart
    style: str | None = None  # colour of the cells on a terminal
    #: a title, the column people read (as ``gh issue list``'s): kept this wide while a
    #: column that goes before it (a higher ``drop``) is left to drop; cut down to
    #: ``min_width`` only once none is
    wants: int = 0
    #: a row's name that is no id (a model): cut like free text down to ``min_width``, but only
    #: when no droppable column is left to go (a figure is never left out to keep it whole)
    label: bool = False


class Row(NamedTuple):
    """A line of the table.  A named tuple, not a dataclass: made in C, and a heavy user's
    ``tokens`` table makes 40,000 of them (two layouts of 20,000 lines)."""

    cells: Sequence[str]
    style: str | None = None  # e.g. "bold" for a total, "dim" for a detail line
    #: (first, last) column indexes whose cells are printed as one: ``cells[first]``
    #: across them all ("not recorded" over a row's empty number columns), so one
    #: long word does not widen a column every other row keeps narrow
    span: tuple[int, int] | None = None


def spanned(row: Row, index: int) -> bool:
    return row.span is not None and row.span[0] <= index <= row.span[1]


def natural(columns: Sequence[Column], rows: Sequence[Row]) -> list[int]:
    """Each column's width with no cell cut: its widest cell, or its header."""
    widths = [width_of(c.header) for c in columns]
    spanning = []
    for row in rows:
        if row.span is not None:
            spanning.append(row)
            for index, cell in enumerate(row.cells):
                if not spanned(row, index):
                    widths[index] = max(widths[index], width_of(cell))
            continue
        # Most rows: no span, ASCII cells (a heavy user's table has 200,000 of them).
        for index, cell in enumerate(row.cells):
            width = len(cell) if cell.isascii() else width_of(cell)
            if width > widths[index]:
                widths[index] = width
    for row in spanning:
        if row.span is not None:  # always (for the type checker)
            _widen_for_span(widths, *row.span, width_of(row.cells[row.span[0]]))
    return widths


def _widen_for_span(widths: list[int], first: int, last: int, width: int) -> None:
    """Widen the last of the columns ``first..last`` until text ``width`` wide, laid over
    them and the gaps between them, fits."""
    room = sum(widths[first:last + 1]) + len(GAP) * (last - first)
    widths[last] += max(0, width - room)


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


def told_apart(column: Column, names: Iterable[str]) -> Column:
    """A label ``column`` whose ``min_width`` is raised to where ``names`` (its rows' keys) cut
    to it still read apart: ``gpt-5.1-co…`` twice, for ``gpt-5.1-codex`` and
    ``gpt-5.1-codex-mini``, named neither (the line overflows instead)."""
    distinct = set(names)
    least = max(column.min_width, width_of(column.header))
    widest = max(map(width_of, distinct), default=0)
    for width in range(least, widest):
        if len({cut(name, width) for name in distinct}) == len(distinct):
            return column._replace(min_width=width)
    return column._replace(min_width=max(least, widest))


class WidthCounts:
    """How many cells of each width each column holds, and the spans laid over them: the
    natural widths (``natural``) of rows that come and go, told without the rows (a
    patched table, ``cli.tablepatch``, has 20,000 lines and changes a few)."""

    def __init__(self, columns: list[dict[int, int]], spans: dict[tuple[int, int, int], int]) -> None:
        self.columns = columns
        #: (first, last, width of the spanning text) -> how many rows
        self.spans = spans

    @classmethod
    def of(cls, size: int, rows: Sequence[Row] = ()) -> WidthCounts:
        counts = cls([{} for _ in range(size)], {})
        counts.add(rows)
        return counts

    def add(self, rows: Sequence[Row], sign: int = 1) -> None:
        """Count ``rows`` in (``sign`` -1: out)."""
        columns = self.columns
        for row in rows:
            span = row.span
            for index, cell in enumerate(row.cells):
                if span is not None and span[0] <= index <= span[1]:
                    continue
                width = len(cell) if cell.isascii() else width_of(cell)
                counts = columns[index]
                counts[width] = counts.get(width, 0) + sign
            if span is not None:
                key = (span[0], span[1], width_of(row.cells[span[0]]))
                self.spans[key] = self.spans.get(key, 0) + sign

    def natural(self, columns: Sequence[Column]) -> list[int] | None:
        """``natural`` of the rows counted; ``None``: it cannot be told (more rows counted out
        than in, or spans of two kinds, whose order ``natural`` lays them in would matter)."""
        if any(count < 0 for counts in self.columns for count in counts.values()):
            return None
        widths = [max([width_of(column.header), *(width for width, count in counts.items() if count)])
                  for column, counts in zip(columns, self.columns)]
        spans = [key for key, count in self.spans.items() if count]
        if len(spans) > 1 or any(count < 0 for count in self.spans.values()):
            return None
        for first, last, width in spans:
            _widen_for_span(widths, first, last, width)
        return widths

    def to_json(self) -> list:
        return [[sorted(counts.items()) for counts in self.columns], [[*key, count] for key, count in self.spans.items()]]

    @classmethod
    def from_json(cls, value: Any, size: int) -> WidthCounts | None:
        """``to_json``'s value read back; ``None``: of another shape."""
        try:
            kept_columns, kept_spans = value
            if len(kept_columns) != size:
                return None
            counts = cls([{width: count for width, count in items} for items in kept_columns],
                         {(first, last, width): count for first, last, width, count in kept_spans})
        except (TypeError, ValueError):
            return None
        numbers = [number for column in counts.columns for pair in column.items() for number in pair]
        numbers += [number for key, count in counts.spans.items() for number in (*key, count)]
        if any(type(number) is not int for number in numbers) or any(
                not 0 <= first <= last < size for first, last, _ in counts.spans):
            return None
        return counts

    def copy(self) -> WidthCounts:
        return WidthCounts([dict(counts) for counts in self.columns], dict(self.spans))


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
               worth: Collection[str]) -> tuple[int, int, Layout] | None:
    """How to lay out rows that can be told in several ways: ``tellings`` in groups (say,
    exact numbers, then rounded), each a list of ways (say, long labels, then short), the
    one liked best first.  A later group is taken only when it leaves out fewer of the
    columns ``worth`` keeping; within the group taken, a way is taken over those before it
    when it leaves out fewer of those, or as many and fewer columns at all (a way marked
    strict: only fewer of those).  Before all that, a way that fits the terminal is taken
    over one that ``overflows`` it (a number no narrower way leaves whole would be printed
    past its edge).  Returns (group, way, layout); ``None``: a way's widths cannot be told.
    A way is measured only when it may be taken (15,000 rows are not measured twice for
    nothing)."""
    # ((overflows, worth lost, all lost), group, way, layout)
    best: tuple[tuple[bool, int, int], int, int, Layout] | None = None
    for group, ways in enumerate(tellings):
        if best is not None and not any(best[0][:2]):
            break  # no group after it can fit better or leave out fewer of those worth keeping
        chosen: tuple[tuple[bool, int, int], int, int, Layout] | None = None
        for index, (natural_widths, strict) in enumerate(ways):
            if chosen is not None and not chosen[0][0] and not chosen[0][2]:
                break  # it fits and nothing is left out
            if chosen is not None and strict and not any(chosen[0][:2]):
                continue  # it could keep nothing it may be taken for
            widths = natural_widths()
            if widths is None:
                return None
            planned = layout_natural(columns, widths, term)
            left_out = hidden(columns, planned)
            lost = (overflows(planned, term), sum(1 for header in left_out if header in worth), len(left_out))
            if chosen is None or (lost[:2] < chosen[0][:2] if strict else lost < chosen[0]):
                chosen = (lost, group, index, planned)
        if chosen is not None and (best is None or chosen[0][:2] < best[0][:2]):
            best = chosen
    return None if best is None else best[1:]


def render(columns: Sequence[Column], rows: Sequence[Sequence[str] | Row], term: Terminal,
           planned: Layout | None = None, *, fit_paths: bool = False) -> tuple[list[str], list[str]]:
    """The table's lines, and the headers of the columns left out to fit; ``planned``: the
    rows' ``layout``, when the caller made it already (to choose between two tables).
    ``fit_paths``: widths traded between path and title columns by the cells
    (``tablepaths.paths_fitted``), and laid out with its path columns no narrower than
    their last folder's names (``tablepaths.named_floors``); a table whose lines are
    spliced from kept text fits its planned layout first and passes that (``tablepatch``
    lays out its pieces apart)."""
    table_rows = [row if isinstance(row, Row) else Row(row) for row in rows]
    if fit_paths:
        from agentscan.cli.tablepaths import named_floors, paths_fitted

        if planned is None:
            columns = named_floors(columns, cells_of(table_rows))
    kept, widths = planned if planned is not None else layout(columns, table_rows, term)
    kept_columns = [columns[i] for i in kept]
    if fit_paths:
        widths = paths_fitted(columns, (kept, widths), term, cells_of(table_rows))[1]
    lines = [_line(kept_columns, [c.header for c in kept_columns], widths, term, "bold", header=True)]
    every = len(kept) == len(columns)
    for row in table_rows:
        if row.span is None:
            cells = row.cells if every else [row.cells[i] for i in kept]
            lines.append(_line(kept_columns, cells, widths, term, row.style))
            continue
        shown_columns, cells, shown_widths = _merged(row, columns, kept, widths)
        lines.append(_line(shown_columns, cells, shown_widths, term, row.style))
    return lines, hidden(columns, (kept, widths))


def cells_of(rows: Sequence[Row]) -> Callable[[int], list[str]]:
    """A column's cells in ``rows`` (not those a span lays text over)."""
    return lambda index: [row.cells[index] for row in rows if not spanned(row, index)]


def _merged(row: Row, columns: Sequence[Column], kept: Sequence[int],
            widths: Sequence[int]) -> tuple[list[Column], list[str], list[int]]:
    """The row's columns, cells and widths, a span's kept columns laid out as one."""
    shown_columns: list[Column] = []
    cells: list[str] = []
    shown_widths: list[int] = []
    in_span = False
    for index, width in zip(kept, widths):
        if not spanned(row, index):
            shown_columns.append(columns[index])
            cells.append(row.cells[index])
            shown_widths.append(width)
            in_span = False
        elif in_span:
            shown_widths[-1] += len(GAP) + width
        else:
            assert row.span is not None
            shown_columns.append(columns[row.span[1]])  # aligned as its last column
            cells.append(row.cells[row.span[0]])
            shown_widths.append(width)
            in_span = True
    return shown_columns, cells, shown_widths


def _line(columns: Sequence[Column], cells: Sequence[str], widths: Sequence[int], term: Terminal,
          style: str | None, *, header: bool = False) -> str:
    texts = []
    last = len(cells) - 1
    tty = term.tty
    for index, (column, cell, width) in enumerate(zip(columns, cells, widths)):
        plain_text = cell.isascii()
        size = len(cell) if plain_text else width_of(cell)
        if tty and size > width:
            cell = cut_left(cell, width) if column.keep_end else cut(cell, width)
            # ASCII but for its "…", which takes one column as they do.
            size = len(cell) if plain_text else width_of(cell)
        # No padding after the last cell: a pipe gets no trailing blanks.
        if index == last and not column.right:
            texts.append(cell)
            continue
        gap = " " * (width - size)
        texts.append(gap + cell if column.right else cell + gap)
    # A line wider than the terminal (its fixed columns alone are: ``overflows``) is printed
    # whole, for the terminal to fold: a cut id opens nothing, and ``$3.…`` reads as a price.
    plain = GAP.join(texts).rstrip()
    if not term.color:
        return plain
    styled = []
    for column, text in zip(columns, texts):
        # A row's own style (a total, a detail line) wins over the column's colour.
        chosen = style or (None if header else column.style)
        styled.append(term.style(text, chosen) if chosen and text.strip() else text)
    return GAP.join(styled).rstrip()


def print_table(
    columns: Sequence[Column],
    rows: Sequence[Sequence[str] | Row],
    *,
    term: Terminal | None = None,
    out: TextIO | None = None,
) -> list[str]:
    """Print the table; returns the headers of the columns left out to fit the terminal."""
    term = term or terminal()
    lines, hidden = render(columns, rows, term, fit_paths=True)
    if out is None:
        write_out("\n".join(lines) + "\n")
    else:
        out.write("\n".join(lines) + "\n")
    return hidden


def left_out_note(hidden: Sequence[str], columns: Sequence[Column], term: Terminal) -> None:
    """On a terminal, the columns ``print_table`` left out to fit (``hidden``), in the order
    they went: a reader must not take a missing column for an empty one."""
    if not hidden:
        return
    from agentscan.cli import render

    drops = {column.header: column.drop for column in columns}
    gone = sorted(hidden, key=lambda header: -drops[header])
    render.note(f"left out to fit {term.width} columns: {', '.join(gone)}; widen the terminal or use --json",
                tty_only=True)
