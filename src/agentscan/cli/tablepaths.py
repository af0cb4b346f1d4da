"""Path columns fitted to their paths: a project's last folder name is shown whole,
``…/weather-app``, not ``…eather-app``, which reads as another project.  A path column is
no narrower than its names (``named_floors``: else it is left out), and a name longer than
``NAMED_CAP`` takes from the table's title what it needs (``table.render``'s ``fit_paths``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from agentscan.cli.term import Terminal, cut_left, width_of

if TYPE_CHECKING:
    from agentscan.cli.tablefit import Layout
    from agentscan.cli.tableparts import Column

#: the widest a path column is kept for its names (``named_floors``): a name longer than
#: this less ``…/`` is cut from its start, rather than a title or a figure left out for it
NAMED_CAP = 20


def named_floors(columns: Sequence[Column], cells: Callable[[int], Iterable[str]]) -> list[Column]:
    """``columns`` with each path column's ``min_width`` raised to what shows the last folder's
    name of every path in its ``cells`` (by index) whole, ``…/billing-service``, up to
    ``NAMED_CAP``: a terminal too narrow for that leaves the column out, as it leaves out
    any column it cannot fit, rather than cut a name (``…illing-service`` reads as another
    project).  ``list``'s CWD and ``tokens``' are fitted alike (a patched table,
    ``cli.tablepatch``, tells its paths without its rows)."""
    raised = list(columns)
    for index, column in enumerate(columns):
        if column.keep_end and column.flex:
            needs = max(map(_named_width, set(cells(index))), default=0)
            raised[index] = column._replace(min_width=max(column.min_width, min(needs, NAMED_CAP)))
    return raised


def paths_fitted(columns: Sequence[Column], planned: Layout, term: Terminal,
                 cells: Callable[[int], Sequence[str]]) -> Layout:
    """``planned`` with its path columns fitted to their ``cells`` by index (``render``'s
    ``fit_paths``; a patched table, ``cli.tablepatch``, tells them without its rows: which
    paths there are is what matters).  Off a terminal nothing is cut: nothing to fit."""
    if not term.tty:
        return planned
    return planned[0], _path_slack_given_on(columns, cells, planned[0], list(planned[1]))


def _path_slack_given_on(columns: Sequence[Column], cells_of: Callable[[int], Sequence[str]], kept: Sequence[int],
                         widths: list[int]) -> list[int]:
    """Paths cut from their start, fitted with the table's free text (its TITLE, cut to fit
    anyway): a path column is widened by what a last folder's name longer than
    ``NAMED_CAP`` needs (``named_floors`` saw to the others) while the title keeps its
    least width (and what it ``wants``); and one that its cuts left wider than any path it
    shows (a cut begins at a separator) gives those columns back to the title rather than
    to blanks."""
    texts = [position for position, index in enumerate(kept)
             if columns[index].flex and not columns[index].keep_end and not columns[index].right]
    if not texts:
        return widths
    last = texts[-1]  # the title: the columns it gives or takes are cut from its end
    title = columns[kept[last]]
    floor = max(title.min_width, title.wants)
    for position, index in enumerate(kept):
        column, width = columns[index], widths[position]
        if not column.keep_end:
            continue
        cells = cells_of(index)
        room = widths[last] - floor
        # Only a cell wider than the column can be cut inside its name; the widest name
        # that fits the room is shown whole (a longer one is cut, as it would have been).
        needs = [_named_width(cell) for cell in cells if len(cell) > width or not cell.isascii()]
        named = max((need for need in needs if need <= width + room), default=0)
        if named > width:
            widths[position], widths[last] = named, widths[last] - (named - width)
            width = named
        shown = width_of(column.header)
        for cell in cells:
            shown = max(shown, width_of(cut_left(cell, width)) if width_of(cell) > width else width_of(cell))
            if shown >= width:
                break
        if shown < width:
            widths[position], widths[last] = shown, widths[last] + width - shown
    return widths


def _named_width(path: str) -> int:
    """The columns ``path`` needs to show its last folder's name whole: ``…/weather-app``."""
    name = path.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    return min(width_of(path), width_of(name) + 2)
