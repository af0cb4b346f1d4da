"""Path columns fitted with a table's title (``table.render``'s ``fit_paths``): a project's
last folder name is shown whole where the title can lend it the columns.

``…/weather-app``, not ``…eather-app``, which reads as another project.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from agentscan.cli.term import Terminal, cut_left, width_of

if TYPE_CHECKING:
    from agentscan.cli.table import Column, Layout


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
    anyway): a path column is widened by what its last folder's name needs
    (``…/weather-app``, not ``…eather-app``, which reads as another project) while the title
    keeps its ``lend_floor``; and one that its cuts left wider than any path it shows (a cut
    begins at a separator) gives those columns back to the title rather than to blanks."""
    texts = [position for position, index in enumerate(kept)
             if columns[index].flex and not columns[index].keep_end and not columns[index].right]
    if not texts:
        return widths
    last = texts[-1]  # the title: the columns it gives or takes are cut from its end
    floor = columns[kept[last]].lend_floor or columns[kept[last]].min_width
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
