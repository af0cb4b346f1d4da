"""Claude Code token counting: the rules peers most often get wrong.

Claude Code writes one record per content block of an API response and
repeats ``message.usage`` on each, sometimes as a growing streaming snapshot;
subagent calls are embedded again in the parent's ``progress`` records and
summarised in ``toolUseResult.usage``.  So (docs/providers/claude.md):

* top-level ``assistant`` records count, and so do the copies of a
  subagent's calls in the parent's ``agent_progress`` records: they are keyed
  like any other copy, so they only count when no subagent transcript holds
  the same call (the subagent file is gone); ``toolUseResult.usage`` never;
* each ``(message.id, requestId)`` counts once across every file, keeping the
  copy with the largest total (keep-first undercounts output);
* a record without ``requestId`` is deduplicated by ``message.id`` alone;
* a sidechain replay of a parent message (same ``message.id``, another
  ``requestId``) loses to the parent;
* a record without ``message.id`` cannot be deduplicated and counts as is.
"""

from __future__ import annotations

from dataclasses import dataclass
from sys import intern
from datetime import datetime, timezone
from typing import Any, Callable, Collection, Iterable, Iterator

from agentscan.bounds import MAX_TOKEN_COUNT, token_count
from agentscan.model import PROGRESS_ORIGIN, TokenUsage, UsageEntry
from agentscan.providers.claude.records import as_dict, as_str
from agentscan.timeutil import epoch_of_iso

#: Fields of a *call*: one record's usage as ``tokens`` keeps it, a plain tuple
#: (a heavy user has a million).  ``candidate_from`` builds on it, so the rules
#: below live in ``call_of`` alone.  ``C_CACHE_WRITE_1H`` matters for cost only;
#: ``C_FROM_PROGRESS`` marks a subagent call copied into its parent's progress record.
(MESSAGE_ID, REQUEST_ID, SIDECHAIN, HAS_SPEED, C_INPUT, C_CACHE_READ, C_CACHE_WRITE, C_OUTPUT, C_TS, C_MODEL,
 C_SUBAGENT, C_ORDER, C_CACHE_WRITE_1H, C_FROM_PROGRESS) = range(14)
Call = tuple


@dataclass(frozen=True, slots=True)
class UsageCandidate:
    """One assistant record's usage, before deduplication."""

    session: str
    subagent: str | None
    message_id: str | None
    request_id: str | None
    sidechain: bool
    has_speed: bool
    tokens: TokenUsage
    timestamp: datetime | None
    model: str | None
    order: int  # position in the scan, so ties keep the first copy
    cache_write_1h: int = 0  # for cost only (UsageEntry.cache_write_1h)
    from_progress: bool = False  # a subagent call copied into the parent's progress record


def _count(value: object) -> int:
    # The common cases inline (a count, or no such field); anything odd goes through the one validator.
    if type(value) is int and 0 <= value <= MAX_TOKEN_COUNT:  # type: ignore[operator]
        return value  # type: ignore[return-value]
    return 0 if value is None else token_count(value)


def call_of(record: dict[str, Any], subagent: str | None, order: int) -> Call | None:
    """The usage ``record`` carries, as a call tuple: a top-level assistant record's,
    or a progress copy's (``progress_call``); ``None`` when it counts nothing."""
    kind = record.get("type")
    if kind == "progress":
        return progress_call(record, order)
    if kind != "assistant":
        return None
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None
    message_id, request_id, model = message.get("id"), record.get("requestId"), message.get("model")
    cache_write = _count(usage.get("cache_creation_input_tokens"))
    # ``records.cache_write_1h``, inline: this runs once per call of a cold ``tokens``.
    split = usage.get("cache_creation")
    one_hour = _count(split.get("ephemeral_1h_input_tokens")) if type(split) is dict else 0
    return (
        message_id if isinstance(message_id, str) and message_id else None,
        request_id if isinstance(request_id, str) and request_id else None,
        record.get("isSidechain") is True,
        "speed" in usage,
        _count(usage.get("input_tokens")),
        _count(usage.get("cache_read_input_tokens")),
        cache_write,
        _count(usage.get("output_tokens")),
        epoch_of_iso(record.get("timestamp")),
        intern(model) if isinstance(model, str) and model else None,  # one string per model, not per call
        subagent,
        order,
        one_hour if one_hour < cache_write else cache_write,
        False,
    )


def progress_call(record: dict[str, Any], order: int) -> Call | None:
    """A subagent's API call as the parent's ``agent_progress`` record copied it.

    ``data.message`` is the subagent's whole assistant record (``message.id``,
    ``usage``, ``requestId``); ``data.agentId`` names the subagent it belongs
    to.  A copy without ``agentId`` cannot be attributed and is not counted.
    """
    data = as_dict(record.get("data"))
    agent_id = as_str(data.get("agentId"))
    copied = as_dict(data.get("message"))
    if agent_id is None or copied.get("type") != "assistant":
        return None
    call = call_of(copied, agent_id, order)
    if call is None:
        return None
    # A subagent call is a sidechain call whatever the copy says, so a replay
    # of a parent message still loses to the parent (rule 4).
    ts = call[C_TS] if call[C_TS] is not None else epoch_of_iso(record.get("timestamp"))
    return (*call[:SIDECHAIN], True, *call[SIDECHAIN + 1:C_TS], ts, *call[C_TS + 1:C_FROM_PROGRESS], True)


def candidate_from(record: dict[str, Any], *, session: str, subagent: str | None, order: int) -> UsageCandidate | None:
    call = call_of(record, subagent, order)
    if call is None:
        return None
    ts = call[C_TS]
    return UsageCandidate(
        session=session,
        subagent=call[C_SUBAGENT],
        message_id=call[MESSAGE_ID],
        request_id=call[REQUEST_ID],
        sidechain=call[SIDECHAIN],
        has_speed=call[HAS_SPEED],
        tokens=TokenUsage(call[C_INPUT], call[C_CACHE_READ], call[C_CACHE_WRITE], call[C_OUTPUT]),
        timestamp=None if ts is None else datetime.fromtimestamp(ts, timezone.utc),
        model=call[C_MODEL],
        order=order,
        cache_write_1h=call[C_CACHE_WRITE_1H],
        from_progress=call[C_FROM_PROGRESS],
    )


def call_rank(call: Call) -> int:
    """Orders copies of one call as ``_better`` does: parent over sidechain, then the
    larger total, then the copy that has ``speed``, then a transcript's copy over a
    progress copy (``entries_from``'s rank)."""
    total = call[C_INPUT] + call[C_CACHE_READ] + call[C_CACHE_WRITE] + call[C_OUTPUT]
    return ((0 if call[SIDECHAIN] else 1 << 62) + total * 4 + (2 if call[HAS_SPEED] else 0)
            + (0 if call[C_FROM_PROGRESS] else 1))


class CallDeduper:
    """``UsageDeduper`` over call tuples, for ``tokens``.

    A tie keeps the copy that comes first in file order (``C_ORDER``), so the
    result does not depend on the order calls are added in: an incremental
    update that adds a file's new tail last gets what a full parse gets.
    """

    def __init__(self) -> None:
        self._best: dict[tuple[str, str | None], Call] = {}
        self._loose: list[Call] = []  # no message id: cannot be deduplicated

    def add_all(self, calls: Iterable[Call]) -> None:
        best = self._best
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
            new_rank, old_rank = call_rank(call), call_rank(current)
            if new_rank > old_rank or (new_rank == old_rank and call[C_ORDER] < current[C_ORDER]):
                best[key] = call

    def winners(self) -> list[Call]:
        best = self._best
        kept = list(self._loose)
        parents: dict[str, set[str | None]] | None = None
        for (message_id, request_id), call in best.items():
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
            kept.append(call)
        kept.sort(key=lambda call: call[C_ORDER])
        return kept


def usage_entries(calls: Iterable[Call], session_of: Callable[[int], str],
                  transcripts: Collection[tuple[str, str]] = ()) -> list[UsageEntry]:
    """Calls as ``UsageEntry`` values (the library's ``usage``); ``session_of`` maps an
    order to its session; ``transcripts`` as for ``entries_from``."""
    return [
        UsageEntry(
            session=(session := session_of(c[C_ORDER])),
            tokens=TokenUsage(c[C_INPUT], c[C_CACHE_READ], c[C_CACHE_WRITE], c[C_OUTPUT]),
            timestamp=None if c[C_TS] is None else datetime.fromtimestamp(c[C_TS], timezone.utc),
            model=c[C_MODEL],
            subagent=c[C_SUBAGENT],
            dedupe_key=None if c[MESSAGE_ID] is None else f"{c[MESSAGE_ID]}\x1f{c[REQUEST_ID] or ''}",
            rank=call_rank(c),
            cache_write_1h=c[C_CACHE_WRITE_1H],
            origin=PROGRESS_ORIGIN if c[C_FROM_PROGRESS] and (session, c[C_SUBAGENT]) not in transcripts else None,
        )
        for c in calls
    ]


def packed_entries(calls: Iterable[Call], session: str, transcripts: Collection[str] = ()) -> Iterator[list]:
    """Calls as packed usage entries (``UsageEntry.pack``'s layout), keyed like ``entries_from``;
    ``transcripts`` are the session's subagents that have a transcript of their own.
    A generator: the caller sums them as they come (a 1 GB transcript has 450k)."""
    for c in calls:
        entry = [session, c[C_SUBAGENT], c[C_TS], c[C_MODEL], c[C_INPUT], c[C_CACHE_READ], c[C_CACHE_WRITE], c[C_OUTPUT],
                 0, None if c[MESSAGE_ID] is None else f"{c[MESSAGE_ID]}\x1f{c[REQUEST_ID] or ''}", call_rank(c),
                 c[C_CACHE_WRITE_1H]]
        if c[C_FROM_PROGRESS] and c[C_SUBAGENT] not in transcripts:
            entry.append(PROGRESS_ORIGIN)
        yield entry


def _better(new: UsageCandidate, old: UsageCandidate) -> bool:
    """Whether ``new`` should replace ``old`` as the copy that counts."""
    if new.sidechain != old.sidechain:
        return not new.sidechain
    if new.tokens.total != old.tokens.total:
        return new.tokens.total > old.tokens.total
    if new.has_speed != old.has_speed:
        return new.has_speed
    if new.from_progress != old.from_progress:
        return old.from_progress  # on a tie, the subagent's own transcript
    return False


class UsageDeduper:
    """Keeps the one copy of each API call that counts, across any number of files."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str | None], UsageCandidate] = {}
        self._request_ids: dict[str, set[str | None]] = {}
        self._undeduplicable: list[UsageCandidate] = []

    def add(self, candidate: UsageCandidate) -> None:
        if candidate.message_id is None:
            self._undeduplicable.append(candidate)
            return
        key = (candidate.message_id, candidate.request_id)
        current = self._by_key.get(key)
        if current is None:
            self._by_key[key] = candidate
            self._request_ids.setdefault(candidate.message_id, set()).add(candidate.request_id)
        elif _better(candidate, current):
            self._by_key[key] = candidate

    def add_all(self, candidates: Iterable[UsageCandidate]) -> None:
        for candidate in candidates:
            self.add(candidate)

    def winners(self) -> list[UsageCandidate]:
        kept: list[UsageCandidate] = []
        for (message_id, request_id), candidate in self._by_key.items():
            if candidate.sidechain and self._replays_parent(message_id, request_id):
                continue
            kept.append(candidate)
        kept.extend(self._undeduplicable)
        kept.sort(key=lambda c: c.order)
        return kept

    def _replays_parent(self, message_id: str, request_id: str | None) -> bool:
        """A sidechain copy whose message also exists, unsidechained, under another request."""
        for other_request in self._request_ids.get(message_id, ()):
            if other_request == request_id:
                continue
            other = self._by_key[(message_id, other_request)]
            if not other.sidechain:
                return True
        return False


def entries_from(candidates: Iterable[UsageCandidate], transcripts: Collection[tuple[str, str]] = ()) -> list[UsageEntry]:
    """Entries keyed by their API call, so copies in other sessions count once.

    The rank orders copies as ``_better`` does: a parent copy beats a sidechain
    one, then the larger total, then the copy that has ``speed``, then a
    transcript copy over a progress copy.  A call of a subagent that has no
    transcript among ``transcripts`` (``(session, agent id)`` pairs) is marked
    as recovered from the parent's progress records.
    """
    return [
        UsageEntry(
            session=c.session,
            tokens=c.tokens,
            timestamp=c.timestamp,
            model=c.model,
            subagent=c.subagent,
            dedupe_key=None if c.message_id is None else f"{c.message_id}\x1f{c.request_id or ''}",
            rank=(0 if c.sidechain else 1 << 62) + c.tokens.total * 4 + (2 if c.has_speed else 0) + (0 if c.from_progress else 1),
            cache_write_1h=c.cache_write_1h,
            origin=PROGRESS_ORIGIN if c.from_progress and (c.session, c.subagent) not in transcripts else None,
        )
        for c in candidates
    ]


def meta_agent_type(meta: object) -> str | None:
    return as_str(as_dict(meta).get("agentType"))


class WindowedTotals:
    """A session's token sums under the same rules, in bounded memory.

    ``list`` and ``show`` need only sums, and must stay bounded on a 1 GB
    transcript with a million records.  Copies of one API call are written
    next to each other, so the full keep-the-best comparison runs over a
    window of the most recent ``window`` calls; a call that leaves the window
    is settled into the sums and only a 64-bit hash of its key is kept, so a
    much later copy is still never counted twice (it just cannot replace the
    settled one).  ``tokens`` keeps every call exactly (``UsageDeduper``).
    """

    def __init__(self, window: int = 20_000) -> None:
        self._window = window
        self._recent = UsageDeduper()
        self._settled_keys: set[int] = set()
        self._own: TokenUsage | None = None
        self._subagents: dict[str, TokenUsage] = {}

    def add(self, candidate: UsageCandidate) -> None:
        if candidate.message_id is None:
            self._settle(candidate)  # cannot be deduplicated: counts as it is
            return
        if hash((candidate.message_id, candidate.request_id)) in self._settled_keys:
            return
        self._recent.add(candidate)
        if len(self._recent._by_key) > self._window:
            self._evict_oldest()

    def _evict_oldest(self) -> None:
        recent = self._recent
        key = next(iter(recent._by_key))
        candidate = recent._by_key.pop(key)
        message_id, request_id = key
        replay = candidate.sidechain and recent._replays_parent(message_id, request_id)
        requests = recent._request_ids.get(message_id)
        if requests is not None:
            requests.discard(request_id)
            if not requests:
                del recent._request_ids[message_id]
        self._settled_keys.add(hash(key))
        if not replay:
            self._settle(candidate)

    def _settle(self, candidate: UsageCandidate) -> None:
        if candidate.subagent is None:
            self._own = candidate.tokens if self._own is None else self._own + candidate.tokens
        else:
            current = self._subagents.get(candidate.subagent)
            self._subagents[candidate.subagent] = candidate.tokens if current is None else current + candidate.tokens

    def own(self) -> TokenUsage | None:
        return self._sum(None)

    def by_subagent(self) -> dict[str, TokenUsage]:
        result: dict[str, TokenUsage] = dict(self._subagents)
        for candidate in self._recent.winners():
            if candidate.subagent is not None:
                current = result.get(candidate.subagent)
                result[candidate.subagent] = candidate.tokens if current is None else current + candidate.tokens
        return result

    def total(self) -> TokenUsage | None:
        parts = [self.own(), *self.by_subagent().values()]
        present = [p for p in parts if p is not None]
        if not present:
            return None
        result = present[0]
        for part in present[1:]:
            result = result + part
        return result

    def _sum(self, subagent: str | None) -> TokenUsage | None:
        result = self._own if subagent is None else self._subagents.get(subagent)
        for candidate in self._recent.winners():
            if candidate.subagent == subagent:
                result = candidate.tokens if result is None else result + candidate.tokens
        return result
