"""The warnings of many sessions' reads said in the session list's order, however the reads
finished: a parse's workers finish in an order of their own, and a cached run replays each
session's warnings from the index in the list's order, so the two printed them differently
(and one cached run another than the next, which replayed what the first had parsed)."""

from __future__ import annotations

from functools import wraps
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeVar, cast

from agentscan.context import HeldWarnings, say_in_order
from agentscan.fsview import legible

if TYPE_CHECKING:
    from agentscan.model import SessionRef

Method = TypeVar("Method", bound=Callable[..., Any])


def in_session_order(method: Method) -> Method:
    """``method(self, refs, ...)`` (``self.ctx`` its context) with the warnings said inside
    held, then said by their file's session in ``refs`` (each session's files in its order;
    a file of no session's after them all, by path), each file's in the order they came."""

    @wraps(method)
    def held(self: Any, refs: Sequence[SessionRef], *args: Any, **kwargs: Any) -> Any:
        from agentscan.scan.memo import MAX_WARNINGS

        said: HeldWarnings | None = None
        try:
            with self.ctx.held_warnings(MAX_WARNINGS) as said:  # (as many as an answer keeps: it is kept alike)
                return method(self, refs, *args, **kwargs)
        finally:  # (said on an interruption too, as they were when said as they came)
            if said is not None:
                say_in_order(self.ctx, said, _rank(refs) if said.said else str)

    return cast(Method, held)


def _rank(refs: Sequence[SessionRef]) -> Callable[[str], tuple[int, int, str]]:
    ranks: dict[str, tuple[int, int, str]] = {}
    for index, ref in enumerate(refs):
        for place, path in enumerate((ref.path, *ref.files)):
            if path is not None:
                ranks.setdefault(legible(str(path)), (index, place, ""))
    last = len(refs)
    return lambda path: ranks.get(path) or (last, 0, path)
