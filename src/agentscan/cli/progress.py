"""A one-line progress report on stderr for cold scans that take a while.

Shown only when stderr is a terminal, only after ``DELAY_S`` (a warm run
finishes first and prints nothing), redrawn at most ten times a second, and
erased before the result is printed.  Pipes, cron and ``--quiet`` get nothing.
A session count stands still while one huge transcript is read (a first
``show`` of a 1 GB one takes a quarter of a minute): then the line says how
far into that file the read is.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Iterator

from agentscan.progress import FINDING, Progress

DELAY_S = 1.0
REDRAW_S = 0.1


class StderrProgress(Progress):
    def __init__(self, stream=None) -> None:  # noqa: ANN001 - any text stream
        super().__init__()
        self._stream = stream or sys.stderr
        self._started: float | None = None
        self._drawn_at = 0.0
        self._visible = False
        self._file: tuple[str, int, float, int] | None = None  # name, size, when and where its read began
        self._file_done = 0  # where the read of it was when last told
        self._told_upgrade = False  # ``upgraded``: once a run
        self._upgrade_searched = False  # ``upgraded`` asked: not again this run
        self._upgraded = 0  # sessions read again after an upgrade, not said yet
        self._upgraded_what = "rows"  # what of them (``Progress.upgraded``)
        self._shown = ""  # the line drawn last
        self._began: float | None = None  # the first count's time, until a result is printed

    def expect(self, count: int) -> None:
        if self._started is None:
            self._started = time.monotonic()
        if self._began is None:
            self._began = self._started
        super().expect(count)

    @contextmanager
    def named(self, phase: str, done: int = 0, total: int = 0) -> Iterator[None]:
        if phase == self.phase:  # (the same phase goes on: ``Progress.named``)
            yield
            return
        # The phase's own rate and delay: its count starts from none (``Progress.named``).
        started, self._started = self._started, None
        entered = time.monotonic()
        try:
            with super().named(phase, done, total):
                if self._visible:
                    # Named at once over the line shown: "reading sessions 15,000/15,000" stood
                    # for seconds while ``list`` added up the tokens of its COST column.
                    self._started = entered
                    # (The upgrade's note first, if held: a phase may now be named before its
                    # first count, "adding up tokens" over "finding sessions 15,000".)
                    self._draw(_fitted(*self._said(entered)) if total else _fitted(phase, ''))
                yield
                if self._visible and self.done:
                    # Its last count, drawn: the line stands while what follows runs (an
                    # export's write), and "adding up days 1,001/1,500" read as stuck there
                    # (redrawn at most ten times a second, the last count was rarely drawn).
                    self._draw(_fitted(*self._said(time.monotonic())))
        finally:
            # The count before it goes on at its own rate: the phase's time is not its.
            self._started = None if started is None else started + (time.monotonic() - entered)

    def changed(self) -> None:
        now = time.monotonic()
        # (No delay once a line is shown: it would stand still, saying the phase before.  The
        # delay is the run's, not the phase's: an unchanged export's phases, each under a
        # second, showed nothing for its 3 s, each phase waiting out a delay of its own.)
        if self._started is None:
            return
        began = self._started if self._began is None else min(self._began, self._started)
        if (not self._visible and now - began < DELAY_S) or now - self._drawn_at < REDRAW_S:
            return
        self._drawn_at = now
        self._draw(_fitted(*self._said(now)))
        self._visible = True

    def _said(self, now: float) -> tuple[str, str, str]:
        """The line's words, rate and count: ``phase`` `` (rate)`` `` done/total``."""
        if self.phase == FINDING:  # (no total known: found so far; none yet, the census)
            return self.phase, "", f" {self.done:,}" if self.done else ""
        return self.phase, self._rate(now), f" {self.done:,}/{max(self.total, self.done):,}"

    def _rate(self, now: float) -> str:
        """`` (850/s)``, once the phase has run ``DELAY_S``: a phase named at once over the line
        before it (``named``) read ``(4/s)`` in its first tenths of a second, its workers
        starting, then ``(900/s)``; a rate over less time says nothing of the rest."""
        elapsed = 0.0 if self._started is None else now - self._started
        if elapsed < DELAY_S or elapsed <= 0:
            return ""
        return f" ({self.done / elapsed:,.0f}/s)"

    def reading(self, name: str, done: int, size: int) -> None:
        now = time.monotonic()
        # A read that went back is another read of the file (a command may read one twice:
        # its row's pass, then ``show``'s forward read): its own delay and rate.
        if self._file is None or self._file[:2] != (name, size) or done < self._file_done:
            self._file = (name, size, now, done)
        self._file_done = done
        began, start = self._file[2:]
        if now - began < DELAY_S or now - self._drawn_at < REDRAW_S:
            return
        self._drawn_at = now
        rate = (done - start) / max(now - began, 1e-6)
        self._draw(_fitted(f"reading {name}:", f' ({_megabytes(rate)} MB/s)',
                           f" {_megabytes(done)} of {_megabytes(size)} MB"))
        self._visible = True

    def waiting(self, what: str) -> None:
        # At once, not after ``DELAY_S``: the wait may be as long as the other run, and a
        # terminal that shows nothing for it looks hung.  The next progress line replaces it.
        self._draw(_fitted(what, ''))
        self._visible = True

    def tells_upgrades(self) -> bool:
        # (Asked once a run: a warm run's few changed sessions are searched once, not again
        # by each phase that reads them.)
        return not self._told_upgrade and not self._upgrade_searched

    def upgraded(self, count: int, what: str = "rows") -> None:
        # Said with the progress line, before it, if the run is long enough to draw one (a
        # few rows read again in a blink need no word): it counts every session, and the
        # cache seems not to have helped.  Once a run.  A note, not a warning: nothing is
        # wrong, and ``--strict`` must not fail on it.
        self._upgrade_searched = True
        if not self._told_upgrade and count:
            self._upgraded, self._upgraded_what = count, what
            if self._visible:
                # A line is up already ("finding sessions 15,000"): said now, above it, the
                # line drawn again as it was.  Held for the next draw, it was lost by a phase
                # ended within ``REDRAW_S`` of it.
                self._draw(self._shown)

    def _say_upgraded(self) -> str:
        """The note ``upgraded`` holds, as the line before the progress line (once)."""
        count, self._upgraded = self._upgraded, 0
        if not count or self._told_upgrade:
            return ""
        self._told_upgrade = True
        from agentscan.toolkit.words import plural

        sessions = plural(count, "session")
        erase = "\r\x1b[K" if self._visible else ""
        # What is read again, and no promise of when it ends: the index keeps sums and rows
        # apart, and "this run only" after a first ``tokens`` was broken by the ``list`` after
        # it, which read every session again for its rows.
        return (f"{erase}note: agentscan was upgraded: reading {sessions} again for their {self._upgraded_what} "
                "(the index holds them from an older version)\n")

    def handed_over(self) -> None:
        # The line stays up: the next phase (``named``) names itself over it at once.  Erased
        # here, the terminal showed a blank line for ``DELAY_S`` between "adding up tokens"
        # and "naming sessions"; a run that showed no line shows none for it either.
        self._upgraded = 0
        self._started = None
        self._file = None

    def cleared(self) -> None:
        self._upgraded = 0  # (its phase is over: a later one is not the upgrade's)
        self._started = self._began = None  # (a result is printed: what follows waits its own second)
        self._file = None
        if self._visible:
            self._write("\r\x1b[K")
            self._visible = False

    def _draw(self, line: str) -> None:
        """``line`` over the one shown, after the upgrade's note if one is held."""
        self._shown = line
        self._write(f"{self._say_upgraded()}\r\x1b[K{line}")

    def _write(self, text: str) -> None:
        from agentscan.cli.term import for_stderr

        try:
            self._stream.write(for_stderr(text))  # (``…``, a file's name: as stderr can show them)
            self._stream.flush()
        except (OSError, ValueError):
            pass


def _fitted(said: str, rate: str, count: str = "") -> str:
    """The progress line, ``said`` ``count`` ``rate``, within the terminal's width (one column
    short of it: a line that fills the last column leaves the cursor waiting to wrap): its
    rate left out, then its words cut, the count kept whole (``bundling each agent's s…
    1,057/1,500`` at 30 columns: the count is what moves; cut from the end, it went first).
    A line wider than the terminal was folded, and each redraw's ``\\r`` went back only to the
    start of its last row: at 30 columns ``adding up tokens 1,057/1,500 (448/s)`` left a trail
    of its first 30 columns, one a redraw."""
    from agentscan.cli.term import cut, terminal_width, width_of

    room = max(terminal_width(), 20) - 1
    if width_of(said + count + rate) <= room:
        return said + count + rate
    if width_of(said + count) <= room:
        return said + count
    kept = room - width_of(count)
    if kept < 2:  # (a count about as wide as the line: cut with the words)
        return cut(said + count, room)
    return cut(said, kept) + count


def _megabytes(count: float) -> str:
    return f"{count / 1e6:,.0f}"
