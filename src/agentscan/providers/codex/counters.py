"""Codex token counters and their mapping onto the contract's vocabulary.

A ``token_count`` event carries ``input_tokens`` (cached included),
``cached_input_tokens``, ``cache_write_input_tokens`` (newer builds),
``output_tokens`` (reasoning included), ``reasoning_output_tokens`` and
``total_tokens``; we keep them as a plain tuple so that equality (the
re-emission and copy checks) and hashing (deduplication) are cheap.
"""

from __future__ import annotations

from operator import lt
from typing import Any, Mapping

from agentscan.bounds import MAX_TOKEN_COUNT
from agentscan.model import TokenUsage
from agentscan.providers.codex.records import (RawLine, RawTokenInfo, RawTokenUsage, as_dict, no_count, noted_count,
                                              payload_of)

#: input, cached, cache_write, output, reasoning, total: a call's raw counters
Counters = tuple[int, int, int, int, int, int]
ZERO: Counters = (0, 0, 0, 0, 0, 0)


#: how many usage values so far were no token count (``records.no_count``): a reader that
#: wants to know whether one counter held such a value compares this before and after it
#: reads the counter (``callscan``: running totals of garbage are no running count).  One
#: number, touched only off the common path, so the twelve reads of every event cost nothing.
odd_values = [0]


def _count(value: object, field: str) -> int:
    # ``as_count``, the common cases inline (a count, or no such field): twelve calls for
    # each ``token_count`` event (two counters), and a heavy user has 180,000 of them.
    # Anything else is told once a file (``records.noted_count``).
    if type(value) is int and 0 <= value <= MAX_TOKEN_COUNT:
        return value
    if value is None:
        return 0
    count = noted_count(value, field)
    if no_count(value, count):
        odd_values[0] += 1
    return count


def counters_of(raw: RawTokenUsage | object) -> Counters | None:
    if not isinstance(raw, dict):
        return None
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


def kept_counters(value: object) -> Counters:
    """Counters as agentscan keeps them in its index (a list of six counts); ``TypeError`` for
    anything else: a damaged value is no value (``fullcounts``, ``runs``)."""
    if not (isinstance(value, list) and len(value) == 6 and all(type(n) is int and n >= 0 for n in value)):
        raise TypeError("counters")
    return tuple(value)  # type: ignore[return-value]


def add(left: Counters, right: Counters) -> Counters:
    return tuple(a + b for a, b in zip(left, right))  # type: ignore[return-value]


def to_tokens(counters: Counters) -> TokenUsage:
    """Codex counters in the contract's vocabulary (cached ⊂ input, reasoning ⊂ output)."""
    total_input, cached, cache_write, output, reasoning, _ = counters
    cache_read = min(cached, total_input)
    return TokenUsage(
        input=total_input - cache_read,
        cache_read=cache_read,
        cache_write=cache_write,
        output=output,
        reasoning=reasoning,
    )


def token_info(record: RawLine | Mapping[str, Any]) -> RawTokenInfo | None:
    """``payload.info`` of an ``event_msg/token_count`` line (``None`` otherwise)."""
    if record.get("type") != "event_msg":
        return None
    payload = payload_of(record)
    if payload.get("type") != "token_count":
        return None
    return as_dict(payload.get("info"))  # type: ignore[return-value]
