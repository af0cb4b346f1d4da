"""Plain aligned tables, one line per row, as ``gh``, ``git log`` and ``docker ps`` print them.

On a terminal the table is fitted to its width (``tablefit``): free-text columns (title,
cwd, model) are cut with ``…``, widest first, a title no narrower than it ``wants``
while a column that goes before it is left to drop, a path no narrower than its last
folder's name (``tablepaths``); ids, times and numbers are never cut.  When even the
narrowest free text does not fit, the columns marked droppable go, least useful first,
and the caller is told which; when none is left to go, a label (a row's name that is no
id: ``tokens --by model``'s models) is cut too, and when even that does not fit, the line
is printed whole, wider than the terminal, rather than a figure cut (``$3.…`` read as a
price).  Piped output is never fitted: every cell is printed whole.

This module prints; a table's parts (``Column``, ``Row``) are ``tableparts``', its natural
widths ``tablewidths``', its fitting (``layout``, ``fit``) ``tablefit``'.
"""

from __future__ import annotations

from typing import Callable, Sequence, TextIO

from agentscan.cli.tablefit import Layout, hidden, layout
from agentscan.cli.tableparts import GAP, Column, Row, spanned
from agentscan.cli.term import Terminal, cut, cut_left, terminal, width_of, write_out


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
        # ``…/demo/src/notes`` above ``…/inventory-api``, each cut at what fitted, read as paths
        # of different depths.  Off a terminal no path is cut (``paths_fitted``): nothing to even.
        if term.tty:
            table_rows, widths = _paths_cut_evenly(columns, table_rows, kept, list(widths))
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


def _paths_cut_evenly(columns: Sequence[Column], rows: list[Row], kept: Sequence[int],
                      widths: list[int]) -> tuple[list[Row], list[int]]:
    """``rows`` with the paths of their path columns cut at one depth (``tablepaths.even_cuts``:
    ``…/demo/src/notes`` above ``…/inventory-api`` read as paths of different depths), and
    ``widths`` with what those cuts leave over given to the title.  Only a table printed
    whole: one spliced from kept lines (``tablepatch``) cuts each line alone."""
    from agentscan.cli.tablepaths import even_cuts

    texts = [at for at, index in enumerate(kept)
             if columns[index].flex and not columns[index].keep_end and not columns[index].right]
    for at, (index, width) in enumerate(zip(kept, widths)):
        if columns[index].keep_end and columns[index].flex and not columns[index].label:
            even = even_cuts(cells_of(rows)(index), width)
            if not even:
                continue
            rows = [row._replace(cells=[*row.cells[:index], even[row.cells[index]], *row.cells[index + 1:]])
                    if not spanned(row, index) and row.cells[index] in even else row for row in rows]
            if texts:
                shown = max([width_of(columns[index].header), *map(width_of, cells_of(rows)(index))])
                widths[at], widths[texts[-1]] = shown, widths[texts[-1]] + width - shown
    return rows, widths


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
    planned: Layout | None = None,
) -> list[str]:
    """Print the table; returns the headers of the columns left out to fit the terminal.
    ``planned``: its layout, made already of ``columns`` whose path columns were floored
    (``tablepaths.named_floors``: ``list_text`` chooses between two tables so)."""
    term = term or terminal()
    lines, hidden = render(columns, rows, term, planned, fit_paths=True)
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

    render.note(f"{left_out_text(hidden, columns, term.width)}; widen the terminal or use --json", tty_only=True)


def left_out_text(hidden: Sequence[str], columns: Sequence[Column], width: int) -> str:
    """``left out to fit 80 columns: MODEL, CWD``: the ``hidden`` columns in the order they
    went (the one that goes first, the largest ``drop``, first), as every table says it; for
    ``render.note``, which keeps each name on one line."""
    from agentscan.cli.render import unbroken

    drops = {column.header: column.drop for column in columns}
    gone = sorted(hidden, key=lambda header: -(drops.get(header) or 0))
    # Each name whole on a wrapped note's line (``CACHE`` / ``WRITE`` read as two columns).
    return f"left out to fit {width} columns: {', '.join(map(unbroken, gone))}"
