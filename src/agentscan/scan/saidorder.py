"""The warnings of many sessions' reads said in the session list's order, however the reads
finished: a parse's workers finish in an order of their own, and a cached run replays each
session's warnings from the index in the list's order, so the two printed them differently
(and one cached run another than the next, which replayed what the first had parsed)."""

from __future__ import annotations

from functools import wraps
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeVar, cast

from agentscan.fsview import legible
from agentscan.toldwarnings import Telling
from agentscan.warningsink import COUNTED, DROPPED, PER_FILE_WARNINGS, WarningSink

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef

Method = TypeVar("Method", bound=Callable[..., Any])


class _Held(WarningSink):
    """Warnings held for their order: of a file, those the sink lists (its first
    ``PER_FILE_WARNINGS`` distinct ones) as told; past them as many as the captures open can
    still take (``room``), then only how many and the last line, by the sink's own rule (a line
    at or before the last one counted is the file read again, as its row's pass, then its
    sums'): held whole, a file's lines past them were counted once a read (10,092 more said for
    10,036), and 10,000 kept a file took 90 MB over 25 files."""

    def __init__(self, outer: WarningSink) -> None:
        super().__init__()
        # The rule goes on from where the sink it says to is (a file warned of before): each
        # warning held or counted here is one it would have listed or counted, no other.  And
        # what it lists meanwhile is what that sink would list, had they been said as they
        # came: what is read of the sink inside (``unreadrows``' "cannot read" of a session)
        # sees those said before the hold too.  Without them, a repeat dropped here (said
        # before, by discovery or a row's pass) was in neither list: an unreadable session
        # lost its mark.
        outer.fork(self)
        #: what was told, in order, each file's count past its listed ones in its place
        #: (``toldwarnings``: how many were counted, and the last line counted)
        self.said = Telling()
        # Past them, those the captures open on that sink could still take are held whole: said
        # as a count, they overflowed an answer's capture (``answers.remember``: not kept) for
        # any file of more than 20 warnings.  Those past that room overflow it as they came.
        self._room = outer.room()

    def room(self) -> int:
        return max(super().room(), self._room)

    def add(self, path: object, message: str, line: int | None = None, *, passing: bool = False) -> bool:
        key_path = legible(str(path))
        if passing or line is None or self._per_file.get(key_path, 0) < PER_FILE_WARNINGS:
            took = self.add_legible(key_path, message, line, passing)
            if passing or took != DROPPED:  # (a repeat the sink dropped is not told again)
                self.said.tell((key_path, legible(message), line, passing))
                self._room -= 1
            return took == COUNTED
        if self.add_legible(key_path, message, line, False) != COUNTED:
            return False
        if self._room > 0:
            self.said.tell((key_path, legible(message), line, False))
            self._room -= 1
        else:
            self.said.count_past(key_path, 1, line)
        return True

    def count_more(self, key_path: str, count: int, last: int) -> int:
        counted = super().count_more(key_path, count, last)
        if counted:  # (held in turn, in its place: said on before a file's lines that came after it,
            # a count fell at or before the last line they counted and was dropped: a grown file's
            # count kept with its resume state went unsaid, "87 more" for 150)
            self.said.count_past(key_path, counted, last)
        return counted


def in_session_order(method: Method) -> Method:
    """``method(self, refs, ...)`` (``self.ctx`` its context) with the warnings said inside
    held, then said by their file's session in ``refs`` (each session's files in its order;
    a file of no session's after them all, by path), each file's in the order they came."""

    @wraps(method)
    def held(self: Any, refs: Sequence[SessionRef], *args: Any, **kwargs: Any) -> Any:
        ctx: ScanContext = self.ctx
        said = _Held(ctx.warnings)
        try:
            with ctx.warnings_to(said):
                return method(self, refs, *args, **kwargs)
        finally:  # (said on an interruption too, as they were when said as they came)
            _say_in_order(ctx, said, _rank(refs) if said.said else str)

    return cast(Method, held)


def _say_in_order(ctx: ScanContext, held: _Held, rank: Callable[[str], Any]) -> None:
    """Say ``held``'s warnings sorted by ``rank`` of their paths (each file's in the order they
    came, each file's count past its listed ones in its place)."""
    ctx.warnings.say_again(sorted(held.said.settled(), key=lambda said: rank(said[0])))


def _rank(refs: Sequence[SessionRef]) -> Callable[[str], tuple[int, int, str]]:
    ranks: dict[str, tuple[int, int, str]] = {}
    for index, ref in enumerate(refs):
        for place, path in enumerate((ref.path, *ref.files)):
            if path is not None:
                ranks.setdefault(legible(str(path)), (index, place, ""))
    last = len(refs)
    return lambda path: ranks.get(path) or (last, 0, path)
