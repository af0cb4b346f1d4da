"""One warning per composer for the bubble values Cursor's databases hold that are no count.

A bubble's ``tokenCount`` that is no token count (``-5``, ``2.5``, ``"100"``) counts what
``bounds.token_count`` takes it as, and a ``createdAt`` past the supported range is unknown
(``toolkit.valuewarnings``, noted by ``records.bubble_tokens`` and ``timeutil``).  The
JSONL readers tell them once a file; a database holds many sessions, so here they are told
once a composer (a Cursor session), naming it and the bubble of the first one: the
database's path has no line to point at, and "in this file" would count every session's.
The warning is said by the pass that builds the composer's stats (``StateDb.build_stats``,
so ``keptstats`` keeps it with them and a warm run says it again; ``workspace``, once the
copy counted is known: a composer two workspace DBs list is told once, as it is counted once).
"""

from __future__ import annotations

from types import TracebackType

from agentscan.context import ScanContext
from agentscan.toolkit.valuewarnings import FileTally, ValueCounts, close_tally, open_tally


class ComposerTally:
    """A tally open while one composer's bubbles are counted (``with``); ``at`` before each
    bubble.  Said when the block ends without an error, unless ``abandoned`` (a database
    whose read failed part way: its counts are not the composer's); not ``tell``: said by
    the caller (``say``), once it knows the copy is the one counted (``workspace``)."""

    __slots__ = ("path", "ctx", "composer_id", "abandoned", "tell", "counts", "_bubbles", "_tally")

    def __init__(self, path: object, ctx: ScanContext, composer_id: str, *, tell: bool = True) -> None:
        self.path = path
        self.ctx = ctx
        self.composer_id = composer_id
        self.abandoned = False
        self.tell = tell
        #: what the bubbles held (complete once the block has ended)
        self.counts = ValueCounts()
        self._bubbles: list[str] = []
        self._tally: FileTally | None = None

    def __enter__(self) -> ComposerTally:
        self._tally = open_tally(self.path, self.ctx, tell=False)
        self.counts = self._tally.counts
        return self

    def at(self, bubble_id: str) -> None:
        """The next values noted are this bubble's: its ordinal stands for a line (two bubbles
        of one bad value are two values; the first one's is named when said)."""
        self._bubbles.append(bubble_id)
        assert self._tally is not None
        self._tally.line = len(self._bubbles)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        tally, self._tally = self._tally, None
        assert tally is not None
        close_tally(tally, False)  # (said here: ``tell=False``)
        if kind is None and self.tell:
            self.say()

    def say(self) -> None:
        """One warning a kind of bad value, naming the composer and the first one's bubble."""
        if not self.abandoned:
            self.counts.say(self.ctx, self.path, unit="composer", place=self._place)

    def _place(self, ordinal: int | None) -> str:
        bubbles = self._bubbles
        bubble = f", bubble {bubbles[ordinal - 1]}" if ordinal and ordinal <= len(bubbles) else ""
        return f"composer {self.composer_id}{bubble}"
