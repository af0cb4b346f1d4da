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

A file read in parts still says one warning, the one a read of it whole says: a read that
resumes after a kept state (``claude/incremental``, ``claude/rowresume``) goes on from the
counts the state kept (``ValueCounts``, in the reader's progress: ``jsonl.carried_values``),
and the halves of a huge file read on two cores are each read without a word (``tell=False``),
their counts joined (the first half's first value stands, the counts add) and said once
(``say_joined``).

Two sources that are no lines open a tally of their own: a Gemini legacy whole-file chat
(``gemini/chatlog``: one warning a file, at the line its message starts on, found only
when a value is noted) and a Cursor composer's bubbles (``cursor/bubblenotes``: one warning
a composer, naming it and the bubble, since one database holds every session).  A value
met with no tally open (another database's rows, another whole JSON document) is not told.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

if TYPE_CHECKING:
    from agentscan.context import ScanContext

#: the kinds of value a tally counts apart (one warning each a file).  A call on Anthropic's
#: Priority Tier is a kind of its own (``PRIORITY``): its warning is said in one line a run
#: (``priority_tier``), and a batch or unknown tier met later in the same file is said too,
#: as any warning is (in one kind, the first tier met chose the one warning said).
USAGE, TIME, TIER, PRIORITY = "usage", "time", "tier", "priority"
#: what each kind's warning says before its details (``doctor`` counts warnings by it)
USAGE_HEAD = "usage value is not a token count"
TIME_HEAD = "time outside the supported range (1970-01-02 to 9997), taken as unknown"
#: a call a provider recorded on a service tier whose rates no price list has, priced at the
#: standard ones (Claude's ``usage.service_tier``: ``providers.claude.usage``)
TIER_HEAD = "call on a service tier other than standard, priced at the standard rates"
#: why a Claude call on Anthropic's Priority Tier is priced at the standard rates (its
#: ``tier_warning``'s reason, ``providers.claude.usage``)
PRIORITY_REASON = ("Anthropic's Priority Tier draws on an organisation's committed capacity, whose price"
                   " is its contract's: no price list has it")
#: what ``doctor`` counts those warnings as (one kind, as a terminal counts them in one line)
PRIORITY_KIND = "call on Anthropic's Priority Tier, priced at the standard rates"


class ValueCounts:
    """What a read met, by kind: ``[first message, its line, how many]``.  ``complete``: on
    lines that ended; ``tail``: on the unfinished last line (still being written), which a
    resumed read reads again, so it is never carried on (``state``).  Plain dicts and lists:
    kept in a resume state as JSON, handed back by a helper process."""

    __slots__ = ("complete", "tail")

    def __init__(self, complete: dict[str, list] | None = None, tail: dict[str, list] | None = None) -> None:
        self.complete: dict[str, list] = complete if complete is not None else {}
        self.tail: dict[str, list] = tail if tail is not None else {}

    def __bool__(self) -> bool:
        return bool(self.complete or self.tail)

    def state(self) -> dict[str, list]:
        """The counts a read that goes on from the last complete line starts from (a copy: a
        read stopped early leaves these as they were), as JSON: a resume state keeps it."""
        return _copied(self.complete)

    def then(self, later: ValueCounts, lines_before: int = 0) -> ValueCounts:
        """These counts (of the part read first, which ends at a line's end) and ``later``'s,
        whose lines are numbered from ``lines_before`` lines on: the first value met stands,
        the counts add."""
        joined = ValueCounts(self.state())
        _add(joined.complete, later.complete, lines_before)
        _add(joined.tail, later.tail, lines_before)
        return joined

    def whole(self) -> dict[str, list]:
        """What the read met, its unfinished last line's too."""
        found = _copied(self.complete)
        _add(found, self.tail, 0)
        return found

    def say(self, ctx: ScanContext, path: object, *, unit: str = "file",
            place: Callable[[int | None], str] | None = None) -> None:
        """One warning a kind: its first value, at its line, and how many the ``unit`` held.
        ``place``: the words that say where a value was met, from its ``line`` (which then
        stands for something else: a Cursor composer's bubble), the warning given no line."""
        for message, line, count in self.whole().values():
            notes = [] if place is None else [place(line)]
            if count > 1:
                notes.append(f"the first of {count:,} such values in this {unit}")
            if notes:
                message += f" ({'; '.join(notes)})"
            ctx.warn(path, message, line if place is None else None)

    def to_parts(self) -> list:
        """Both dicts, for a helper process's answer (``from_parts``)."""
        return [self.state(), _copied(self.tail)]

    @classmethod
    def from_parts(cls, parts: object) -> ValueCounts:
        """``to_parts`` read back; raises ``ValueError`` on another shape."""
        if not (isinstance(parts, (list, tuple)) and len(parts) == 2):
            raise ValueError("value counts are not two parts")
        return cls(cls._checked(parts[0]), cls._checked(parts[1]))

    @classmethod
    def from_state(cls, doc: object) -> ValueCounts:
        """``state`` read back; raises ``ValueError`` on another shape."""
        return cls(cls._checked(doc))

    @staticmethod
    def _checked(doc: object) -> dict[str, list]:
        if not isinstance(doc, dict):
            raise ValueError("value counts are not an object")
        for kind, entry in doc.items():
            if not (isinstance(kind, str) and isinstance(entry, list) and len(entry) == 3
                    and isinstance(entry[0], str) and (entry[1] is None or type(entry[1]) is int)
                    and type(entry[2]) is int and entry[2] > 0):
                raise ValueError("bad value count")
        return _copied(doc)


def say_joined(ctx: ScanContext, path: object, first: ValueCounts, later: ValueCounts, lines_before: int) -> ValueCounts:
    """The counts of a file read in two parts, neither of which said its own (``tell=False``):
    ``first``'s (the part that ends at a line's end) then ``later``'s, whose lines are numbered
    from ``lines_before`` lines on, said as one read's (``claude/halfjoin``, ``claude/usagehalves``)."""
    counts = first.then(later, lines_before)
    counts.say(ctx, path)
    return counts


def _copied(counts: dict[str, list]) -> dict[str, list]:
    """``counts`` with entries of their own (a tally adds to its entries in place)."""
    return {kind: list(entry) for kind, entry in counts.items()}


def _add(into: dict[str, list], later: dict[str, list], lines_before: int) -> None:
    for kind, (message, line, count) in later.items():
        entry = into.get(kind)
        if entry is not None:
            entry[2] += count
        else:
            into[kind] = [message, None if line is None else line + lines_before, count]


class FileTally:
    """What one read of one file met (``counts``: from ``carried``'s, when it goes on from
    an earlier read's).  The reader keeps up to date where the record just handed out is:
    ``line``, its line's number, or ``position``, a place ``locate`` turns into that number
    only when a value is noted (a reader that does not count lines as it goes:
    ``linescan``'s offset in its block, a legacy Gemini chat's message index), and sets
    ``unfinished`` while it hands out the last line, which has no newline yet
    (``end_unfinished``: it had one after all)."""

    __slots__ = ("path", "ctx", "line", "locate", "position", "counts", "unfinished", "tell", "_last")

    def __init__(self, path: object, ctx: ScanContext, carried: ValueCounts | None = None, *,
                 tell: bool = True) -> None:
        self.path = path
        self.ctx = ctx
        self.line: int | None = None
        #: ``position``'s line number (set: it stands for ``line``)
        self.locate: Callable[[int], int] | None = None
        self.position = 0
        self.counts = ValueCounts(carried.state()) if carried is not None else ValueCounts()
        self.unfinished = False
        #: say the counts when the read reaches the file's end (else its caller joins and says them)
        self.tell = tell
        #: kind -> where and what was noted last: one value read twice is one value
        self._last: dict[str, tuple[object, str]] = {}

    def note(self, kind: str, message: str) -> None:
        # ``show`` reads a record's time in the row's pass and again in its observer.
        # (The locator itself, not its ``id``: a block's is reused by a later block's.)
        where = (self.locate, self.position) if self.locate is not None else self.line
        if self._last.get(kind) == (where, message):
            return
        self._last[kind] = (where, message)
        found = self.counts.tail if self.unfinished else self.counts.complete
        entry = found.get(kind)
        if entry is not None:
            entry[2] += 1
            return
        line = self.locate(self.position) if self.locate is not None else self.line
        found[kind] = [message, line, 1]

    def end_unfinished(self) -> None:
        """The line taken for the last one, without a newline, was followed by more (the file
        grew as it was read): what it held was on a complete line."""
        self.unfinished = False
        counts = self.counts
        if counts.tail:
            _add(counts.complete, counts.tail, 0)
            counts.tail = {}

    def say(self) -> None:
        self.counts.say(self.ctx, self.path)


#: the tallies of the reads under way, innermost last (a pass may read a side file
#: while it reads a transcript)
_open: list[FileTally] = []


def open_tally(path: object, ctx: ScanContext, carried: ValueCounts | None = None, *,
               tell: bool = True) -> FileTally:
    tally = FileTally(path, ctx, carried, tell=tell)
    _open.append(tally)
    return tally


@contextmanager
def tallied(path: object, ctx: ScanContext, carried: ValueCounts | None = None, *,
            tell: bool = True) -> Iterator[FileTally]:
    """A tally open while a reader reads ``path`` (going on from ``carried``, an earlier
    read's up to where this one starts): said when the block ends normally (the read
    reached the file's end) and ``tell``; a read stopped early (a generator closed, an
    error) says nothing."""
    tally, finished = open_tally(path, ctx, carried, tell=tell), False
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
    if finished and tally.tell and tally.counts:
        tally.say()


def told_by_tally(message: str) -> bool:
    """Whether a warning is one a tally says (a kept read's warnings less these are said
    again as they were; these are said from the counts it kept, gone on with)."""
    return message.startswith((USAGE_HEAD, TIME_HEAD, TIER_HEAD))


def note_usage(field: str, value: object, counted: int) -> None:
    """A usage ``field`` held ``value``, which is no token count, and ``counted`` was taken."""
    if _open:
        _open[-1].note(USAGE, f"{USAGE_HEAD}: {field} is {shown(value)}, counted as {counted}")


def note_unread(field: str, value: object, where: str) -> None:
    """A usage ``field`` of the counters ``where`` (``last_token_usage``) held ``value``, no number
    at all, so those counters are not read (Codex's own; not counted as zeros): said in JSON's
    spelling (``null``, ``true``, ``"x"``), as the file holds it."""
    if _open:
        import orjson  # (here: ``timeutil`` imports this module, and a warm ``list`` no orjson)

        try:
            text = orjson.dumps(value).decode()
        except TypeError:  # (nested past orjson's depth: a hostile file; said by its kind)
            from agentscan.toolkit.jsonkinds import json_kind

            text = json_kind(value)
        _open[-1].note(USAGE, f"{USAGE_HEAD}: {field} is {text if len(text) <= 40 else text[:37] + '...'}:"
                              f" this {where} is not read")


def tier_warning(value: str, why: str) -> str:
    """The warning for a call on the service tier ``value`` (not the standard one), priced at
    the standard rates for the reason ``why`` (``note_tier`` tells it)."""
    return f"{TIER_HEAD}: service_tier is {shown(value)}; {why}"


def priority_tier(message: str) -> bool:
    """Whether ``message`` says a file's calls ran on Anthropic's Priority Tier (``PRIORITY``):
    an organisation on it has it on every call of every file, every run, so a terminal counts
    these warnings in one line (``cli.render.warn_summary``, ``doctor`` as one kind);
    ``--verbose`` and ``--json`` list each file, and ``--strict`` fails on them as on any."""
    return message.startswith(TIER_HEAD) and PRIORITY_REASON in message


def note_tier(message: str, kind: str = TIER) -> None:
    """A call ran on a service tier other than the standard one: ``message``, made by
    ``tier_warning`` once per tier (a file of priority calls has one on every call); ``kind``:
    ``PRIORITY`` for Anthropic's Priority Tier, else ``TIER``."""
    if _open:
        _open[-1].note(kind, message)


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
