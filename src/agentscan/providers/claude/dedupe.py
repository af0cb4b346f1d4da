"""Which copy of a Claude call counts, and the calls as ``tokens``' packed entries.

Every copy of a call (one record per content block of a response, a subagent's call copied
into its parent's progress records, a resumed session's copies of its first session's
records) carries the same usage key; ``usage``'s module doc says which one wins.
"""

from __future__ import annotations

import os
from typing import Collection, Iterable, Iterator

from agentscan.model import PROGRESS_ORIGIN
from agentscan.providers.claude.gonesession import is_gone
from agentscan.providers.claude.usage import (
    C_CACHE_READ,
    C_CACHE_WRITE,
    C_CACHE_WRITE_1H,
    C_FIRST_TS,
    C_FROM_PROGRESS,
    C_INPUT,
    C_LAST_TS,
    C_MODEL,
    C_ORDER,
    C_OUTPUT,
    C_SESSION_ID,
    C_SUBAGENT,
    C_TS,
    C_WEB_SEARCHES,
    HAS_SPEED,
    MESSAGE_ID,
    REQUEST_ID,
    SIDECHAIN,
    Call,
)


def call_rank(call: Call) -> int:
    """Orders copies of one call, best last: parent over sidechain, then the larger total, then the copy that has ``speed``, then a transcript's copy over a
    progress copy (``entries_from``'s rank)."""
    total = call[C_INPUT] + call[C_CACHE_READ] + call[C_CACHE_WRITE] + call[C_OUTPUT]
    # (A field holds at most ``MAX_TOKEN_COUNT``, so total × 4 + 3 < 1.6e13 + 4 < 2**44: the
    # parent's flag at ``_PARENT`` is above any of them, and a rank below 2**46.  The rank
    # across sessions' files, ``packed_entries``', is this times ``_NEAREST`` (2**16) plus a
    # nearness, below 2**62, plus ``_NAMED_HERE`` (2**62) for a copy in the file of the
    # session its record names: below 2**63, stored as a signed 64-bit integer.)
    return ((0 if call[SIDECHAIN] else _PARENT) + total * 4 + (2 if call[HAS_SPEED] else 0)
            + (0 if call[C_FROM_PROGRESS] else 1))


#: the parent-over-sidechain flag of ``call_rank``: above 4 × (4 × ``MAX_TOKEN_COUNT``) + 3
_PARENT = 1 << 45


class CallDeduper:
    """The best copy of each call (``call_rank``), over call tuples, for ``tokens``.

    A tie keeps the copy that comes first in file order (``C_ORDER``), so the
    result does not depend on the order calls are added in: an incremental
    update that adds a file's new tail last gets what a full parse gets.
    """

    def __init__(self, *, call_times: bool = False) -> None:
        """``call_times``: find each call's first and last record times (``C_FIRST_TS``)."""
        self._best: dict[tuple[str, str | None], Call] = {}
        self._loose: list[Call] = []  # no message id: cannot be deduplicated
        #: key -> [earliest, latest] ``C_TS`` of its copies, for keys seen more than once
        self._times: dict[tuple[str, str | None], list[float]] = {}
        self._call_times = call_times

    def add_all(self, calls: Iterable[Call]) -> None:
        best, times = self._best, (self._times if self._call_times else None)
        for call in calls:
            message_id = call[MESSAGE_ID]
            if message_id is None:
                self._loose.append(call)
                continue
            key = (message_id, call[REQUEST_ID])
            current = best.get(key)
            if current is None:
                best[key] = call
                continue
            # The span of times the copies were written in (copies only: a call written once
            # costs nothing more): the kept copy's time is only one of them (the largest, often
            # the last block's), and a response began before its tool_use blocks were written.
            # Inline, not a method: a cold ``tokens`` meets a copy for most calls.
            if times is not None:
                span = times.get(key)
                if span is None:
                    first = current[C_TS]
                    span = times[key] = [first, first] if first is not None else []
                ts = call[C_TS]
                if ts is not None:
                    if not span:
                        span += (ts, ts)
                    elif ts < span[0]:
                        span[0] = ts
                    elif ts > span[1]:
                        span[1] = ts
            new_rank, old_rank = call_rank(call), call_rank(current)
            if new_rank > old_rank or (new_rank == old_rank and call[C_ORDER] < current[C_ORDER]):
                best[key] = call

    def winners(self) -> list[Call]:
        best, times = self._best, self._times
        _join_unrequested(best, times if self._call_times else None)
        kept = list(self._loose)
        parents: dict[str, set[str | None]] | None = None
        for key, call in best.items():
            message_id, request_id = key
            if call[SIDECHAIN]:
                if parents is None:
                    # Requests under which a message has an unsidechained copy: a
                    # sidechain copy under another request replays the parent's.
                    parents = {}
                    for (mid, rid), other in best.items():
                        if not other[SIDECHAIN]:
                            parents.setdefault(mid, set()).add(rid)
                requests = parents.get(message_id)
                if requests and (len(requests) > 1 or request_id not in requests):
                    continue
            if times:
                span = times.get(key)
                if span and span[0] != span[1]:
                    call = (*call, span[0], span[1])
            kept.append(call)
        kept.sort(key=lambda call: call[C_ORDER])
        return kept


def better_copy(call: Call, other: Call) -> bool:
    """Whether ``call`` is kept over ``other``, a copy of the same call: the higher
    ``call_rank``, then the one that comes first in file order."""
    rank, other_rank = call_rank(call), call_rank(other)
    return rank > other_rank or (rank == other_rank and call[C_ORDER] < other[C_ORDER])


def with_request(call: Call, request_id: str) -> Call:
    """``call`` (a copy without ``requestId``) under the one request its message was made in."""
    return (*call[:REQUEST_ID], request_id, *call[REQUEST_ID + 1:])


def _join_unrequested(best: dict[tuple[str, str | None], Call],
                      times: dict[tuple[str, str | None], list[float]] | None) -> None:
    """Rule 3 (docs/providers/claude.md): a copy without ``requestId`` (a gateway strips it
    from some records) is the call its message was made in when that message has exactly one
    ``requestId`` among the copies: its best copy joins that key's (``better_copy``), re-keyed.
    With none, the copies without one count once by ``message.id``; with two or more (a
    ``/btw`` replay under a request of its own), which of them it belongs to is not known and
    it counts once apart, as before.  Decided on the best copies, after every copy is in:
    whatever the order of the files or records."""
    loose = [key for key in best if key[1] is None]
    if not loose:
        return
    requests: dict[str, list[str]] = {}
    unrequested = {key[0] for key in loose}
    for message_id, request_id in best:
        if request_id is not None and message_id in unrequested:
            requests.setdefault(message_id, []).append(request_id)
    for key in loose:
        found = requests.get(key[0])
        if found is None or len(found) != 1:
            continue
        joined = (key[0], found[0])
        call, other = best.pop(key), best[joined]
        if better_copy(call, other):
            best[joined] = with_request(call, found[0])
        if times is not None:  # the span of times the copies under both keys were written in
            both = [t for t in (*times.pop(key, ()), *times.get(joined, ()), call[C_TS], other[C_TS]) if t is not None]
            if both:
                times[joined] = [min(both), max(both)]


#: the rank across sessions' files of a copy in the file of the session its record names
#: (``packed_entries``): above any other copy's, its total whatever it is.  A resumed copy
#: larger than its original (it is verbatim as Claude Code writes it) counted in the resumed
#: session while the first session's row counted its own copy too: ``list`` rows added up
#: to more than ``tokens``' total.
_NAMED_HERE = 1 << 62

#: how many steps of a chain of resumes the rank across sessions' files tells apart
#: (``packed_entries``): a copy further than ``_NEAREST - 1`` resumes from its session ranks
#: as the furthest.  (It was 8: in a chain of more than 7 gone sessions the credit fell to
#: whichever copy's session sorts first by id, while ``show`` listed the conversation in
#: the nearest.)
_NEAREST = 1 << 16


def packed_entries(calls: list[Call], session: str, transcripts: Collection[str] = (),
                   main: str | os.PathLike[str] | None = None, chain: list[str] | None = None) -> Iterator[list]:
    """Calls as packed usage entries (``UsageEntry.pack``'s layout), keyed like ``entries_from``;
    ``transcripts`` are the session's subagents that have a transcript of their own; ``main``
    the session's transcript, whose records tell the chain of resumes (``_nearness``; ``chain``:
    as they were read already, ``incremental.calls_and_chain``).  A generator: the caller sums them as they come (a 1 GB transcript has 450k)."""
    nearness = _nearness(calls, session, main, chain)
    for c in calls:
        # The rank across sessions' files (``sharedcalls``): the copy in the file of the
        # session its record names wins, whatever its total (``_NAMED_HERE``).  Claude Code
        # copies a resumed session's earlier records into the new session's file with their
        # first session's ``sessionId``: those calls were made (and paid for) there, and that
        # session's own row counts them from its own files.  A record naming no other
        # session is the file's own.  With that session's file gone, the larger copy wins, and
        # between copies alike the one of the session resumed from it over a later one's
        # (``_nearness``).
        named = c[C_SESSION_ID]
        if named is None or named == session:
            rank = _NAMED_HERE + call_rank(c) * _NEAREST + _NEAREST - 1
        else:
            rank = call_rank(c) * _NEAREST + nearness[named]
        entry = [session, c[C_SUBAGENT], c[C_TS], c[C_MODEL], c[C_INPUT], c[C_CACHE_READ], c[C_CACHE_WRITE], c[C_OUTPUT],
                 0, None if c[MESSAGE_ID] is None else f"{c[MESSAGE_ID]}\x1f{c[REQUEST_ID] or ''}", rank,
                 c[C_CACHE_WRITE_1H], c[C_WEB_SEARCHES]]
        origin = PROGRESS_ORIGIN if c[C_FROM_PROGRESS] and c[C_SUBAGENT] not in transcripts else None
        if len(c) > C_FIRST_TS:
            entry += (origin, c[C_FIRST_TS], c[C_LAST_TS])
        elif origin is not None:
            entry.append(origin)
        yield entry


def _nearness(calls: list[Call], session: str, main: str | os.PathLike[str] | None = None,
              copied: list[str] | None = None) -> dict[str, int]:
    """How near ``session`` each session whose copied calls ``calls`` hold is, as a rank's low
    bits (``_NEAREST - 1`` its own).  A chain A → B → C → D begins D's file with A's records,
    then B's, then C's (each resume copies the transcript resumed, copies and all): C's copies
    are one resume from D, A's three, and B's file holds A's one resume from A.  A gone
    session's calls then count in the session resumed from it (B), whose ``show`` lists its
    conversation (``resumedshow``), not in whichever of B, C, D sorts first by id (the copies
    keep their times: all three began together).  Fixed once the copies are written: the
    session's own calls come after them, and a copy's rank does not move as the file grows.
    The chain is every session the records of ``main`` name (``resumes.copied_sessions``; or
    ``copied``, read already), as ``show`` finds it (``resumedshow.detail_pass``): a session
    resumed and left before its first reply made no call, yet is a step (A → B → C with B's
    turn interrupted: C's copies of A are two resumes away, B's one, and B lists them).  The
    calls' sessions are the chain when the records cannot be read (a compressed transcript)."""
    chain = _named_sessions(calls, session)
    # (Only a gone session's copies rank by nearness: a found one's own copy outranks them all.
    # So only then are the records read, record by record: 0.6 s for a 500 MB head of copies.)
    if chain and main is not None and (copied is not None or any(is_gone(named, main) for named in chain)):
        from agentscan.providers.claude.resumes import copied_sessions

        found = copied if copied is not None else copied_sessions(main, session)
        if found is not None:
            chain = dict.fromkeys([*found, *chain])  # (a named call's session missing from the records: last)
    steps = len(chain)
    return {named: max(0, _NEAREST - 1 - (steps - at)) for at, named in enumerate(chain)}


def chain_wanted(calls: list[Call], session: str, main: str | os.PathLike[str]) -> bool:
    """Whether ``_nearness`` reads the records of ``main`` for the chain: a session its calls'
    copies name is gone."""
    return any(is_gone(named, main) for named in _named_sessions(calls, session))


def _named_sessions(calls: list[Call], session: str) -> dict[str, None]:
    """The other sessions ``calls``' records name, in the order they come."""
    chain: dict[str, None] = {}
    for c in calls:
        named = c[C_SESSION_ID]
        if named is not None and named != session and named not in chain:
            chain[named] = None
    return chain
