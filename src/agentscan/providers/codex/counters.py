"""Codex token counters and their mapping onto the contract's vocabulary.

A ``token_count`` event carries ``input_tokens`` (cached included),
``cached_input_tokens``, ``cache_write_input_tokens`` (newer builds),
``output_tokens`` (reasoning included), ``reasoning_output_tokens`` and
``total_tokens``; we keep them as a plain tuple so that equality (the
re-emission and copy checks) and hashing (deduplication) are cheap.
"""

from __future__ import annotations

from collections import deque
from operator import le, lt
from typing import Any, Iterable, Mapping

from agentscan.bounds import MAX_TOKEN_COUNT
from agentscan.model import TokenUsage
from agentscan.providers.codex.records import (RawLine, RawTokenInfo, RawTokenUsage, as_count, as_dict, no_count,
                                              no_number, noted_count, payload_of)
from agentscan.toolkit.valuewarnings import note_unread

#: input, cached, cache_write, output, reasoning, total: a call's raw counters
Counters = tuple[int, int, int, int, int, int]
ZERO: Counters = (0, 0, 0, 0, 0, 0)


def _count(value: object, field: str) -> int:
    # ``as_count``, the common cases inline (a count, or no such field): twelve calls for
    # each ``token_count`` event (two counters), and a heavy user has 180,000 of them.
    # Anything else is told once a file (``records.noted_count``).
    if type(value) is int and 0 <= value <= MAX_TOKEN_COUNT:
        return value
    return 0 if value is None else noted_count(value, field)


def _plain(raw: dict) -> Counters | None:
    """The counters of ``raw`` when all its values are counts (Codex's always are), read without
    ``_count``'s six calls; ``None`` when one is not (``_counters`` reads it field by field)."""
    for value in raw.values():
        if value.__class__ is not int or not 0 <= value <= MAX_TOKEN_COUNT:
            return None
    get = raw.get
    cached = get("cached_input_tokens")
    return (get("input_tokens", 0), get("cache_read_input_tokens", 0) if cached is None else cached,
            get("cache_write_input_tokens", 0), get("output_tokens", 0), get("reasoning_output_tokens", 0),
            get("total_tokens", 0))


def counters_of(raw: RawTokenUsage | object, where: str = "last_token_usage") -> Counters | None:
    """The counters of ``raw``; ``None`` for none (``where``: what they are, in the warning of
    counters that are no number at all, ``_unreadable``)."""
    if raw.__class__ is dict:
        if not raw:
            # ``last_token_usage: {}`` (real rollouts hold some: farion1231/cc-switch#5854) is no
            # count, not a call of zero: the running total's growth is the call (read as zeros,
            # it was lost, and the total said to have moved by other than its call)
            return None
        plain = _plain(raw)  # type: ignore[arg-type]
        if plain is not None:
            return plain
    elif not isinstance(raw, dict):
        return None
    if _unreadable(raw, where):  # type: ignore[arg-type]
        return None
    return _counters(raw)  # type: ignore[arg-type]


def _unreadable(raw: dict, where: str) -> bool:
    """Whether a counter of ``raw`` that every Codex build writes (``TokenUsage``'s integers; not
    the newer ``cache_write_input_tokens``, whose null is no such field, as ever) is no number at
    all (``records.no_number``: ``null``, ``true``, ``"x"``): told once a file (``where``: ``raw``'s
    name).  Such counters are no count: read as zeros they made a running total drop, a restart whose base the next totals counted
    on from (a call of the whole total after it), so a reader takes them for none (Codex cannot
    read that event back either)."""
    cached_field = "cached_input_tokens" if "cached_input_tokens" in raw else "cache_read_input_tokens"
    for field in ("input_tokens", cached_field, "output_tokens", "reasoning_output_tokens", "total_tokens"):
        value = raw.get(field, 0)
        if no_number(value):
            note_unread(field, value, where)
            return True
    return False


def _counters(raw: dict) -> Counters:
    get = raw.get
    cached_field = "cached_input_tokens" if "cached_input_tokens" in raw else "cache_read_input_tokens"
    return (
        _count(get("input_tokens"), "input_tokens"),
        _count(get(cached_field), cached_field),
        _count(get("cache_write_input_tokens"), "cache_write_input_tokens"),
        _count(get("output_tokens"), "output_tokens"),
        _count(get("reasoning_output_tokens"), "reasoning_output_tokens"),
        _count(get("total_tokens"), "total_tokens"),
    )


def total_counters(raw: Any, previous: Counters | None = None, last: Counters | None = None,
                   repeat: bool = False) -> tuple[Counters | None, bool]:
    """``counters_of`` a running total (``total_token_usage``), and whether one of its values
    was no token count (``records.no_count``: ``-5``, ``2.5``, ``10**16``): such totals are no
    running count of the calls, so a row counts the calls instead (``spent_on``).  A total with
    a counter of no number at all (``_unreadable``: ``null``, ``true``, ``"x"``) is not read:
    ``moved_total``."""
    total, garbage, unread = read_total(raw)
    return (moved_total(previous, last, repeat), False) if unread else (total, garbage)


def read_total(raw: Any) -> tuple[Counters | None, bool, bool]:
    """A running total as ``total_counters`` reads it with no total before it, and whether it
    was not read (a counter of no number) where its line has a call (moved by it, else none)."""
    if raw.__class__ is dict:
        plain = _plain(raw)
        if plain is not None:
            return plain, False, False
    elif not isinstance(raw, dict):
        return None, False, False
    if _unreadable(raw, "total_token_usage"):
        return None, False, True
    return _counters(raw), any(no_count(value, as_count(value)) for value in _fields(raw) if value is not None), False


def moved_total(previous: Counters | None, last: Counters | None, repeat: bool) -> Counters | None:
    """Where a total not read stands: beside a readable call (``last``) after a running total
    (``previous``), that total moved by the call (Codex adds each call to it), unless the line
    is a call already counted (``repeat``: its timestamp and call those of the ``token_count``
    before it, a line Codex wrote again), which moves nothing, as a readable total written again.
    Left where it was, the next total's growth was two calls: "moved by other than
    last_token_usage", and the file counted by its calls (a review of pass 61).  No call: no
    total (the next one's growth counts what this one skipped); no total before: none to move
    (the call is one with no total, ``unsummed``)."""
    if previous is None or last is None:
        return None
    return previous if repeat else add(previous, last)


def _fields(raw: dict) -> tuple[object, ...]:
    """The six values ``counters_of`` reads of ``raw``, in its order."""
    get = raw.get
    cached_field = "cached_input_tokens" if "cached_input_tokens" in raw else "cache_read_input_tokens"
    return (get("input_tokens"), get(cached_field), get("cache_write_input_tokens"), get("output_tokens"),
            get("reasoning_output_tokens"), get("total_tokens"))


def unsummed(total: Counters | None, last: Counters | None) -> bool:
    """Whether a ``token_count`` reports a call with no running total (``last_token_usage``
    alone): the totals, if the file has any, are then no count of every call, so a row
    counts the calls as ``tokens`` does (``step`` counts it), as of totals of garbage."""
    return total is None and last is not None and any(last[:5])


def jumped(previous: Counters | None, total: Counters | None, last: Counters | None) -> bool:
    """Whether a running total moved by other than its call's count (``last_token_usage``):
    past it (999,999 where the call was 1,000) or short of it, neither a repeat nor a restart.
    Codex's totals are the sum of its calls (formats.md: the 0.39 sample's 19 calls add up to
    its last total), so such a total counts no call: the calls are what was spent, as
    ``tokens`` and ccusage count them, and a row counts them too (as of totals of garbage)."""
    return (previous is not None and total is not None and last is not None and total != previous
            and not restarted(total, previous, last) and minus(total, previous) != last)


#: how many of a file's latest running totals a replayed one is looked up among (``step``): Codex
#: writes an older snapshot again shortly after (a stale repeat, a rollback to a few turns back)
RECENT = 64


#: the latest totals a read kept (``recent_totals``)
Seen = tuple[Counters, ...]


def recent_totals(totals: Seen = (), previous: Counters | None = None) -> deque[Counters]:
    """The latest running totals a file reached (``step``'s ``seen``), at most ``RECENT``; none
    kept: the zero every count starts from (a total of nothing, ``{}``, after calls is no restart:
    its ``last`` is a call counted already), and ``previous``, the one a read resumed at."""
    return deque(totals or ((ZERO,) if previous is None else (ZERO, previous)), RECENT)


#: a call as ``usage.UsageDeduper`` tells one written again: its line's ``timestamp`` and its count
CallKey = tuple[str, Counters]


def repeated(time: object, last: Counters | None, before: tuple[object, Counters] | None) -> bool:
    """Whether a ``token_count`` is the call counted just before it (``before``) written again:
    its ``timestamp`` and call that call's (``moved_total``'s ``repeat``; a timeless one is none,
    as ``usage.UsageDeduper`` tells none)."""
    return before is not None and time.__class__ is str and (time, last) == before


def latest_keys(kept: tuple[CallKey, ...], newest_first: Iterable[tuple[object, Counters]]) -> tuple[CallKey, ...]:
    """The latest ``RECENT`` distinct call keys, in file order: of ``newest_first`` (a read's
    calls from its last, a timeless one skipped), then of ``kept`` (those a read before kept).
    A read resumed from them counts a call written again across the append once, as ``tokens``
    does (a review, pass 61: a row of 2,750 for 1,650); a repeat of a call further back than
    these is counted again, so that what is kept stays bounded (a known limit:
    ``docs/providers/codex.md``)."""
    found: dict[CallKey, None] = {}
    for time, counters in newest_first:
        if time.__class__ is str:
            found[(time, counters)] = None  # type: ignore[index]
            if len(found) >= RECENT:
                break
    for key in reversed(kept):
        if len(found) >= RECENT:
            break
        found.setdefault(key, None)
    return tuple(reversed(found))


#: where a pass over a file stopped, for the next to go on from: (turn model, cumulative count,
#: the counts that restarted before it, settings model, tier, the latest totals reached, the latest
#: calls counted: ``callscan.FileUsageScanner.position``, kept by ``fullcounts``)
Position = tuple[str | None, Counters | None, Counters, str | None, str | None, Seen, tuple[CallKey, ...]]


def kept_keys(value: object) -> tuple[CallKey, ...]:
    """Call keys as agentscan keeps them in its index (``latest_keys``); ``TypeError`` for anything else."""
    if not isinstance(value, list) or len(value) > RECENT:
        raise TypeError("keys")
    keys = []
    for key in value:
        if not (isinstance(key, list) and len(key) == 2 and isinstance(key[0], str)):
            raise TypeError("key")
        keys.append((key[0], kept_counters(key[1])))
    return tuple(keys)


def step(previous: Counters | None, carried: Counters, total: Counters | None, last: Counters | None,
         seen: deque[Counters] | None, lost: bool = False) -> tuple[Counters | None, Counters, Counters | None]:
    """One ``token_count`` event, as every reader of a rollout takes it: from the running
    total reached (``previous``) and the runs that restarted before it (``carried``), with the
    event's ``total`` and its call's ``last`` count, the new ``previous`` and ``carried``, and
    the call it reports (``None``: none, a replayed total, or a call of no tokens).  ``seen``:
    the file's latest totals (``recent_totals``), updated here (``None``: a total of garbage,
    ``-5``, no count to look up or keep); ``lost``: the event's ``last_token_usage`` is ``{}``
    (no count, ``counters_of``).

    The call is ``last``, else the total's growth.  A total that ``restarted`` (went down)
    and equals one of ``seen`` exactly is that count written again (a stale snapshot: tokscale#308,
    CodexBar#3120; a rollback re-emitting an older total): it counts no call and moves nothing
    but ``seen``, where it becomes the newest (the evidence of the base a drop after it restores).
    Any other drop is a restart (an older build counting from zero, a resume or rollback from an
    older base, a context overflow's fill): its call is ``last`` (none when ``lost``: the total
    may be a base restored, not a call; with no ``last`` written, the total less the base it
    counts on from, ``_base``), and the run before it was spent too, less the base the
    new run starts from (``total`` less its call), which it counts again.  No rule of "the
    total is lower" alone, since a real count can go down (CodexBar#3510: such a rule ate usage).
    ``FileUsageScanner`` keeps the calls, ``runs`` only adds them up: one rule for both."""
    call: Counters | None
    if total is not None:
        if total == previous:
            return previous, carried, None
        if previous is not None and restarted(total, previous, last):
            if seen is not None and total in seen:
                if seen[-1] != total:
                    # kept newest: a drop right after it counts on from it (``_base``)
                    seen.remove(total)
                    seen.append(total)
                return previous, carried, None
            call = None if lost else (last if last is not None else minus(total, _base(seen, previous, total)))
            carried = add(carried, _spent_before(previous, total, call))
        else:
            call = last if last is not None else minus(total, previous)
        if seen is not None:
            seen.append(total)
        previous = total
    else:
        call = last
    if call is None or not any(call[:5]):
        return previous, carried, None
    return previous, carried, call


def _base(seen: deque[Counters] | None, previous: Counters, total: Counters) -> Counters | None:
    """The base a restart with no ``last_token_usage`` (none written at all) counts on from: the
    total written again right before it (a replay, ``seen``'s newest once it is not ``previous``:
    a rollback re-emits the count it goes back to, and the call adds to it) when ``total`` is at
    or above it in every counter; else ``None``, from zero.  No base without that evidence: a
    restart from zero whose first call is at least an earlier total in every counter is not
    told from a resume from it by the totals alone, and taking one undercounted it (a review,
    pass 58); from zero, a resume with no replay before it counts its base again (an upper
    bound, as parser 41 counted every such drop)."""
    if seen:
        replayed = seen[-1]
        if replayed != previous and all(map(le, replayed, total)):
            return replayed
    return None


def _spent_before(previous: Counters, total: Counters, call: Counters | None) -> Counters:
    """What a run that reached ``previous`` spent beyond the base a restart's ``total`` starts
    from (``total`` less its ``call``): counted once, in the new run's totals.  A field may be
    below zero (a base above the run it ends in that field: the new run's totals count it
    already), so ``carried`` is signed (``kept_counters(..., signed=True)``); the whole run instead made a row
    count a base that ``tokens`` never counts (a review, pass 57)."""
    return tuple(p - (t - c) for p, t, c in zip(previous, total, call or ZERO))  # type: ignore[return-value]


def spent_on(spent: Counters, call: Counters) -> Counters:
    """``spent`` with ``call`` added, its cached input and cache write no more than its input, as
    ``to_tokens`` takes each call ``tokens`` counts: the sum of a file's calls (``FileUsageScanner.spent``,
    ``runs``) is then what ``tokens`` adds up, a call's surplus not spent on another's input."""
    _, cache_read, cache_write, _, _ = token_fields(call)
    return (spent[0] + call[0], spent[1] + cache_read, spent[2] + cache_write, spent[3] + call[3],
            spent[4] + call[4], spent[5] + call[5])


def minus(current: Counters, previous: Counters | None) -> Counters:
    """``current - previous`` field-wise; a counter that went down means a reset."""
    if previous is None:
        return current
    if any(c < p for c, p in zip(current, previous)):
        return current
    return tuple(c - p for c, p in zip(current, previous))  # type: ignore[return-value]


def restarted(total: Counters, previous: Counters, last: Counters | None) -> bool:
    """Whether a cumulative count that was at ``previous`` started over (an older build resuming
    a thread counts again from zero): it went down (as ``minus`` takes it), or it is its own
    call's count (``last``), from zero, though a larger first call leaves it higher."""
    return total == last or any(map(lt, total, previous))


def kept_counters(value: object, *, signed: bool = False) -> Counters:
    """Counters as agentscan keeps them in its index (a list of six counts); ``TypeError`` for
    anything else: a damaged value is no value (``fullcounts``, ``runs``).  ``signed``: a
    ``carried``, whose field may be below zero (``_spent_before``)."""
    if not (isinstance(value, list) and len(value) == 6 and all(type(n) is int and (signed or n >= 0) for n in value)):
        raise TypeError("counters")
    return tuple(value)  # type: ignore[return-value]


def add(left: Counters, right: Counters) -> Counters:
    return tuple(a + b for a, b in zip(left, right))  # type: ignore[return-value]


def to_tokens(counters: Counters) -> TokenUsage:
    """Codex counters in the contract's vocabulary (cached and cache writes ⊂ input, reasoning ⊂
    output).

    OpenAI's ``input_tokens`` is the whole prompt, which its cache read (``cached_input_tokens``)
    and cache write (``cache_write_input_tokens``) partition with the uncached rest ("input tokens
    use the uncached-input, cached-input, or cache-write rate"; ``total_tokens`` = input + output):
    a cache write subtracted from ``input`` too, or it is counted, and billed, twice."""
    return TokenUsage(*token_fields(counters))


def token_fields(counters: Counters) -> tuple[int, int, int, int, int]:
    """``to_tokens(counters)``'s input, cache read, cache write, output and reasoning, without the
    ``TokenUsage`` (``usage.UsageDeduper``'s packed entries: one a call of a cold ``tokens``): the
    cache read no more than the input, the cache write no more than what the read leaves of it."""
    total_input, cached, cache_write, output, reasoning, _ = counters
    if cached > total_input:  # (``if``s: two ``min`` calls made ``spent_on`` ≈ 0.35 µs slower a call)
        cached = total_input
    if cache_write > total_input - cached:
        cache_write = total_input - cached
    return total_input - cached - cache_write, cached, cache_write, output, reasoning


def token_info(record: RawLine | Mapping[str, Any]) -> RawTokenInfo | None:
    """``payload.info`` of an ``event_msg/token_count`` line (``None`` otherwise)."""
    if record.get("type") != "event_msg":
        return None
    payload = payload_of(record)
    if payload.get("type") != "token_count":
        return None
    return as_dict(payload.get("info"))  # type: ignore[return-value]
