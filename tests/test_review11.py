"""Review of the eleventh pass (``toolkit.hashes64``, request ids as tuples): what a hostile
home (docs/security.md: it must not hang a command) or a structured hash made slow."""

from __future__ import annotations

import random
import time

from agentscan.toolkit.hashes64 import Hashes64
from builders import claude_assistant, claude_usage


def _call(message_id: str, request_id: str, order: int) -> tuple:
    from agentscan.providers.claude.usage import call_of

    record = claude_assistant("11111111-2222-4333-8444-555555555555", "2026-11-01T10:00:00.000Z", msg_id=message_id,
                              request_id=request_id, usage=claude_usage(order, 1))
    return call_of(record, None, order)


def test_one_message_under_thousands_of_requests_is_not_quadratic() -> None:
    """A message's requests in the window: a tuple copied on every call added and filtered on
    every call settled made a transcript repeating one message id under new request ids
    quadratic in the window (60,000 such calls took 39 s where a set took 0.2 s)."""
    from agentscan.providers.claude.windowed import WindowedTotals

    calls = [_call("msg_same", f"req_{index}", index) for index in range(30_000)]
    totals = WindowedTotals(window=10_000, stable=False)
    started = time.perf_counter()
    for call in calls:
        totals.add(call)
    again = WindowedTotals.unpacked(totals.packed(), stable=False)
    elapsed = time.perf_counter() - started
    expected = sum(range(30_000))
    assert totals.total().input == again.total().input == expected
    assert elapsed < 2.0, elapsed


def test_members_that_share_their_low_bits_do_not_make_one_probe_chain() -> None:
    """A slot from the low bits alone, then the next slot and the next: members alike in their
    low bits (a crafted transcript's BLAKE2b hashes, which anyone can search for offline; or
    values like ``i << 32``) piled into one run, each add walking all of it (20,000 such
    members took 33 s; a ``set`` mixes the high bits in as it probes)."""
    rnd = random.Random(11)

    def signed(value: int) -> int:
        return value - (1 << 64) if value >= 1 << 63 else value

    crafted = [signed((rnd.getrandbits(64) & ~0xFFFFF) | rnd.getrandbits(10)) or 1 for _ in range(10_000)]
    shifted = [index << 32 for index in range(1, 10_001)]
    for members in (crafted, shifted):
        started = time.perf_counter()
        hashes = Hashes64(members)
        found = all(member in hashes for member in members)
        absent = sum(member + 1 in hashes for member in members)
        elapsed = time.perf_counter() - started
        assert found and absent == len(set(members) & {member + 1 for member in members})
        assert len(hashes) == len(set(members))
        assert elapsed < 2.0, elapsed
