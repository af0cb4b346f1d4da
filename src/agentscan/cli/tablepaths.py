"""Path columns fitted to their paths: a project's last folder name is shown whole,
``…/weather-app``, not ``…eather-app``, which reads as another project.  A path column is
no narrower than its names (``named_floors``: else it is left out), and a name longer than
``NAMED_CAP`` takes from the table's title what it needs (``table.render``'s ``fit_paths``);
so do two paths that would read alike (``…/workspace`` for both ``…/codex/workspace`` and
``…/claude/workspace``: ``apart_width``), when the title has that to give.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from agentscan.cli.term import Terminal, cut_left, cut_left_mark, width_of

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
    ``NAMED_CAP`` needs (``named_floors`` saw to the others), and then by what tells every
    two of its paths apart (``apart_width``: all of it or none), while the title keeps its
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
        # Then as much more of their ends as tells every two paths apart, when the title
        # has it to give; else they stay as they were (a few more characters that still
        # leave two alike would only take them from the title).
        apart = apart_width(cells, max(width, named), limit=width + room)
        wider = apart if apart <= width + room else named
        if wider > width:
            widths[position], widths[last] = wider, widths[last] - (wider - width)
            width = wider
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
    return min(width_of(path), width_of(name) + len(cut_left_mark()) + 1)


def apart_width(cells: Iterable[str], width: int, limit: int | None = None) -> int:
    """The narrowest width, from ``width`` up, at which no cell of ``cells`` cut from its
    start (``cut_left``) could be another's: ``…/codex/workspace`` and ``…/claude/workspace``,
    not ``…/workspace`` for either, which reads as one project, nor for one of them (the
    other's too, for all it says).  At worst the width that shows a cell whole; past
    ``limit``, ``limit + 1`` (the room there is: looked no further, as a table of thousands
    of long names would cost seconds)."""
    # Widest first: a cell is cut, and a cut could be it, only while it is wider than the column.
    cut = sorted(((width_of(cell), cell) for cell in set(cells)), reverse=True)
    cut = cut[:sum(1 for wide, _ in cut if wide > width)]
    # How many of those end in each end from a separator (what a cut shows after "…").
    ends = Counter(cell[at:] for _, cell in cut for at in _separators(cell) if at)
    unsettled = [cell for _, cell in cut]
    while True:
        # A cell told apart stays apart wider (a wider cut shows more of its end, and fewer
        # cells are cut), so only those still alike are cut again.
        inside = _InsideCuts(cut, width)
        unsettled = [cell for cell in unsettled if _alike(cell, width, ends, inside)]
        if not unsettled:
            return width
        if limit is not None and width >= limit:
            return limit + 1
        width += 1
        while cut and cut[-1][0] <= width:  # shown whole from now on
            ends.subtract(cut[-1][1][at:] for at in _separators(cut[-1][1]) if at)
            cut.pop()


class _InsideCuts:
    """The ends the ``cut`` cells show at ``width`` when a name too long for the column is
    cut inside it, counted once for the width when first asked (each cell against every
    other would cost seconds on a table of thousands of long names)."""

    def __init__(self, cut: Sequence[tuple[int, str]], width: int) -> None:
        self._cut, self._width = cut, width
        self._ends: Counter[str] | None = None

    def alike(self, cell: str, end: str) -> bool:
        if not end.isascii():  # a wide character's cut may show one character fewer: told one by one
            return any(other != cell and other.endswith(end) for _, other in self._cut)
        if self._ends is None:
            mark = len(cut_left_mark())
            self._ends = Counter(cut_left(other, self._width)[mark:] for _, other in self._cut)
        # At one width every ASCII end is as long: another's ends so only where it is the same.
        return self._ends[end] > 1


def _alike(cell: str, width: int, ends: Counter[str], inside: _InsideCuts) -> bool:
    """Whether ``cell`` cut to ``width`` could be another of the cells cut there (``ends``:
    how many of them end in each end from a separator; ``inside``: the names cut inside)."""
    shown = cut_left(cell, width)
    if shown == cell:
        return False
    end = shown[len(cut_left_mark()):]
    if end[:1] in _SEPARATORS:
        return ends[end] > 1  # not its own
    return inside.alike(cell, end)


_SEPARATORS = ("/", "\\")


def _separators(cell: str) -> list[int]:
    """Where ``cell``'s separators are: a cut's end begins at one (``cut_left``)."""
    return [at for at, ch in enumerate(cell) if ch in _SEPARATORS]


def even_cuts(cells: Iterable[str], width: int) -> dict[str, str]:
    """The paths of ``cells`` wider than ``width``, each as shown cut to it at one depth: as
    many of its last folders as every cut path fits (``…/repo/claude-code`` beside
    ``…/VibeCodingTracker`` read as paths of different depths, ``…/wei/repo/claude-code``
    and ``…/VibeCodingTracker`` did), more where that many would read as another path's
    (``…/gai/claude-code`` and ``…/repo/claude-code``, not ``…/claude-code`` twice).  A
    path whose last name alone does not fit is cut inside it (``cut_left``)."""
    unique = set(cells)
    cut = [cell for cell in unique if width_of(cell) > width]
    if not cut:
        return {}
    mark = cut_left_mark()
    # (each path whole is among its ends: two paths that differ only in their first folder are
    # told apart by it, never by a folder they share)
    ends = Counter(cell[at:] for cell in unique for at in _separators(cell) if at)
    ends.update(unique)
    depths = {cell: [*(cell[at:] for at in reversed(_separators(cell)) if at and at + 1 < len(cell)), cell]
              for cell in cut}
    fits = {cell: sum(1 for end in depths[cell] if width_of(mark + end) <= width) for cell in cut}
    common = min((fit for fit in fits.values() if fit), default=0)
    shown = {}
    for cell in cut:
        if not fits[cell]:
            shown[cell] = cut_left(cell, width)
            continue
        apart = next((depth for depth, end in enumerate(depths[cell], 1) if ends[end] == 1), len(depths[cell]))
        depth = min(fits[cell], max(common, apart))
        shown[cell] = mark + depths[cell][depth - 1] if depth >= apart else _elided(depths[cell], apart, width, mark) \
            or mark + depths[cell][depth - 1]
    return shown


def _elided(depths: list[str], apart: int, width: int, mark: str) -> str | None:
    """The folder that tells a path apart (``depths[apart - 1]``'s first) and as many of its
    last names as fit beside it, the folders between elided (``…/client-alpha/…/billing-service``),
    else the folder alone: ``…/billing-service`` twice read as one path; ``None``: none fits so."""
    folder = depths[apart - 1][:len(depths[apart - 1]) - len(depths[apart - 2])] if apart > 1 else ""
    # (a path's first folder begins it: no mark before it, ``/alpha/…/billing-service``)
    before = "" if apart == len(depths) else mark
    for tail in [*reversed(depths[:apart - 2]), ""]:  # (at last the folder alone: ``…/client-alpha/…``)
        if width_of(f"{before}{folder}/{mark}{tail}") <= width:
            return f"{before}{folder}/{mark}{tail}"
    return None
