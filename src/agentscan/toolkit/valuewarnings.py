"""One warning per file for values a reader had to take as something else.

A usage value that is no token count (``-5``, ``1e30``, ``"100"``, ``true``, ``3.7``) is
counted as 0 (or cut to a whole number), and a time that parses but lies outside the
range agentscan takes (``timeutil``: the year 1, 9999, an epoch far in the future) is
unknown.  Both change what a total or a window says, so a user who trusts the totals is
told, but once a file and kind: a file of 10,000 bad lines says its first one, its line
and how many there were, not 10,000 warnings (which the warning sink would cut to 20
anyway, dropping the count).

The validators that meet such a value (``bounds``' callers in the providers,
``timeutil``) know neither the file nor the line; the readers do.  So each file reader
(``jsonl.iter_json_lines`` and ``iter_json_records``, ``linescan.matching_records``)
opens a ``FileTally`` while it reads, the validators ``note_usage`` or ``note_time`` into
the innermost one open, and the reader says what it holds when it has read the file to
its end.  A read stopped early (a head read within a budget) says nothing: its count
would be another than the whole read's, and the pass that reads the whole file says it.
Nothing is kept here between files, so a warning is part of the pass that read the
file: cached with its result (``ScanContext.warnings.capture``) and said again from it.

A value met with no reader open (a database row, a whole JSON document) is not told.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Protocol

if TYPE_CHECKING:
    from agentscan.context import ScanContext

#: the kinds of value a tally counts apart (one warning each a file)
USAGE, TIME = "usage", "time"
#: what each kind's warning says before its details (``doctor`` counts warnings by it)
USAGE_HEAD = "usage value is not a token count"
TIME_HEAD = "time outside the supported range (1970-01-02 to 9997), taken as unknown"


class _Lines(Protocol):
    def line_number(self, position: int) -> int: ...


class FileTally:
    """What one read of one file met.  The reader keeps ``line`` (the number of the line
    just handed out) or ``block`` and ``start`` (a ``linescan`` block and where in it that
    line starts, numbered only when a value is noted) up to date."""

    __slots__ = ("path", "ctx", "line", "block", "start", "found", "_last")

    def __init__(self, path: object, ctx: ScanContext) -> None:
        self.path = path
        self.ctx = ctx
        self.line: int | None = None
        self.block: _Lines | None = None
        self.start = 0
        #: kind -> [first message, its line, how many]
        self.found: dict[str, list] = {}
        #: kind -> where and what was noted last: one value read twice is one value
        self._last: dict[str, tuple[object, str]] = {}

    def note(self, kind: str, message: str) -> None:
        # ``show`` reads a record's time in the row's pass and again in its observer.
        where = (id(self.block), self.start) if self.block is not None else self.line
        if self._last.get(kind) == (where, message):
            return
        self._last[kind] = (where, message)
        entry = self.found.get(kind)
        if entry is not None:
            entry[2] += 1
            return
        line = self.block.line_number(self.start) if self.block is not None else self.line
        self.found[kind] = [message, line, 1]

    def say(self) -> None:
        for message, line, count in self.found.values():
            if count > 1:
                message += f" (the first of {count:,} such values in this file)"
            self.ctx.warn(self.path, message, line)


#: the tallies of the reads under way, innermost last (a pass may read a side file
#: while it reads a transcript)
_open: list[FileTally] = []


def open_tally(path: object, ctx: ScanContext) -> FileTally:
    tally = FileTally(path, ctx)
    _open.append(tally)
    return tally


@contextmanager
def tallied(path: object, ctx: ScanContext) -> Iterator[FileTally]:
    """A tally open while a reader reads ``path``: said when the block ends normally (the
    read reached the file's end); a read stopped early (a generator closed, an error)
    says nothing."""
    tally, finished = open_tally(path, ctx), False
    try:
        yield tally
        finished = True
    finally:
        close_tally(tally, finished)


def close_tally(tally: FileTally, finished: bool) -> None:
    """The read of ``tally``'s file ended; ``finished``: it read to the end, so say what it met."""
    for index in range(len(_open) - 1, -1, -1):
        if _open[index] is tally:
            del _open[index]
            break
    if finished and tally.found:
        tally.say()


def note_usage(field: str, value: object, counted: int) -> None:
    """A usage ``field`` held ``value``, which is no token count, and ``counted`` was taken."""
    if _open:
        _open[-1].note(USAGE, f"{USAGE_HEAD}: {field} is {shown(value)}, counted as {counted}")


def note_time(value: object) -> None:
    """A time that parses but lies outside the range agentscan takes: it is unknown."""
    if _open:
        _open[-1].note(TIME, f"{TIME_HEAD}: {shown(value)}")


def counted_field(values: Mapping[str, Any], field: str, count: Callable[[object], int], prefix: str = "") -> int:
    """``count(values[field])``, told once a file (``note_usage``, as ``prefix + field``) when
    the value is no token count; no such field counts 0, as ever, and is not told."""
    value = values.get(field)
    counted = count(value)
    if value is not None and odd_count(value, counted):
        note_usage(prefix + field, value, counted)
    return counted


def odd_count(value: object, counted: int) -> bool:
    """Whether ``value`` (not ``None``: no such field) is no token count as recorded: not a
    plain ``int``, or not the one counted (negative, or past ``bounds.MAX_TOKEN_COUNT``)."""
    return value.__class__ is not int or value != counted


def shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
