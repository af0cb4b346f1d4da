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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentscan.providers.claude.gonesession import gone_main, is_gone

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


def first_named(ref: SessionRef, ctx: ScanContext) -> str | None:
    """The session the head of ``ref``'s main transcript names, when it is a resumed one's
    (remembered per file): the guess, before the pass, of the session resumed."""
    from agentscan.providers.claude.resumedfiles import resumed_from as header_named

    return header_named(ref.native_id, ref.path, ctx)


def resumed_guess(ref: SessionRef, ctx: ScanContext) -> str | None:
    """The session ``ref``'s transcript was resumed from, guessed before its pass: the session
    the line before its own first record names (``continuations.named_before_own``); else the
    one its head names (a chain's first, ``first_named``).  Only a guess: the pass tells
    (``detail_pass``)."""
    from agentscan.providers.claude.continuations import named_before_own

    first = first_named(ref, ctx)
    if first is None or ref.path is None:
        return first
    named, _ = named_before_own(ref.path, ref.native_id)
    return named if named is not None else first


def extra(ref: SessionRef, ctx: ScanContext, copies_listed: bool | None = None,
          held: list[tuple[str, int]] | None = None) -> dict[str, Any]:
    """``show``'s ``resumed_as`` (the sessions resumed from this one, as ``claude:<id>``) and,
    for a resumed session, ``resumed_copies_listed``: whether its copies are listed (the
    session it was resumed from is its row's ``resumed_from``, found by its row's pass), and
    ``resumed_copies_in``: the session that lists them instead, or the first part of them
    (``detail_pass``), and ``resumed_copies_held``: each part another card lists, in order,
    by its session and its prompts (``held``)."""
    from agentscan.providers.claude.copyholders import resumed_into

    found: dict[str, Any] = {}
    if copies_listed is not None:
        found["resumed_copies_listed"] = copies_listed
    if held:
        found["resumed_copies_in"] = f"claude:{held[0][0]}"
        found["resumed_copies_held"] = [{"session": f"claude:{holder}", "prompts": prompts} for holder, prompts in held]
    # (A session whose transcript is gone: those that copied it hold its conversation.)
    main = ref.path or gone_main(getattr(ref, "hint", None))
    later = resumed_into(ref.native_id, Path(main), ctx, gone=ref.path is None) if main is not None else []
    if later and main is not None:
        found["resumed_as"] = [f"claude:{native}" for native in later]
        if len(later) > 1:
            # (A of A → B → C: C's head names A too, but C was resumed from B: the card names B,
            # then C, as the chain goes; B's card names C)
            found["resumed_next"] = [f"claude:{native}" for native in _resumed_next(Path(main), later, ctx)]
    return found


def _resumed_next(main: Path, later: list[str], ctx: ScanContext) -> list[str]:
    """Those of ``later`` (``resumed_as``) not resumed from another of them (whose copies end
    with its records: ``continuations.resumed_last``), so resumed from this session itself."""
    from agentscan.providers.claude.continuations import resumed_last

    direct = [other for other in later if resumed_last(main.with_name(f"{other}.jsonl"), other, ctx) not in later]
    return direct or later


class HeldCopies:
    """Which copied records of a gone session a sibling's card lists, record by record: a
    ``list_copies`` of ``rowpass.summaries``.  A gone session A resumed as B, then again as
    C after it went on: B's copies are the start of C's.  ``tokens`` counts each call in the
    best copy that holds it (``copyholders.nearer_holders``' order): A's first calls in B (the
    smaller id), the later ones in C alone.  So a record is held elsewhere while a better
    sibling's copy has not ended (its last record's ``uuid`` not passed), else listed here
    (before, C listed none of A's records once B held any, and A's later turns were on no card)."""

    def __init__(self, holders: dict[str, list[tuple[str, str | None]]], gone: Any) -> None:
        self._pending = {named: list(held) for named, held in holders.items()}
        self._gone = gone
        #: per gone session, the parts held elsewhere in order: [holder, prompts]
        self.held: dict[str, list[list]] = {}
        #: the gone sessions some of whose records this card lists
        self.listed: set[str] = set()

    def __call__(self, named: str, record: dict) -> bool:
        if not self._gone(named):
            return False
        pending = self._pending.get(named)
        if not pending:
            self.listed.add(named)
            return True
        from agentscan.providers.claude.records import real_prompt_text

        parts = self.held.setdefault(named, [])
        holder = pending[0][0]  # (the best of those whose copy holds it: all still pending do)
        if not parts or parts[-1][0] != holder:
            parts.append([holder, 0])
        if record.get("type") == "user" and real_prompt_text(record) is not None:
            parts[-1][1] += 1
        uuid = record.get("uuid")
        if uuid is not None:
            pending[:] = [(other, last) for other, last in pending if last != uuid]
        return False

    def parts(self, named: str) -> list[tuple[str, int]]:
        return [(holder, prompts) for holder, prompts in self.held.get(named, ())]


def detail_pass(ref: SessionRef, ctx: ScanContext, bounds: Bounds
                ) -> tuple[DetailCollector, Summaries, bool | None, list[tuple[str, int]] | None]:
    """``_detail_pass``, and the chain of a resumed session's copies remembered (``copyholders.
    remembered_head``) when one it names is gone: ``show`` of a gone session with nothing left
    names the card that lists it from what was remembered (``gonehint``), and ``tokens``' parse
    remembers nothing (``context.PARSE_ADDS_NO_FACTS``)."""
    from agentscan.providers.claude.copyholders import remembered_head

    answer = _detail_pass(ref, ctx, bounds)
    main = ref.hint.main
    if answer[2] is not None and main is not None:
        remembered_head(Path(main), ref.native_id, ctx)
    return answer


def _detail_pass(ref: SessionRef, ctx: ScanContext, bounds: Bounds
                 ) -> tuple[DetailCollector, Summaries, bool | None, list[tuple[str, int]] | None]:
    """``show``'s pass over a session's files (``rowpass.summaries``), its collector, and for a
    resumed session whether its copies are listed (``None``: not a resumed one; ``True``: some
    of them), and the parts of them other sessions' cards list instead (``HeldCopies``;
    ``None``: none).  Whether the session resumed is gone is guessed before the pass
    (``resumed_guess``) and known from it (the last session its copies name): read again when
    the guess was wrong.  Of the copies, those of a session that is gone are listed: in a chain
    whose middle session alone is gone, the first one's are listed there; a gone session
    resumed twice is listed, record by record, in the nearer copy, then the one of the smaller
    id, where ``tokens`` counts its calls."""
    from agentscan.providers.claude.copyholders import nearer_holders
    from agentscan.providers.claude.rowpass import summaries
    from agentscan.toolkit.detail import DetailCollector

    files = ref.hint
    gone = functools.lru_cache(maxsize=64)(lambda named: is_gone(named, files.main))
    # (read once, when a copy of a gone session is met: ``copyholders``)
    holders = functools.lru_cache(maxsize=1)(lambda: nearer_holders(ref.native_id, files.main, ctx))
    guess = resumed_guess(ref, ctx)
    listed = is_gone(guess, files.main)
    chain: list[str] = []  # the sessions the copies name, in the order they come
    state = HeldCopies({}, gone)

    def listing(named: str, record: dict) -> bool:
        if not chain or chain[-1] != named:
            chain.append(named)
        return state(named, record)

    while True:
        collector = DetailCollector(bounds)
        # (a chain A → B → C whose B alone is gone: C lists B's copies, not A's, which A lists)
        chain.clear()
        state = HeldCopies(holders() if listed else {}, gone)
        found = summaries(files, ctx, collector, list_copies=listing if listed else None)
        main = found[0]
        resumed = None if main is None else main.resumed_last or main.resumed_from
        if resumed is None:
            return collector, found, None, None
        if is_gone(resumed, files.main) == listed or listed != is_gone(guess, files.main):
            # (the guess, or the pass that mended it: a file that changes between two passes is
            # not read a third time, and the card says what this pass listed)
            if listed:
                held = state.parts(resumed) or None
                if held is not None and resumed not in state.listed:
                    return collector, found, False, held
                return _listing_after_the_found(files, ctx, bounds, chain, gone, holders()) or \
                    (collector, found, listed, held)
            return collector, found, listed, None
        listed = not listed


def _listing_after_the_found(files: Any, ctx: ScanContext, bounds: Bounds, chain: list[str], gone: Any,
                             held: dict[str, list[tuple[str, str | None]]]
                             ) -> tuple[DetailCollector, Summaries, bool, list[tuple[str, int]] | None] | None:
    """The pass again when the copies listed hold those of a session gone before one found: a
    chain A → B → C → D whose A and C are gone lists A's records in B, which copied them
    first, and C's in D; D lists C's alone (before, it listed A's as well: A's conversation
    was on two cards).  ``None``: what was listed stands (no found session among the copies'
    after a gone one).  ``held``: gone sessions other transcripts list a part of (``copyholders``)."""
    from agentscan.providers.claude.rowpass import summaries
    from agentscan.toolkit.detail import DetailCollector

    found_at = [at for at, named in enumerate(chain) if not gone(named)]
    if not found_at or not any(gone(named) for named in chain[:found_at[-1]]):
        return None
    kept = {named for named in chain[found_at[-1] + 1:] if gone(named)}
    state = HeldCopies(held, gone)
    collector = DetailCollector(bounds)
    found = summaries(files, ctx, collector, list_copies=lambda named, record: named in kept and state(named, record))
    return collector, found, True, (state.parts(chain[-1]) or None) if chain else None
