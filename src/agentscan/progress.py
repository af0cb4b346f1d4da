"""Progress of a long scan, reported to whoever shows it (the CLI: stderr on a terminal).

The library only counts; it never prints.  ``ScanContext.progress`` is a
``Progress`` that does nothing unless a caller installs one that does.
"""

from __future__ import annotations

from pathlib import PurePath
from contextlib import contextmanager
from typing import Callable, Iterator

#: a pass over one file at least this large tells ``Progress.reading`` how far it is
TOLD_BYTES = 32 * 1024 * 1024
#: such a pass tells it once every this many records it reads (a test of a counter per record)
TOLD_EVERY = 4096
#: what a phase does with its sessions when it says nothing else (a row each, for ``list``)
READING = "reading sessions"
#: the ``tokens`` table's phase after its sums: each session's date, project and title
#: (``cli.tokens_table.sessions_facts``).  Not ``READING``: a second "reading sessions N/N"
#: after "adding up tokens N/N" read as the same sessions read twice.
NAMING = "naming sessions"
#: finding each provider's sessions (``scan.discovering``), counted as each provider's are found,
#: no total known: a first run, or the first after an upgrade, takes seconds to stat 17,500
#: files at the bench's scale 10, and the terminal showed nothing meanwhile
FINDING = "finding sessions"
#: ``list --all`` (and ``export``) after its rows were read in workers: each kept in the index
#: in its turn (``scan.everyrow.every_row``)
CACHING = "caching sessions"
#: ``tokens`` after ``CACHING`` its sums: each agent's sessions' sums kept together, for the next
#: run to read at once (``collect._store_snapshot``), counted from none: counted on as more
#: "caching sessions", its total doubled in mid-phase (``1,502/1,502``, then ``1,502/3,004``)
BUNDLING = "bundling each agent's sessions"
#: ``tokens`` after its sums were read: each session's added to its row and priced
#: (``scan.tokens._report``), counted (it stood 1.2 s on "caching sessions" after an upgrade)
PRICING = "pricing sessions"
#: ``list`` and an export after ``PRICING``: each row given its cost (``scan.costs.priced``), counted:
#: a cold ``list --all`` stood ~0.86 s on "pricing sessions 15,000/15,000" at scale 10
PRICING_ROWS = "pricing the rows"
#: ``tokens`` keeping its rows for the next run (``rowmemo.SessionRows.keep_report``): 0.8 s at
#: scale 10, the line standing still before "naming sessions"
KEEPING_ROWS = "caching the report's rows"


def file_teller(progress: Progress, path: PurePath, size: int | None) -> Callable[[int], None] | None:
    """What a pass over ``path`` (``size`` bytes) calls with the offset it reached, every
    ``TOLD_EVERY`` records; ``None`` for a file too small to tell about (or of no known size)."""
    if size is None or size < TOLD_BYTES:
        return None
    # Named as a session id is shown: its first 8 characters.
    name = path.stem if len(path.stem) <= 12 else path.stem[:8] + "…"
    return lambda done: progress.reading(name, done, size)


@contextmanager
def caching(progress: Progress, total: int, kept: int = 0) -> Iterator[None]:
    """``CACHING`` the last batch's rows, read ahead in workers, as each is kept in the index
    (``listing.select_sessions``, ``everyrow.every_row``): ``kept`` of ``total`` were before.

    The reading's count is brought to ``total`` first: the rows the index held come with the
    batch's one query, and those the workers read were counted as they came (``ahead``).  A
    batch read while "caching sessions" was shown: a ``list --all`` after an upgrade said so
    of its whole parse, once its first few rows (the newest, a batch of their own) were kept."""
    if total > progress.done:
        progress.ahead(total - progress.done)
    with progress.named(CACHING):
        progress.expect(total)
        if kept:
            progress.advance(kept)
        yield


class Progress:
    """Sessions expected and done; subclasses decide what to show."""

    def __init__(self) -> None:
        self.total = 0
        self.done = 0
        self._ahead = 0  # done before their turn: their ``advance`` counts nothing again
        #: what is being done with the sessions: ``tokens`` adds them up, then reads their
        #: rows for the table, and the count starting again must not read as going back
        self.phase = READING

    def expect(self, count: int) -> None:
        """``count`` more sessions are about to be read (for ``phase``: ``named``)."""
        self.total += count

    @contextmanager
    def named(self, phase: str, done: int = 0, total: int = 0) -> Iterator[None]:
        """Sessions counted inside this block are done for ``phase`` (a parse inside a ``list``
        that reads rows around it), counted from none: ``adding up tokens 3/500``, not on from
        the 1,500 rows read before it.  The name and the count before it come back after it.
        Inside a phase of the same name the count goes on (``costs``' pass is one phase from
        its first query, and the parse inside it counts its sessions).  ``done`` of ``total``:
        counted from there (a phase that goes on from another's count, drawn so at once)."""
        if phase == self.phase:
            yield
            return
        saved = self.phase, self.total, self.done, self._ahead
        self.phase, self.total, self.done, self._ahead = phase, total, done, 0
        try:
            yield
        finally:
            self.phase, self.total, self.done, self._ahead = saved

    def advance(self, count: int = 1) -> None:
        counted = min(count, self._ahead)
        self._ahead -= counted
        self.done += count - counted
        self.changed()

    def ahead(self, count: int = 1) -> None:
        """``count`` sessions read before their turn (rows read ahead in workers): done now;
        the ``advance`` made when their turn comes counts nothing."""
        self._ahead += count
        self.done += count
        self.changed()

    def reading(self, name: str, done: int, size: int) -> None:
        """A long pass over one file (``name``, a huge transcript) has read ``done`` of its
        ``size`` bytes: a session count stands still for as long as it takes."""

    def waiting(self, what: str) -> None:
        """The run waits for another (``what``: for whom): said until the next progress."""

    def tells_upgrades(self) -> bool:
        """Whether ``upgraded`` shows anything (yet): counting them takes fingerprints again."""
        return False

    def upgraded(self, count: int, what: str = "rows") -> None:
        """``count`` sessions are read again only because the index holds them from an older
        parser (agentscan was upgraded): a run as long as a cold one.  ``what`` is read again
        of them: ``"tokens"`` (their sums), ``"rows"`` or ``"calls"`` (an export's days); each is kept apart in the index, so
        the first ``list`` after a first ``tokens`` reads them again too (for their rows)."""

    def finish(self) -> None:
        """The phase is over (a result is about to be printed)."""
        self.total = self.done = self._ahead = 0
        self.cleared()

    def handover(self) -> None:
        """The phase is over and another follows at once (``named``): its count is dropped, as
        ``finish`` drops it, but not the line, which the next phase draws over."""
        self.total = self.done = self._ahead = 0
        self.handed_over()

    def handed_over(self) -> None:  # pragma: no cover - overridden to display
        pass

    def changed(self) -> None:  # pragma: no cover - overridden to display
        pass

    def cleared(self) -> None:  # pragma: no cover - overridden to display
        pass
