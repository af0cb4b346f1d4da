"""``show`` of a resumed Claude session: whether the records it copied are listed, and what
its card says of the sessions it was resumed from and as.

A resumed session's transcript begins with a copy of the session it was resumed from
(``resumes``).  While that session's transcript is there, ``show`` lists the copies there
alone.  Claude Code deletes old transcripts (``cleanupPeriodDays``, 30 days by default),
the first session's first: then the resumed transcript holds the only copy of that
conversation, and ``show`` lists it too, marked as copied, so that the conversation shown
and the tokens counted (the copies count here once the first is gone, as in ``tokens``)
agree.  The row's own counts, title and start stay its own records' either way: a row
must not change when another session's file is deleted.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentscan.bounds import Bounds
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef
    from agentscan.providers.claude.filesummary import FileSummary
    from agentscan.providers.claude.windowed import WindowedTotals
    from agentscan.toolkit.detail import DetailCollector

    Summaries = tuple[FileSummary | None, dict[str, FileSummary], WindowedTotals | None, list]


def resumed_from(main: FileSummary | None) -> str | None:
    """The row's ``resumed_from``: the last session the copies named (the one resumed: a chain
    A → B → C copies A's records, then B's, at C's head), else the one the head named (no
    copy read: a transcript of copies the pass could not read)."""
    if main is None:
        return None
    named = main.resumed_last or main.resumed_from
    return f"claude:{named}" if named else None


def is_gone(native_id: str | None, main: Path | str | None) -> bool:
    """Whether the session ``native_id`` (named by a resumed transcript ``main``) has no
    transcript beside it, where Claude Code writes a project's sessions."""
    if native_id is None or main is None:
        return False
    return not os.path.isfile(os.path.join(os.path.dirname(main), f"{native_id}.jsonl"))


def first_named(ref: SessionRef, ctx: ScanContext) -> str | None:
    """The session the head of ``ref``'s main transcript names, when it is a resumed one's
    (remembered per file): the guess, before the pass, of the session resumed."""
    from agentscan.providers.claude.discovery import resumed_from as header_named

    return header_named(ref.native_id, ref.path, ctx)


def extra(ref: SessionRef, ctx: ScanContext, copies_listed: bool | None = None) -> dict[str, Any]:
    """``show``'s ``resumed_as`` (the sessions resumed from this one, as ``claude:<id>``) and,
    for a resumed session, ``resumed_copies_listed``: whether its copies are listed (the
    session it was resumed from is its row's ``resumed_from``, found by its row's pass)."""
    from agentscan.providers.claude.discovery import resumed_as

    found: dict[str, Any] = {}
    if copies_listed is not None:
        found["resumed_copies_listed"] = copies_listed
    later = resumed_as(ref.native_id, ref.path, ctx)
    if later:
        found["resumed_as"] = [f"claude:{native}" for native in later]
    return found


def detail_pass(ref: SessionRef, ctx: ScanContext, bounds: Bounds) -> tuple[DetailCollector, Summaries, bool | None]:
    """``show``'s pass over a session's files (``rowpass.summaries``), its collector, and for a
    resumed session whether its copies are listed (``None``: not a resumed one).  Whether the
    session resumed is gone is guessed from the head (the first session named) and known from
    the pass (the last one its copies name): read again when the guess was wrong (in a chain
    whose first session alone is gone).  Of the copies, those of a session that is gone are
    listed: in a chain whose middle session alone is gone, the first one's are listed there."""
    from agentscan.providers.claude.rowpass import summaries
    from agentscan.toolkit.detail import DetailCollector

    files = ref.hint
    gone = functools.lru_cache(maxsize=64)(lambda named: is_gone(named, files.main))
    listed = is_gone(first_named(ref, ctx), files.main)
    while True:
        collector = DetailCollector(bounds)
        # (a chain A → B → C whose B alone is gone: C lists B's copies, not A's, which A lists)
        found = summaries(files, ctx, collector, list_copies=gone if listed else None)
        main = found[0]
        resumed = None if main is None else main.resumed_last or main.resumed_from
        if resumed is None:
            return collector, found, None
        if is_gone(resumed, files.main) == listed or listed != is_gone(first_named(ref, ctx), files.main):
            # (the guess, or the pass that mended it: a file that changes between two passes is
            # not read a third time, and the card says what this pass listed)
            return collector, found, listed
        listed = not listed
