"""Warnings as they were told, in order, each file's count past its listed ones in its place:
the one value that a result is kept with (a session's stored sums, Claude's resume state, a
remembered answer) and that a hold says later (``context.HeldWarnings``, ``scan.saidorder``).

Kept apart, as a list and each file's count beside it, seven copies of it said the counts
after every listed warning, or not at all (a hold's count past its 1,000 held): a replay
that says the entries in turn says each count where the sink began it, by construction.
"""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple, Union

#: a warning as ``ScanContext.warn`` takes it: path, message, line, passing
Said = tuple[str, str, "int | None", bool]


class Counted(NamedTuple):
    """``past`` warnings of ``path`` past its listed ones, at rising lines up to ``last``."""

    path: str
    past: int
    last: int
    #: (never: a count is of bad lines, said again alike; read as a ``Said``'s fourth)
    passing: bool = False


Told = Union[Said, Counted]


class Telling(list[Told]):
    """Warnings being told (``Said``s), each file's count past its listed ones grown in its
    place (``count_past``): where the first of them was counted, while none of that file's came
    since (one that did starts the file's next count after it).  Read it ``settled``: a count
    grows in place unseen (``count_past`` runs for each bad line past a file's listed ones, in
    each capture and hold open: a value made each time cost a sixth of a transcript of bad
    lines' read) and is written into its place when read."""

    def __init__(self, told: Iterable[Told] = ()) -> None:
        super().__init__(told)
        #: per file, its count growing in place: where, the count, its last line, and the two
        #: before its last growth (``None``: none yet; ``upto``)
        self._open: dict[str, list[Any]] = {}
        #: per file, its last count, open or since closed (``upto``)
        self._grew: dict[str, list[Any]] = {}
        #: an open count grew since it was last written into its place
        self._moved = False

    def tell(self, said: Said) -> None:
        run = self._open.pop(said[0], None)
        if run is not None:  # (its file's count closed: written into its place as it stands)
            self[run[0]] = Counted(said[0], run[1], run[2])
        self.append(said)

    def count_past(self, path: str, count: int, last: int) -> None:
        run = self._open.get(path)
        if run is None:
            self._open[path] = self._grew[path] = [len(self), count, last, None, None]
            self.append(Counted(path, count, last))
        else:
            run[3], run[4] = run[1], run[2]
            run[1] += count
            run[2] = last
            self._moved = True

    def settled(self) -> Telling:
        """This list, each count written into its place as it stands."""
        if self._moved:
            for path, run in self._open.items():
                self[run[0]] = Counted(path, run[1], run[2])
            self._moved = False
        return self

    def upto(self, lines: int) -> tuple[Told, ...]:
        """``frozen`` of a read whose lines after ``lines`` are read again (a resume state's: a
        file's unfinished last line): a count its last growth took past ``lines`` in two, in its
        place, the count up to it (with the last line it counted then) and that growth (its last
        past ``lines``: the tail's, said again only while the file stands as it is).  Kept as one,
        a grown file's count said that line twice, and a line since written whole and good too."""
        told = list(self.settled())
        for at, past, last, before, before_last in sorted(self._grew.values(), key=lambda run: -run[0]):
            grown = told[at]
            if before is not None and isinstance(grown, Counted) and last > lines >= before_last:
                told[at:at + 1] = [Counted(grown.path, before, before_last), Counted(grown.path, past - before, last)]
        return tuple(told)

    def frozen(self) -> tuple[Told, ...]:
        return tuple(self.settled())


def counts_any(told: Iterable[Told]) -> bool:
    return any(type(item) is Counted for item in told)


def told_json(told: Iterable[Told]) -> list:
    """``told`` as JSON: a warning as ``warningjson`` writes it, a count as ``[path, count, last]``
    (a result is kept only when no warning is ``passing``)."""
    from agentscan.warningjson import warning_json

    return [list(item[:3]) if type(item) is Counted else warning_json(*item[:3]) for item in told]


def told_from_json(items: object) -> list[Told]:
    """``told_json``'s entries (``ValueError``: not such)."""
    if type(items) is not list:
        raise ValueError("bad warnings")
    told: list[Told] = []
    for item in items:
        if type(item) is list:
            if len(item) != 3 or type(item[0]) is not str or type(item[1]) is not int or type(item[2]) is not int:
                raise ValueError("bad count")
            told.append(Counted(*item))
            continue
        told.append((*warning_of(item), False))
    return told


def warning_of(item: Any) -> tuple[str, str, int | None]:
    """A warning as ``warningjson`` wrote it (``ValueError``: not one)."""
    if not isinstance(item, dict):
        raise ValueError("bad warning")
    path, message, line = item["path"], item["message"], item.get("line")
    if not isinstance(path, str) or not isinstance(message, str) or not (line is None or type(line) is int):
        raise ValueError("bad warning")
    return path, message, line
