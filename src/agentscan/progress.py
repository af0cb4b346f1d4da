"""Progress of a long scan, reported to whoever shows it (the CLI: stderr on a terminal).

The library only counts; it never prints.  ``ScanContext.progress`` is a
``Progress`` that does nothing unless a caller installs one that does.
"""

from __future__ import annotations


class Progress:
    """Sessions expected and done; subclasses decide what to show."""

    def __init__(self) -> None:
        self.total = 0
        self.done = 0

    def expect(self, count: int) -> None:
        """``count`` more sessions are about to be read."""
        self.total += count

    def advance(self, count: int = 1) -> None:
        self.done += count
        self.changed()

    def finish(self) -> None:
        """The phase is over (a result is about to be printed)."""
        self.total = self.done = 0
        self.cleared()

    def changed(self) -> None:  # pragma: no cover - overridden to display
        pass

    def cleared(self) -> None:  # pragma: no cover - overridden to display
        pass
