"""Review of the eleventh pass (``toolkit.hashes64``, request ids as tuples): what a hostile
home (docs/security.md: it must not hang a command) or a structured hash made slow."""

from __future__ import annotations

import time


def _call(message_id: str, request_id: str, order: int) -> tuple:
    from agentscan.providers.claude.usage import call_of

    record = {"type": "assistant", "requestId": request_id, "timestamp": "2026-11-01T10:00:00.000Z",
              "message": {"id": message_id, "model": "claude-sonnet-4-5",
                          "usage": {"input_tokens": order, "output_tokens": 1}}}
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
