"""Where a scan's warnings go (``ScanContext.warnings``): bounded per file, deduplicated,
and captured with a result computed meanwhile (``WarningSink.capture``), to be kept with it
and said again when it is reused.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterable, Iterator, NamedTuple, TypeVar

from agentscan.fsview import legible
from agentscan.toldwarnings import Counted, Telling, Told
from agentscan.toolkit.words import agreeing, plural
from agentscan.warningjson import warning_json
from agentscan.warningwords import REWORDED_HEADS, SKIPPED_SESSION

# The model (its dataclasses) is imported where a warning is made: a remembered answer
# (``scan.answers``) is printed without it (``SinkWarning``).
if TYPE_CHECKING:
    from agentscan.model import ScanWarning

# After this many warnings for one file, further ones are counted, not kept:
# a 2 GB file of garbage must not become 2 GB of warnings.
PER_FILE_WARNINGS = 20
#: warnings a result is kept with (``WarningSink.capture``)
CAPTURE_LIMIT = PER_FILE_WARNINGS * 5
#: what ``WarningSink.add_legible`` did with a warning: a repeat dropped, listed, or counted past
#: the file's listed ones
DROPPED, LISTED, COUNTED = 0, 1, 2
_Sink = TypeVar("_Sink", bound="WarningSink")


def counted_past(warnings: Iterable[ScanWarning | SinkWarning]) -> tuple[int, int]:
    """Of ``warnings`` as listed, how many are a file's count past its listed ones, and how many
    warnings those count (each one's ``past``, as the sink listed it: not its words read back):
    ``--strict`` says the warnings a run met, 80,400 of 8 files of 10,050 bad lines, not the 168
    entries listing them."""
    entries = counted = 0
    for warning in warnings:
        if past := warning.past:
            entries += 1
            counted += past
    return entries, counted


def counts_on(upto: dict[str, int], path: str, last: int) -> bool:
    """The sink's rule past a file's listed warnings, one place (the sink's, a capture's): a line,
    or a run of them, ending at or before the last one counted (``upto``) is the file read again
    (its discovery, then its row), not counted; else it is, and ``upto`` goes on to ``last``."""
    if last <= upto.get(path, 0):
        return False
    upto[path] = last
    return True


class Captured(list["ScanWarning"]):
    """Warnings raised while a result was computed, in the order they came (repeats
    too: said again into a new sink, they fold exactly as they did the first time)."""

    def __init__(self, limit: int, whole_files: bool = False) -> None:
        super().__init__()
        self.limit = limit
        #: a file's first ``PER_FILE_WARNINGS`` are kept past ``limit`` (``WarningSink.capture``)
        self.whole_files = whole_files
        #: more came than ``limit`` and are not counted (``count_more``): a result stored with
        #: these would lose some (``overflowed``: or with these alone)
        self.lost = False
        #: one says something could not be read *this time* (``ScanContext.warn(passing=True)``):
        #: a result computed meanwhile is not kept for later runs, which would repeat the failure
        self.passing = False
        #: the paths those passing warnings named (an export keeps what it had of their sessions)
        self.passing_paths: set[str] = set()
        #: what was taken, in order, each file's count past ``limit`` in its place (``told``)
        self.telling = Telling()
        #: the files past ``limit`` some of whose warnings the sink counts (in ``telling``)
        self._counting: set[str] = set()
        #: per file, how many of those kept name it, and the last line of those the sink counts
        self._kept: dict[str, int] = {}
        self._upto: dict[str, int] = {}

    def take(self, warning: ScanWarning | None, passing: bool = False, path: str | None = None,
             line: int | None = None) -> None:
        """``warning`` is ``None`` only when no capture open has room for it (not made);
        ``path``: what it names, kept when it is ``passing``."""
        if passing:
            self.passing = True
            if path is not None:
                self.passing_paths.add(path)
        if path in self._counting and line is not None and not passing:
            # (a file's count begun, its lines after it are counted on: said again after the
            # kept, before the count, they would have been the file read again, not counted)
            self.count_more(path, 1, line)
        elif warning is not None and (len(self) < self.limit or self.wants(path, line)):
            self.append(warning)
            self.telling.tell((warning.path, warning.message, warning.line, passing))
            if path is not None:
                kept = self._kept[path] = self._kept.get(path, 0) + 1
                if kept > PER_FILE_WARNINGS and line is not None and line > self._upto.get(path, 0):
                    self._upto[path] = line  # (the sink counts on from it: ``count_more``)
        elif not passing and path is not None and line is not None:
            self.count_more(path, 1, line)
        else:
            self.lost = True

    def take_told(self, told: Iterable[Told]) -> None:
        """Take ``told`` (``toldwarnings``) in turn, as said again into the sink (``say_again``)
        they would come: a warning by ``take``, each file's count past those kept by ``count_more``."""
        from agentscan.model import ScanWarning

        for item in told:
            if isinstance(item, Counted):
                self.count_more(item.path, item.past, item.last)
            else:
                path, message, line, passing = item
                self.take(ScanWarning(path, message, line), passing, path, line)

    def wants(self, path: str | None, line: int | None = 0) -> bool:
        """Past ``limit``, a warning of ``path`` is kept still (``whole_files``: of its first listed);
        and one of no ``line`` past its listed ones, which the sink counts by its words, not its line
        (a file cut at ``MAX_FILE_LINES``): no count (``Counted``) holds it, and lost, the sums kept
        with this capture said one fewer than ``--no-cache``.  (A few a file: the sink keeps one of
        each words, and a capture is bounded by the files read inside it.)"""
        if path is None:
            return False
        kept = self._kept.get(path, 0)
        return (self.whole_files and kept < PER_FILE_WARNINGS) or (line is None and kept >= PER_FILE_WARNINGS)

    def told(self) -> tuple[Told, ...]:
        """What was taken, each file's count past those kept in its place (``toldwarnings``)."""
        return self.telling.frozen()

    def told_upto(self, lines: int) -> tuple[Told, ...]:
        """``told`` of a read whose lines after ``lines`` are read again: each file's count its
        unfinished last line grew in two, in its place (``Telling.upto``)."""
        return self.telling.upto(lines)

    @property
    def overflowed(self) -> bool:
        """More came than ``limit``: a result stored with the list alone would lose some."""
        return self.lost or bool(self._counting)

    def count_more(self, path: str, count: int, last: int) -> None:
        """``count`` more of ``path``'s warnings past those kept, up to line ``last``: kept as a
        count (``told``) when the sink counts them too (those kept fill the file's listed ones),
        by its rule (a line at or before the last one counted is the file read again); said
        again (``WarningSink.count_more``) they fold as they did.  Without that count, a cached
        ``tokens`` said "80 more" of a file of 156 bad lines where ``--no-cache`` said 136."""
        if self._kept.get(path, 0) < PER_FILE_WARNINGS:
            self.lost = True  # (some would be listed: not kept)
            return
        if counts_on(self._upto, path, last):  # (``_upto``: the last line kept or counted)
            if path not in self._counting:  # (once a file: this runs for every bad line past them)
                self._counting.add(path)
            self.telling.count_past(path, count, last)


class SinkWarning(NamedTuple):
    """A warning as the sink keeps it: a ``ScanWarning`` is made only when asked for
    (``WarningSink.items``).  The CLI prints these: a remembered answer's warnings are
    said again, and printed, without the model's dataclasses (``scan.answers``)."""

    path: str
    message: str
    line: int | None = None
    #: a file's count past its listed warnings, which this one says (``listed``; 0: a warning)
    past: int = 0

    def to_json(self) -> dict[str, Any]:
        return warning_json(self.path, self.message, self.line)


class WarningSink:
    """Collects warnings, bounded per file and deduplicated."""

    def __init__(self) -> None:
        self._items: list[SinkWarning] = []
        self._seen: set[tuple[str, int | None, str]] = set()
        self._per_file: dict[str, int] = {}
        self._suppressed: dict[str, int] = {}
        #: the last line counted past a file's listed warnings (``add``)
        self._counted_upto: dict[str, int] = {}
        self._captures: list[Captured] = []
        #: a truncated last line as said of its file (``listed``), by (path, message): its
        #: file's age looked up once a run, not on each ``items`` (``prices`` reads it four times)
        self._worded: dict[tuple[str, str], str] = {}

    def fork(self, sink: _Sink) -> _Sink:
        """``sink`` (new) going on from where this one is: what it has listed, seen and counted,
        so that what it lists is what this one would (``scan.saidorder`` holds warnings by this
        sink's rule to say to it later).  Its captures, and its wording of a truncated last line
        (looked up when listed), are its own."""
        sink._items, sink._seen = list(self._items), set(self._seen)
        sink._per_file, sink._suppressed = dict(self._per_file), dict(self._suppressed)
        sink._counted_upto = dict(self._counted_upto)
        return sink

    @contextmanager
    def capture(self, limit: int = CAPTURE_LIMIT, whole_files: bool = False) -> Iterator[Captured]:
        """Collect the warnings raised inside the block (to cache with a result), at most
        ``limit`` of them (``Captured.overflowed`` says when more came); ``whole_files``: and
        past it each file's first ``PER_FILE_WARNINGS``, so that none is lost (a session's
        sums, of its files: its transcript's 150 bad lines filled the capture, and a warm run
        left out its subagent file's 5).  Bounded by the files read inside the block."""
        captured = Captured(limit, whole_files)
        self._captures.append(captured)
        try:
            yield captured
        finally:
            # By identity: two captures can hold equal lists.
            self._captures = [c for c in self._captures if c is not captured]

    def add(self, path: object, message: str, line: int | None = None, *, passing: bool = False) -> bool:
        """Returns whether it was counted past the file's listed warnings (``listed``' "N more"):
        a hold tells it as such (``context.HeldWarnings``, ``scan.saidorder``)."""
        return self.add_legible(legible(str(path)), message, line, passing) == COUNTED

    def add_legible(self, key_path: str, message: str, line: int | None, passing: bool) -> int:
        """``add`` of a path made legible (a hold's, which looked at it first): what the sink did
        with it, ``DROPPED`` (a repeat), ``LISTED`` or ``COUNTED`` (past the file's listed ones):
        a hold holds what the sink took and tells a count as one (the sink's one repeat rule)."""
        if self._captures:  # a result being computed keeps them: the model is imported then anyway
            self._capture(key_path, message, line, passing)
        count = self._per_file.get(key_path, 0)
        if count >= PER_FILE_WARNINGS and line is not None:
            # Past a file's listed warnings a count is kept, not a key a line: a 2 GB file of
            # garbage must not become millions of keys (a million bad lines took 300 MB and
            # 16 s).  A line at or before the last one counted is the file read again (its
            # discovery, then its row): a repeat, as a key would have told (``counts_on``).
            if not counts_on(self._counted_upto, key_path, line):
                return DROPPED
            self._per_file[key_path] = count + 1
            self._suppressed[key_path] = self._suppressed.get(key_path, 0) + 1
            return COUNTED
        message = legible(message)
        key = (key_path, line, message)
        if key in self._seen:
            return DROPPED
        self._seen.add(key)
        self._per_file[key_path] = count + 1
        # (A session skipped is listed whatever its file's count: counted in the "N more" of a
        # transcript's bad lines, the session a bug cost went unsaid, in ``--json`` too.)
        if count >= PER_FILE_WARNINGS and not message.startswith(SKIPPED_SESSION):
            self._suppressed[key_path] = self._suppressed.get(key_path, 0) + 1
            return COUNTED
        self._items.append(SinkWarning(key_path, message, line))
        return LISTED

    def room(self) -> int:
        """How many more warnings the roomiest capture open could take (0: none open, or all
        full): a sink holding warnings to say later keeps that many whole (``scan.saidorder``)."""
        return max((captured.limit - len(captured) for captured in self._captures if not captured.overflowed),
                   default=0)

    def count_more(self, key_path: str, count: int, last: int) -> int:
        """``count`` more warnings of a file past its listed ones, at rising lines up to ``last``
        (``scan.saidorder`` held them), counted by ``add``'s rule (returned: how many were): a
        run ending at or before the last line counted is the file read again, not counted; one
        that last line falls inside is counted whole (its lines are not kept).  The captures open
        take it first, by their own rule, as ``add`` gives them a warning this sink has seen: a
        count said again of a file read before in the run (a row's pass, then a resumed read's
        state said again) was a repeat here and left out of the capture, whose resume state
        then said "81 more" of the file where ``--no-cache`` said 111."""
        for captured in self._captures:
            captured.count_more(key_path, count, last)
        if not counts_on(self._counted_upto, key_path, last):
            return 0
        self._per_file[key_path] = self._per_file.get(key_path, 0) + count
        self._suppressed[key_path] = self._suppressed.get(key_path, 0) + count
        return count

    def say_again(self, told: Iterable[Told], *, passing: bool = False) -> None:
        """Say again the warnings a result was kept with (``toldwarnings``: each file's count
        past them in its place, where this sink began it when they were first said).
        ``passing``: said as passing, whatever they were."""
        for item in told:
            if isinstance(item, Counted):
                self.count_more(item.path, item.past, item.last)
            else:
                path, message, line, said_passing = item
                self.add(path, message, line, passing=passing or said_passing)

    def _capture(self, key_path: str, message: str, line: int | None, passing: bool) -> None:
        """``Captured.take`` for every capture open, the warning made once, and only when one of
        them has room for it (not while every capture is full: a file of a million bad lines)."""
        warning = None
        for captured in self._captures:
            if line is not None and not passing and key_path in captured._counting:
                # (``take``'s first case, inline: it runs for every bad line past a file's listed
                # ones, in each capture open; the file's kept ones are full, ``count_more``)
                if counts_on(captured._upto, key_path, line):
                    captured.telling.count_past(key_path, 1, line)
                continue
            if warning is None and (len(captured) < captured.limit or captured.wants(key_path, line)):
                from agentscan.model import ScanWarning

                warning = ScanWarning(key_path, legible(message), line)
            captured.take(warning, passing, key_path, line)

    def extend(self, warnings: list[ScanWarning]) -> None:
        for warning in warnings:
            self.add(warning.path, warning.message, warning.line)

    @property
    def items(self) -> list[ScanWarning]:
        listed = self.listed()
        if not listed:
            return []
        from agentscan.model import ScanWarning

        return [ScanWarning(*warning) for warning in listed]

    def listed(self) -> list[SinkWarning]:
        """``items`` as the sink keeps them (what the CLI prints), each worded as said now
        (``settling.shown_message``: a truncated last line by its file's age when first
        listed, though the warning was kept in the index when the file was young)."""
        shown = [self._as_said(warning) for warning in self._items]
        # (counted as every cut list counts: ``1 more warning``, ``49,980 more``: ``toolkit.andmore``)
        extra = [SinkWarning(path, f"{plural(count, 'more warning')} for this file {agreeing(count).was} not listed",
                             None, count)
                 for path, count in self._suppressed.items()]
        return shown + extra

    def _as_said(self, warning: SinkWarning) -> SinkWarning:
        if not warning.message.startswith(REWORDED_HEADS):
            return warning
        key = (warning.path, warning.message)
        worded = self._worded.get(key)
        if worded is None:  # one run is one moment: the file's age is looked up once
            from agentscan.settling import shown_message

            worded = self._worded[key] = shown_message(*key)
        return warning if worded == warning.message else warning._replace(message=worded)

    def __len__(self) -> int:
        return len(self._items) + len(self._suppressed)
